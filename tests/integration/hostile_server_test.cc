// The device protects itself (DESIGN invariant 4): the real
// ldp-agent binary, run as a new user would run it (default budget flags;
// only --send_window_ms and --poll_seconds shortened so the test is fast),
// against a hostile AgentService that tries every cheap way to learn more
// than the agent's own budget allows:
//   (a) it re-asks ONE question (a GRR histogram of `color` at ε 0.9) under
//       1200 new study, round and task ids, with the schema's fields
//       reordered or padded with an unused field, hoping for fresh answers
//       to average out the noise;
//   (b) it asks groups of alias spellings of one question each (a default
//       left 0 vs written out: OLH num_buckets, count-mean sketch hash seed
//       and size, piecewise and hybrid num_cells, discrete Laplace
//       resolution_bits), each under new study ids;
//   (c) it floods 10^4 small-ε (0.001) tasks, each a canonically different
//       statistical query, over several polls of ≤ 1000 tasks;
// and GetBudget lies, claiming a cap of 10^6 ε per study.
// What must hold: the agent's total spend stays within its default caps
// (2 ε per 24 h window, 10 ε lifetime), both in its own state file and as
// counted on the wire; the repeated question gets exactly one distinct
// report payload however many tasks carried it, and so does each alias
// group; the state file stays under its default 1024 KiB cap.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/local_hashing.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/integration/agent_process.h"
#include "tests/integration/fake_agent_service.h"

namespace ldp::testing {
namespace {

constexpr int64_t kNanos = 1'000'000'000;  // nano-ε per ε
// The agent's documented defaults (ldp-agent --help).
constexpr int64_t kDefaultPeriodCapNanos = 2 * kNanos;     // per 24 h window
constexpr int64_t kDefaultLifetimeCapNanos = 10 * kNanos;  // lifetime
constexpr int64_t kDefaultMaxStateBytes = 1024 * 1024;     // --max_state_kib

constexpr int64_t kRepeatedEpsilon = 9 * kNanos / 10;  // (a)
constexpr int64_t kAliasEpsilon = kNanos / 10;         // (b), per group
constexpr int64_t kFloodEpsilon = kNanos / 1000;       // (c)
constexpr int kRepeatedTasks = 1200;
constexpr int kFloodTasks = 10'000;
constexpr int kFloodTasksPerStudy = 100;
constexpr int kMaxTasksPerPoll = 1000;

// Schema spellings of one study schema {x: real [0, 1], color: r|g|b|y}:
// as is, fields reordered, and with a field no question reads.
constexpr const char* kSchemas[] = {
    R"pb(fields {
           name: "x"
           real_field { lower: 0 upper: 1 }
         }
         fields {
           name: "color"
           categorical_field { categories: [ "r", "g", "b", "y" ] }
         })pb",
    R"pb(fields {
           name: "color"
           categorical_field { categories: [ "r", "g", "b", "y" ] }
         }
         fields {
           name: "x"
           real_field { lower: 0 upper: 1 }
         })pb",
    R"pb(fields {
           name: "x"
           real_field { lower: 0 upper: 1 }
         }
         fields {
           name: "color"
           categorical_field { categories: [ "r", "g", "b", "y" ] }
         }
         fields {
           name: "unused"
           int_field { lower: 0 upper: 100 }
         })pb",
};
constexpr char kRecordJson[] = R"({"x": 0.7, "color": "g"})";

// A task template (ids 0): `body` is the question and randomizer in text
// format; the task charges `epsilon_nanos`, which the randomizer states too.
v1::Task Template(int64_t epsilon_nanos, const std::string& body,
                  int schema = 0) {
  v1::Task task;
  const std::string text =
      absl::StrCat("epsilon_nanos: ", epsilon_nanos, " schema { ",
                   kSchemas[schema], " } ", body);
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &task))
      << text;
  task.mutable_randomizer()->set_epsilon_nanos(epsilon_nanos);
  return task;
}

const char kColor[] = R"pb(encoding { field { field: "color" } })pb";
const char kX[] = R"pb(query {
                         root { field: "x" }
                         output_range { lower: 0 upper: 1 }
                       })pb";

// One group of alias spellings: every spelling is the same canonical
// question, so all must get one payload and one charge.
struct AliasGroup {
  std::string name;
  std::vector<v1::Task> spellings;
};

std::vector<AliasGroup> AliasGroups() {
  const double epsilon = static_cast<double>(kAliasEpsilon) / kNanos;
  const uint32_t olh_buckets =
      (*OptimizedLocalHashing::Create({.epsilon = epsilon, .domain_size = 4}))
          ->num_buckets();
  const std::string cms_seed =
      absl::StrCat(CountMeanSketchOptions::kDefaultHashSeed);
  return {
      {"olh num_buckets",
       {Template(kAliasEpsilon,
                 absl::StrCat(kColor, " randomizer { domain_size: 4 olh {} }")),
        Template(kAliasEpsilon,
                 absl::StrCat(
                     kColor, " randomizer { domain_size: 4 olh { num_buckets: ",
                     olh_buckets, " } }"))}},
      {"count-mean sketch hash_seed (and size)",
       {Template(
            kAliasEpsilon,
            absl::StrCat(
                kColor, " randomizer { domain_size: 4 count_mean_sketch {} }")),
        Template(
            kAliasEpsilon,
            absl::StrCat(
                kColor,
                " randomizer { domain_size: 4 count_mean_sketch { hash_seed: ",
                cms_seed, " } }")),
        Template(
            kAliasEpsilon,
            absl::StrCat(
                kColor,
                " randomizer { domain_size: 4 count_mean_sketch { num_hashes: ",
                CountMeanSketch::kDefaultNumHashes,
                " num_columns: ", CountMeanSketch::kDefaultNumColumns,
                " hash_seed: ", cms_seed, " } }"))}},
      {"piecewise num_cells",
       {Template(kAliasEpsilon,
                 absl::StrCat(kX, " randomizer { piecewise {} }")),
        Template(kAliasEpsilon,
                 absl::StrCat(kX, " randomizer { piecewise { num_cells: ",
                              PiecewiseOptions{}.num_cells, " } }"))}},
      {"hybrid num_cells",
       {Template(kAliasEpsilon, absl::StrCat(kX, " randomizer { hybrid {} }")),
        Template(kAliasEpsilon,
                 absl::StrCat(kX, " randomizer { hybrid { num_cells: ",
                              HybridOptions{}.num_cells, " } }"))}},
      {"discrete laplace resolution_bits",
       {Template(kAliasEpsilon,
                 absl::StrCat(kX, " randomizer { discrete_laplace {} }")),
        Template(kAliasEpsilon,
                 absl::StrCat(
                     kX, " randomizer { discrete_laplace { resolution_bits: ",
                     DiscreteLaplaceOptions{}.resolution_bits, " } }"))}},
  };
}

// The flood's i-th question: the mean of min(x, 2 + i) through Duchi. Equal
// to x on every record, but a different expression tree, so no canonical
// form may merge two of them.
v1::Task FloodTask(const v1::Task& flood_template, int i) {
  v1::Task task = flood_template;
  task.mutable_query()
      ->mutable_root()
      ->mutable_arithmetic()
      ->mutable_right()
      ->set_constant(2.0 + i);
  return task;
}

// What each task the fake hands out asks, canonically: its group and ε.
struct QuestionClass {
  std::string name;
  int64_t epsilon_nanos = 0;
};

// What the fake saw of the agent's own ledger as each poll began (the agent
// is idle then: its previous cycle is saved and uploaded).
struct Snapshot {
  int poll = 0;
  StateFileSpend spend;
  int64_t state_bytes = 0;
};

class HostileServerTest : public ::testing::Test {
 protected:
  // Gives `task` a new study, round and task id and records what it asks.
  v1::Task Issue(v1::Task task, const QuestionClass& question) {
    task.set_study_id(next_study_++);
    task.set_round_id(next_round_++);
    task.set_task_id(next_task_++);
    classes_[task.task_id()] = question;
    return task;
  }

  uint64_t next_study_ = 5000;
  uint64_t next_round_ = 70000;
  uint64_t next_task_ = 900000;
  std::map<uint64_t, QuestionClass> classes_;  // task id → question
};

TEST_F(HostileServerTest, DefaultCapsHoldAndRepeatedQuestionsGetOneAnswer) {
  // --- The script, fixed before the agent starts. ---
  const QuestionClass repeated{"repeated GRR color", kRepeatedEpsilon};
  const v1::Task repeated_templates[] = {
      Template(kRepeatedEpsilon,
               absl::StrCat(kColor, " randomizer { domain_size: 4 grr {} }"),
               0),
      Template(kRepeatedEpsilon,
               absl::StrCat(kColor, " randomizer { domain_size: 4 grr {} }"),
               1),
      Template(kRepeatedEpsilon,
               absl::StrCat(kColor, " randomizer { domain_size: 4 grr {} }"),
               2)};
  const std::vector<AliasGroup> groups = AliasGroups();
  const v1::Task flood_template = Template(kFloodEpsilon,
                                           R"pb(query {
                      root {
                        arithmetic {
                          op: MIN
                          left { field: "x" }
                          right { constant: 2 }
                        }
                      }
                      output_range { lower: 0 upper: 1 }
                    }
                    randomizer { duchi {} })pb");

  int repeated_issued = 0;
  auto add_repeated = [&](std::vector<v1::Task>& poll, int count) {
    for (int i = 0; i < count; ++i, ++repeated_issued) {
      poll.push_back(Issue(repeated_templates[repeated_issued % 3], repeated));
    }
  };
  auto add_aliases = [&](std::vector<v1::Task>& poll) {
    for (const AliasGroup& group : groups) {
      for (const v1::Task& spelling : group.spellings) {
        for (int copy = 0; copy < 3; ++copy) {
          poll.push_back(Issue(spelling, {group.name, kAliasEpsilon}));
        }
      }
    }
  };
  int flood_issued = 0;
  auto add_flood = [&](std::vector<v1::Task>& poll, int count) {
    for (int i = 0; i < count && flood_issued < kFloodTasks;
         ++i, ++flood_issued) {
      v1::Task task = FloodTask(flood_template, flood_issued);
      // Flood tasks share a study per kFloodTasksPerStudy (0.1 ε each, far
      // below the per-study cap): only the agent's total caps stop them.
      const uint64_t study = 100 + flood_issued / kFloodTasksPerStudy;
      task = Issue(std::move(task),
                   {absl::StrCat("flood ", flood_issued), kFloodEpsilon});
      task.set_study_id(study);
      poll.push_back(std::move(task));
    }
  };
  std::vector<std::vector<v1::Task>> polls(2);
  add_repeated(polls[0], 900);  // poll 0: the repeated question and aliases
  add_aliases(polls[0]);
  add_repeated(polls[1], 100);  // poll 1: again, plus the flood begins
  add_aliases(polls[1]);
  add_flood(polls[1], 800);
  while (flood_issued < kFloodTasks || repeated_issued < kRepeatedTasks) {
    std::vector<v1::Task>& poll = polls.emplace_back();
    add_repeated(poll, std::min(25, kRepeatedTasks - repeated_issued));
    add_flood(poll, 950);
  }
  for (const auto& poll : polls)
    ASSERT_LE(poll.size(), size_t{kMaxTasksPerPoll});
  ASSERT_EQ(repeated_issued, kRepeatedTasks);
  ASSERT_EQ(flood_issued, kFloodTasks);
  const int scripted_polls = static_cast<int>(polls.size());

  // --- The hostile server and the real agent. ---
  FakeServer server;
  ASSERT_TRUE(server.ok());
  AgentProcess agent;
  std::mutex snapshots_mutex;
  std::vector<Snapshot> snapshots;
  server.service().SetClaimedCap(1'000'000 *
                                 static_cast<uint64_t>(kNanos));  // a lie
  server.service().SetTaskScript([&](uint64_t, int poll) {
    {
      std::lock_guard lock(snapshots_mutex);
      snapshots.push_back({poll, ParseStateFileSpend(agent.ReadStateFile()),
                           agent.StateFileBytes()});
    }
    return poll < scripted_polls ? polls[poll] : std::vector<v1::Task>{};
  });
  ASSERT_TRUE(agent
                  .Start(server.address(), "hostile", kRecordJson,
                         {"--send_window_ms=20", "--poll_seconds=1"})
                  .ok());

  // Until the agent polls once more after the script: then every scripted
  // cycle has been answered, saved and uploaded. (A guard, not a timing
  // assertion: it only bounds a hung run.)
  auto script_done = [&] {
    const auto id = server.service().AgentIdFor("hostile");
    return id.has_value() && server.service().Polls(*id) > scripted_polls;
  };
  server.service().WaitUntil([&] { return script_done() || !agent.Running(); },
                             absl::Seconds(400));
  const bool finished = script_done();
  const bool alive = agent.Running();
  const int exit_status = agent.Stop();
  const std::string log = agent.Log();
  ASSERT_TRUE(finished) << "the agent did not get through the script; alive="
                        << alive << "\n"
                        << log.substr(0, 4000);
  EXPECT_EQ(exit_status, 0)
      << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  const uint64_t agent_id = *server.service().AgentIdFor("hostile");

  // --- On the wire: payloads per canonical question. ---
  std::map<std::string, std::set<std::string>> payloads;  // class → payloads
  std::map<std::string, std::set<uint64_t>> answered;     // class → task ids
  std::map<std::string, int64_t> epsilon;                 // class → ε
  const std::vector<v1::Report> received = server.service().Received();
  for (const v1::Report& report : received) {
    EXPECT_EQ(report.agent_id(), agent_id);
    const auto it = classes_.find(report.task_id());
    ASSERT_NE(it, classes_.end()) << "a report for task " << report.task_id()
                                  << ", which the server never issued";
    payloads[it->second.name].insert(PayloadBytes(report));
    answered[it->second.name].insert(report.task_id());
    epsilon[it->second.name] = it->second.epsilon_nanos;
  }

  // (a) One question, 1200 ids: one payload, and every copy answered (a
  // memoized answer costs nothing, so even copies asked after the budget
  // ran out get it).
  EXPECT_EQ(payloads[repeated.name].size(), 1u)
      << "the repeated question got several different answers";
  EXPECT_EQ(answered[repeated.name].size(), size_t{kRepeatedTasks});
  // (b) Each alias group: one payload, and every spelling answered.
  for (const AliasGroup& group : groups) {
    EXPECT_EQ(payloads[group.name].size(), 1u) << group.name;
    EXPECT_EQ(answered[group.name].size(), 2 * 3 * group.spellings.size())
        << group.name;
  }

  // The spend the server can claim on the wire: every distinct payload of a
  // canonical question is (at best for the server) an independent draw at
  // that question's ε, so by composition it has learned at most
  //   Σ over questions of ε · (distinct payloads received);
  // identical payloads of one question are one draw (what the memo sends).
  int64_t wire_nanos = 0;
  int flood_answered = 0;
  for (const auto& [name, distinct] : payloads) {
    wire_nanos += epsilon[name] * static_cast<int64_t>(distinct.size());
    if (name.rfind("flood ", 0) == 0) ++flood_answered;
  }
  const StateFileSpend final_spend = ParseStateFileSpend(agent.ReadStateFile());
  std::printf(
      "hostile server: %zu reports received for %d tasks issued; "
      "%d of %d flood tasks answered; spend on the wire %.9f eps, "
      "agent's lifetime line %.9f eps; state file %lld bytes\n",
      received.size(), static_cast<int>(classes_.size()), flood_answered,
      kFloodTasks, static_cast<double>(wire_nanos) / kNanos,
      static_cast<double>(final_spend.lifetime_nanos.value_or(-1)) / kNanos,
      static_cast<long long>(agent.StateFileBytes()));

  EXPECT_LE(wire_nanos, kDefaultPeriodCapNanos);
  EXPECT_LE(wire_nanos, kDefaultLifetimeCapNanos);
  ASSERT_TRUE(final_spend.lifetime_nanos.has_value())
      << "no `lifetime` line in the state file:\n"
      << agent.ReadStateFile().substr(0, 2000);
  EXPECT_LE(*final_spend.lifetime_nanos, kDefaultPeriodCapNanos);
  EXPECT_LE(*final_spend.lifetime_nanos, kDefaultLifetimeCapNanos);
  EXPECT_LE(final_spend.window_sum_nanos, kDefaultPeriodCapNanos);
  // The agent's ledger accounts for exactly what left it: no report escaped
  // uncharged, and nothing was charged that the server did not get.
  EXPECT_EQ(*final_spend.lifetime_nanos, wire_nanos);
  EXPECT_LE(agent.StateFileBytes(), kDefaultMaxStateBytes);

  // The ledger poll by poll: after the first cycle exactly the repeated
  // question and one answer per alias group were charged (a second charge
  // for any spelling would show here, even if two fresh payloads happened
  // to coincide); never above the caps or the state size cap.
  std::lock_guard lock(snapshots_mutex);
  ASSERT_GT(snapshots.size(), 1u);
  EXPECT_EQ(snapshots[1].poll, 1);
  EXPECT_EQ(
      snapshots[1].spend.lifetime_nanos,
      kRepeatedEpsilon + static_cast<int64_t>(groups.size()) * kAliasEpsilon);
  int64_t previous = 0;
  for (const Snapshot& snapshot : snapshots) {
    const int64_t lifetime = snapshot.spend.lifetime_nanos.value_or(0);
    EXPECT_GE(lifetime, previous) << "poll " << snapshot.poll;
    EXPECT_LE(lifetime, kDefaultPeriodCapNanos) << "poll " << snapshot.poll;
    EXPECT_LE(snapshot.spend.window_sum_nanos, kDefaultPeriodCapNanos)
        << "poll " << snapshot.poll;
    EXPECT_LE(snapshot.state_bytes, kDefaultMaxStateBytes)
        << "poll " << snapshot.poll;
    previous = lifetime;
  }
}

}  // namespace
}  // namespace ldp::testing

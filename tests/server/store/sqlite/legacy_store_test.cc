// A database written by the server before storage.proto opens with today's
// code: schema migration 3 rewrites its payloads and plans (legacy_codec.h
// says why), every row then decodes to exactly what the old code stored,
// and the studies' estimates are exactly those the old server gave.
//
// testdata/legacy_v2.db was made by an ldp-server of that older format
// (payload format versions 1/2, plan version 2, SQLite schema 2) from four
// `ldp-loadtest --agents=200` runs, one study each:
//   1. --seed=1 (16 items): histogram by subset selection, mean by the
//      hybrid mechanism;
//   2. --seed=2 --domain=4: histogram by GRR (items), mean (hybrid);
//   3. --seed=3 --workload=prefix: an optimized matrix strategy (items in
//      workload reports);
//   4. --seed=4 --workload=histogram --strategy=identity: identity with OUE
//      (16-bit vectors, with their length: payload version 2).
// testdata/legacy_v2_estimates.csv holds what those runs read back (their
// estimates.csv, %.17g, so exact).
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/base/clock.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/legacy_codec.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/store/storage_codec.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

namespace fs = std::filesystem;

const fs::path kTestdata =
    fs::path(LDP_SOURCE_DIR) / "tests/server/store/sqlite/testdata";

// The fixture copied into a fresh directory (the test never writes the
// committed file).
std::string CopyFixture() {
  const fs::path dir =
      fs::path(::testing::TempDir()) /
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(kTestdata / "legacy_v2.db", dir / "ldp.db");
  return (dir / "ldp.db").string();
}

struct Rows {
  int64_t user_version = 0;
  std::map<int64_t, std::string> plans;     // by round_id
  std::map<int64_t, std::string> payloads;  // by task_id
};

// The raw rows, read with SQLite alone.
Rows ReadRows(const std::string& path) {
  Rows rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  const auto each = [db](const char* sql, auto&& row) {
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW) row(stmt);
    sqlite3_finalize(stmt);
  };
  const auto blob = [](sqlite3_stmt* stmt, int col) {
    return std::string(static_cast<const char*>(sqlite3_column_blob(stmt, col)),
                       sqlite3_column_bytes(stmt, col));
  };
  each("PRAGMA user_version", [&](sqlite3_stmt* s) {
    rows.user_version = sqlite3_column_int64(s, 0);
  });
  each("SELECT round_id, plan FROM rounds", [&](sqlite3_stmt* s) {
    rows.plans[sqlite3_column_int64(s, 0)] = blob(s, 1);
  });
  each("SELECT task_id, payload FROM reports", [&](sqlite3_stmt* s) {
    rows.payloads[sqlite3_column_int64(s, 0)] = blob(s, 1);
  });
  sqlite3_close(db);
  return rows;
}

// Which alternatives the fixture's payloads hold, e.g. "subset", "workload
// bits 16".
std::string Kind(const ReportPayload& payload) {
  if (std::holds_alternative<ScalarReport>(payload)) return "scalar";
  const auto frequency = [](const FrequencyReport& r) -> std::string {
    if (std::holds_alternative<ItemReport>(r)) return "item";
    if (const auto* bits = std::get_if<BitVectorReport>(&r)) {
      return "bits " + std::to_string(bits->num_bits);
    }
    if (std::holds_alternative<SubsetReport>(r)) return "subset";
    if (std::holds_alternative<HashedReport>(r)) return "hashed";
    return "sketch";
  };
  if (const auto* w = std::get_if<WorkloadReport>(&payload)) {
    return "workload " + frequency(w->inner);
  }
  return frequency(std::get<FrequencyReport>(payload));
}

TEST(LegacyStore, MigrationRewritesEveryRowToWhatTheOldCodeStored) {
  const std::string path = CopyFixture();
  const Rows before = ReadRows(path);
  ASSERT_EQ(before.user_version, 2);
  ASSERT_EQ(before.plans.size(), 4u);
  ASSERT_EQ(before.payloads.size(), 800u);
  std::map<int64_t, PlanDecisions> plans;
  for (const auto& [round_id, bytes] : before.plans) {
    absl::StatusOr<PlanDecisions> plan = DecodeLegacyPlan(bytes);
    ASSERT_OK(plan);
    EXPECT_EQ(DecodePlan(bytes).status().code(),
              absl::StatusCode::kInvalidArgument);
    plans[round_id] = *std::move(plan);
  }
  std::map<int64_t, ReportPayload> payloads;
  std::map<std::string, int> kinds;
  for (const auto& [task_id, bytes] : before.payloads) {
    absl::StatusOr<ReportPayload> payload = DecodeLegacyPayload(bytes);
    ASSERT_OK(payload);
    ++kinds[Kind(*payload)];
    payloads[task_id] = *std::move(payload);
  }
  const std::map<std::string, int> expected_kinds = {{"subset", 99},
                                                     {"scalar", 201},
                                                     {"item", 100},
                                                     {"workload item", 200},
                                                     {"workload bits 16", 200}};
  EXPECT_EQ(kinds, expected_kinds);

  {
    auto store = SqliteStore::Open({.path = path});
    ASSERT_OK(store);
  }
  const Rows after = ReadRows(path);
  EXPECT_EQ(after.user_version, 5);  // every migration applied
  ASSERT_EQ(after.plans.size(), plans.size());
  for (const auto& [round_id, bytes] : after.plans) {
    absl::StatusOr<PlanDecisions> plan = DecodePlan(bytes);
    ASSERT_OK(plan);
    EXPECT_EQ(bytes, EncodePlan(plans.at(round_id))) << round_id;
    EXPECT_EQ(plan->questions.size(), plans.at(round_id).questions.size());
  }
  ASSERT_EQ(after.payloads.size(), payloads.size());
  for (const auto& [task_id, bytes] : after.payloads) {
    absl::StatusOr<ReportPayload> payload = DecodePayload(bytes);
    ASSERT_OK(payload);
    EXPECT_TRUE(*payload == payloads.at(task_id)) << task_id;
  }

  // Opening again finds the schema current and changes nothing.
  {
    auto store = SqliteStore::Open({.path = path});
    ASSERT_OK(store);
  }
  const Rows again = ReadRows(path);
  EXPECT_EQ(again.user_version, 5);
  EXPECT_EQ(again.plans, after.plans);
  EXPECT_EQ(again.payloads, after.payloads);
}

// The migration reads and rewrites in chunks of 4096 rows: more than that,
// here six copies of the fixture's reports under other task ids, all move
// to the current format.
TEST(LegacyStore, MigrationRewritesMoreRowsThanOneChunk) {
  const std::string path = CopyFixture();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "WITH RECURSIVE copy(k) AS (SELECT 1 UNION ALL "
                           "SELECT k + 1 FROM copy WHERE k < 5) "
                           "INSERT INTO reports SELECT task_id + k * "
                           "1000000000000000, round_id, agent_id, report_id, "
                           "payload, received_at FROM reports, copy",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  const Rows before = ReadRows(path);
  ASSERT_EQ(before.payloads.size(), 4800u);
  {
    auto store = SqliteStore::Open({.path = path});
    ASSERT_OK(store);
  }
  const Rows after = ReadRows(path);
  ASSERT_EQ(after.payloads.size(), before.payloads.size());
  for (const auto& [task_id, bytes] : after.payloads) {
    absl::StatusOr<ReportPayload> legacy =
        DecodeLegacyPayload(before.payloads.at(task_id));
    ASSERT_OK(legacy);
    EXPECT_EQ(bytes, EncodePayload(*legacy)) << task_id;
  }
}

// The time the old server answered at, while the fixture's rounds were
// open.
class FixtureClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::FromUnixSeconds(1795667400); }
};

struct Expected {
  double estimate = 0;
  double standard_error = 0;
  double lower = 0;
  double upper = 0;
};

// legacy_v2_estimates.csv by study, question and index.
std::map<std::tuple<uint64_t, std::string, size_t>, Expected> ReadExpected() {
  std::map<std::tuple<uint64_t, std::string, size_t>, Expected> expected;
  std::ifstream in(kTestdata / "legacy_v2_estimates.csv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.starts_with("study,")) continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');)
      f.push_back(field);
    EXPECT_EQ(f.size(), 7u) << line;
    if (f.size() != 7) continue;
    expected[{std::stoull(f[0]), f[1], std::stoul(f[2])}] = {
        std::strtod(f[3].c_str(), nullptr), std::strtod(f[4].c_str(), nullptr),
        std::strtod(f[5].c_str(), nullptr), std::strtod(f[6].c_str(), nullptr)};
  }
  return expected;
}

TEST(LegacyStore, EstimatesAreThoseTheOldServerGave) {
  const auto expected = ReadExpected();
  ASSERT_EQ(expected.size(), 54u);
  const std::string path = CopyFixture();
  auto store = SqliteStore::Open({.path = path});
  ASSERT_OK(store);
  const FixtureClock clock;
  auto aggregator = Aggregator::Create(
      {.clock = &clock, .analyst_token = "legacy-store-test-analyst"},
      *std::move(store));
  ASSERT_OK(aggregator) << aggregator.status();
  size_t compared = 0;
  for (uint64_t study = 1; study <= 4; ++study) {
    absl::StatusOr<RoundEstimates> round = (*aggregator)->GetEstimates(study);
    ASSERT_OK(round);
    EXPECT_EQ(round->state, RoundState::kOpen);
    for (const QuestionEstimate& q : round->questions) {
      // `tolerance` = 0: bit for bit. Workload answers go through OpenBLAS,
      // which picks its kernel (and so its summation order) by the CPU it
      // runs on: on an AVX-512 Xeon they came out up to 1.1e-13 from those
      // the AMD EPYC that wrote the expected values computed, and a
      // standard error that is zero up to round-off came out 1e-10 against
      // 1.05e-9. An absolute 1e-8 is still far below what one changed report
      // moves an answer by (each is a mean over its study's 200 agents).
      const auto check = [&](size_t i, double estimate, double se,
                             double tolerance = 0) {
        const auto it = expected.find({study, q.question_id, i});
        ASSERT_NE(it, expected.end())
            << study << " " << q.question_id << " " << i;
        const Expected& e = it->second;
        EXPECT_NEAR(estimate, e.estimate, tolerance)
            << q.question_id << " " << i;
        EXPECT_NEAR(se, e.standard_error, tolerance)
            << q.question_id << " " << i;
        ++compared;
      };
      if (const auto* s = std::get_if<ScalarEstimate>(&q.estimate)) {
        check(0, s->value, s->standard_error);
        const Expected& e = expected.at({study, q.question_id, 0});
        EXPECT_EQ(s->interval.lower, e.lower);
        EXPECT_EQ(s->interval.upper, e.upper);
      } else if (const auto* h = std::get_if<HistogramEstimate>(&q.estimate)) {
        for (size_t i = 0; i < h->frequencies.size(); ++i) {
          check(i, h->frequencies[i],
                std::sqrt(std::max(0.0, h->variances[i])));
        }
      } else {
        const auto& w = std::get<WorkloadAnswer>(q.estimate);
        for (size_t i = 0; i < w.answers.size(); ++i) {
          check(i, w.answers[i], w.standard_errors[i], 1e-8);
        }
      }
    }
  }
  EXPECT_EQ(compared, expected.size());
}

}  // namespace
}  // namespace ldp

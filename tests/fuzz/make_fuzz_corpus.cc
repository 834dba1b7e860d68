// Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from
// valid messages, so the fuzzers start from inputs that reach deep code:
//   build-fuzz/tests/fuzz/make_fuzz_corpus tests/fuzz
// Run from the source root; it reads tests/fuzz/seeds/*.textproto. The
// output is deterministic (seeded generator), so rerunning changes nothing.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/tasks/task_id.h"
#include "google/protobuf/text_format.h"
#include "planning/planner.h"
#include "proto/convert/query_convert.h"
#include "proto/convert/report_convert.h"
#include "proto/convert/study_convert.h"
#include "proto/convert/task_convert.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "proto/ldp/v1/relay_service.pb.h"
#include "server/store/storage_codec.h"
#include "tests/fuzz/fuzz_fixtures.h"
#include "tests/fuzz/relay_fixture.h"

namespace ldp::fuzz {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& dir, const std::string& name,
           const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void Reports(const fs::path& corpus, std::mt19937_64& gen) {
  const auto& mechanisms = Mechanisms();
  std::string payload_run;
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    const ReportPayload payload = mechanisms[i]->Randomize(Records()[0], gen);
    TaskReport report{.task_id = 1, .payload = payload};
    report.report_id[0] = static_cast<uint8_t>(i);
    v1::Report proto;
    ReportToProto(report, /*agent_id=*/7, &proto);
    const std::string stored = EncodePayload(payload);
    Write(corpus / "report_validation_fuzzer", "wire_" + std::to_string(i),
          proto.SerializeAsString());
    Write(corpus / "report_validation_fuzzer", "stored_" + std::to_string(i),
          stored);
    if (stored.size() < 256)
      payload_run += static_cast<char>(stored.size()) + stored;
  }
  Write(corpus / "estimator_decoding_fuzzer", "payload_run", payload_run);
}

// gRPC's framing of one stream message: flag byte, big-endian length.
std::string Frame(const std::string& message) {
  std::string frame(5, '\0');
  for (int i = 0; i < 4; ++i) {
    frame[1 + i] = static_cast<char>((message.size() >> (8 * (3 - i))) & 0xff);
  }
  return frame + message;
}

// Upload streams: every mechanism's report in batches of up to three, one
// batch naming another agent, and a stream ending in garbage.
void Uploads(const fs::path& corpus, std::mt19937_64& gen) {
  const auto& mechanisms = Mechanisms();
  std::string stream;
  v1::UploadReportsRequest batch;
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    TaskReport report{.task_id = i + 1,
                      .payload = mechanisms[i]->Randomize(Records()[0], gen)};
    report.report_id[0] = static_cast<uint8_t>(i);
    ReportToProto(report, /*agent_id=*/i == 1 ? 8 : 7, batch.add_reports());
    if (batch.reports_size() == 3 || i + 1 == mechanisms.size()) {
      Write(corpus / "upload_stream_fuzzer", "batch_" + std::to_string(i),
            batch.SerializeAsString());
      stream += Frame(batch.SerializeAsString());
      batch.Clear();
    }
  }
  Write(corpus / "upload_stream_fuzzer", "stream", stream);
  Write(corpus / "upload_stream_fuzzer", "stream_then_garbage",
        stream + Frame("\xff\xff\xff not protobuf"));
}

void Queries(const fs::path& corpus) {
  using namespace expr;  // NOLINT: builders read as the expressions they make
  struct Seed {
    const char* name;
    QueryNode root;
    QueryRange range;
  };
  const std::vector<Seed> seeds = {
      {"field", Field("income"), {0, 200}},
      {"smoking_cigarettes",
       IfThenElse(
           And(Field("smoker"), CategoryIs("region", "coast")),
           Clamp(Div(Field("income"), Sub(Field("age"), Constant(17))), 0, 10),
           Constant(0)),
       {0, 10}},
      {"parity", MaskedParity("bits", std::vector<bool>(16, true)), {0, 1}},
      {"bit_compare",
       Ge(Add(BitAt("bits", 3), Neg(Abs(Field("age")))), Constant(-50)),
       {0, 1}},
      {"logistic",
       Logistic(Mul(Constant(0.05),
                    Sub(Max(Field("income"), Min(Field("age"), Constant(30))),
                        Constant(60)))),
       {0, 1}},
      {"not_or",
       Or(Not(Lt(Field("age"), Constant(30))),
          Ne(Field("region"), Constant(2))),
       {0, 1}},
  };
  for (const Seed& seed : seeds) {
    auto query = Query::Create(seed.root, seed.range, Schema());
    if (!query.ok()) {
      std::fprintf(stderr, "seed query %s: %s\n", seed.name,
                   std::string(query.status().message()).c_str());
      std::exit(1);
    }
    v1::Query proto;
    ToProto(*query, &proto);
    Write(corpus / "query_evaluation_fuzzer", seed.name,
          proto.SerializeAsString());
  }
}

void Studies(const fs::path& seeds, const fs::path& corpus) {
  for (const auto& entry : fs::directory_iterator(seeds)) {
    if (entry.path().extension() != ".textproto") continue;
    const std::string text = Read(entry.path());
    v1::StudySpec proto;
    if (!google::protobuf::TextFormat::ParseFromString(text, &proto)) {
      std::fprintf(stderr, "seed %s does not parse\n", entry.path().c_str());
      std::exit(1);
    }
    const std::string stem = entry.path().stem().string();
    Write(corpus / "study_parsing_fuzzer", stem + ".textproto", text);
    Write(corpus / "study_parsing_fuzzer", stem + ".binpb",
          proto.SerializeAsString());
    Write(corpus / "study_convert_fuzzer", stem + ".binpb",
          proto.SerializeAsString());
  }
  auto plan = RoundPlan::Create(Study());
  if (!plan.ok()) {
    std::fprintf(stderr, "fixture study does not plan\n");
    std::exit(1);
  }
  Write(corpus / "estimator_decoding_fuzzer", "plan",
        EncodePlan(plan->decisions()));
}

// agent_c_fuzzer's input: flags, 2-byte length, poll, acks.
std::string AgentInput(uint8_t flags, const std::string& poll,
                       const std::string& acks) {
  std::string input(1, static_cast<char>(flags));
  input += static_cast<char>((poll.size() >> 8) & 0xff);
  input += static_cast<char>(poll.size() & 0xff);
  return input + poll + acks;
}

// Polls of one task per fixture mechanism (each its own study, charging
// its randomizer's ε, so the agent answers), a poll of all of them (over
// the caps), and acks: derived ones (flag 4) of every code, and raw ones.
void AgentPolls(const fs::path& corpus) {
  const fs::path dir = corpus / "agent_c_fuzzer";
  const auto& mechanisms = Mechanisms();
  v1::GetTasksResponse all;
  for (size_t i = 0; i < mechanisms.size(); ++i) {
    Task task = mechanisms[i]->task();
    task.study_id = 100 + i;
    task.round_id = 1;
    task.task_id = 1000 + i;
    v1::GetTasksResponse one;
    v1::Task* wire = one.add_tasks();
    TaskToProto(task, Schema(), wire);
    wire->set_epsilon_nanos(wire->randomizer().epsilon_nanos());
    // The matrix strategies' tasks are 32 KiB: they would raise the
    // fuzzer's -max_len (and cost) for every input.
    if (wire->ByteSizeLong() > 4096) continue;
    *all.add_tasks() = *wire;
    // Acks for the pending reports (the fixture's and this one): OK and
    // UNAVAILABLE (transient), or INVALID_ARGUMENT and a dropped id.
    const std::string codes =
        i % 2 == 0 ? std::string("\x00\x0e", 2) : std::string("\x03\x80", 2);
    Write(dir, "task_" + std::to_string(i),
          AgentInput(i % 3 == 0 ? 4 : 4 | 8, one.SerializeAsString(), codes));
  }
  v1::UploadReportsResponse raw;
  raw.add_acks()->set_report_id(std::string(16, '\x01'));
  Write(dir, "all_tasks_raw_acks",
        AgentInput(0, all.SerializeAsString(), raw.SerializeAsString()));
  Write(dir, "failing_write",
        AgentInput(1 | 4, all.SerializeAsString(), std::string(1, '\0')));
  Write(dir, "failing_sync", AgentInput(2 | 4, all.SerializeAsString(), ""));
  Write(dir, "garbage",
        AgentInput(4, "not a GetTasksResponse", std::string("\x05\x00", 2)));
}

// Relay batches: every fixture agent's reports (valid for its tasks) under
// its token's placeholder, one under another agent's token, one with a
// near-miss token; and a GetTasksBatch of every agent.
void RelayBatches(const fs::path& corpus, std::mt19937_64& gen) {
  const fs::path dir = corpus / "relay_batch_fuzzer";
  RelayFixture fixture;
  v1::RelayUploadRequest uploads;
  v1::GetTasksBatchRequest polls;
  for (int i = 0; i < kRelayAgents; ++i) {
    const std::string placeholder = "@" + std::to_string(i);
    v1::AgentTasksRequest* poll = polls.add_agents();
    poll->set_bearer_token(placeholder);
    poll->set_max_tasks(i);
    const uint64_t agent = static_cast<uint64_t>(i + 1);
    auto tasks = fixture.aggregator().GetTasks(agent);
    if (!tasks.ok()) std::exit(1);
    for (const TaskAssignment& assignment : *tasks) {
      // Round 1 stands for the fuzzer's current round (relay_fixture.h).
      if (UnpackTaskId(assignment.task_id).round_id != 1) continue;
      auto mechanism = TaskMechanism::Create(assignment.MakeTask());
      if (!mechanism.ok()) std::exit(1);
      TaskReport report{.task_id = assignment.task_id,
                        .payload = (*mechanism)->Randomize(Records()[0], gen)};
      report.report_id[0] = static_cast<uint8_t>(i + 1);
      report.report_id[1] = static_cast<uint8_t>(uploads.reports_size());
      v1::RelayedReport* item = uploads.add_reports();
      item->set_bearer_token(placeholder);
      ReportToProto(report, agent, item->mutable_report());
    }
  }
  Write(dir, "upload_every_agent", uploads.SerializeAsString());
  Write(dir, "poll_every_agent", polls.SerializeAsString());
  v1::RelayUploadRequest wrong = uploads;
  wrong.mutable_reports(0)->set_bearer_token("@1");
  wrong.mutable_reports(1)->set_bearer_token("@1x");
  Write(dir, "upload_wrong_tokens", wrong.SerializeAsString());
  v1::RelayUploadRequest twice = uploads;
  *twice.add_reports() = uploads.reports(0);
  Write(dir, "upload_twice", twice.SerializeAsString());
}

}  // namespace
}  // namespace ldp::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_corpus <tests/fuzz directory>\n");
    return 2;
  }
  const std::filesystem::path root = argv[1];
  std::mt19937_64 gen(20240607);
  ldp::fuzz::Reports(root / "corpus", gen);
  ldp::fuzz::Uploads(root / "corpus", gen);
  ldp::fuzz::Queries(root / "corpus");
  ldp::fuzz::Studies(root / "seeds", root / "corpus");
  ldp::fuzz::AgentPolls(root / "corpus");
  ldp::fuzz::RelayBatches(root / "corpus", gen);
  return 0;
}

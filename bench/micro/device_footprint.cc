// The agent's cost on a device (bench/reports/DEVICE.md): wall and CPU
// time of one agent answering one task through the C ABI
// (client/agent_c/ldp_agent.h), from opening its saved state to the upload
// bytes in hand, and the process's peak memory. Two tasks: a 1024-item OUE
// histogram and a workload task (the CDF of a 1024-value field through a 4-ary
// hierarchical strategy).
//
// Each trial is one device session on a fresh state (in memory here,
// through the app's storage callbacks): open the agent, answer one poll of
// one task, take the upload request, settle it, close. Every task is a new
// question, so every trial randomizes and saves afresh. CPU time comes from
// getrusage and includes both saves (after the answer and after the
// settlement: serialize, write, "sync", here a copy). A device whose state
// holds a year of memos parses more at each open; that is not measured.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "bench/studies/experiment_common.h"
#include "client/agent_c/ldp_agent.h"
#include "google/protobuf/text_format.h"
#include "proto/ldp/v1/agent_service.pb.h"

ABSL_FLAG(int, trials, 2000, "Sessions per task kind.");

namespace ldp {
namespace {

constexpr int64_t kTaskNanos = 1'000'000'000;  // ε = 1 per task

struct MemoryBlob {
  std::string saved, written;
  static int Load(void* c, const uint8_t** data, size_t* size) {
    auto* m = static_cast<MemoryBlob*>(c);
    *data = reinterpret_cast<const uint8_t*>(m->saved.data());
    *size = m->saved.size();
    return 0;
  }
  static int Write(void* c, const uint8_t* data, size_t size) {
    static_cast<MemoryBlob*>(c)->written.assign(
        reinterpret_cast<const char*>(data), size);
    return 0;
  }
  static int Sync(void* c) {
    auto* m = static_cast<MemoryBlob*>(c);
    m->saved = m->written;
    return 0;
  }
};

// One task of study `study`: "oue" (1024 items) or "workload".
std::string PollBytes(const std::string& kind, uint64_t study) {
  const std::string randomizer =
      kind == "oue" ? "oue {}" : "strategy { kind: HIERARCHICAL branching: 4 }";
  const std::string text = absl::StrCat(
      "study_id: ", study, " round_id: 1 task_id: ", study,
      " epsilon_nanos: ", kTaskNanos,
      " schema { fields { name: \"x\" int_field { lower: 0 upper: 1023 } } }"
      " encoding { field { field: \"x\" } }"
      " randomizer { ",
      randomizer, " epsilon_nanos: ", kTaskNanos, " domain_size: 1024 }");
  v1::GetTasksResponse response;
  if (!google::protobuf::TextFormat::ParseFromString(text,
                                                     response.add_tasks())) {
    std::fprintf(stderr, "bad task text: %s\n", text.c_str());
  }
  return response.SerializeAsString();
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// One session; false (with a message) if any call fails.
bool Session(MemoryBlob& blob, const std::string& poll, size_t& upload_bytes) {
  ldp_agent_options options{};
  options.record_json = R"({"x": 417})";
  options.max_epsilon_per_study_nanos = kTaskNanos;
  const ldp_storage storage{.context = &blob,
                            .load = &MemoryBlob::Load,
                            .write = &MemoryBlob::Write,
                            .sync = &MemoryBlob::Sync};
  ldp_status status{};
  ldp_agent* agent = nullptr;
  int answered = 0;
  ldp_buffer upload{};
  const bool ok =
      ldp_agent_open(&options, &storage, &agent, &status) == LDP_OK &&
      ldp_agent_answer_poll(
          agent, reinterpret_cast<const uint8_t*>(poll.data()), poll.size(),
          &answered, nullptr, &status) == LDP_OK &&
      answered == 1 &&
      ldp_agent_next_upload(agent, 1, &upload, &status) == LDP_OK;
  if (!ok) std::fprintf(stderr, "session failed: %s\n", status.message);
  // Settle it as the server would, so that the state stays small.
  v1::UploadReportsRequest sent;
  v1::UploadReportsResponse acks;
  if (ok && sent.ParseFromArray(upload.data, static_cast<int>(upload.size))) {
    for (const v1::Report& r : sent.reports()) {
      acks.add_acks()->set_report_id(r.report_id());
    }
    const std::string ack_bytes = acks.SerializeAsString();
    ldp_agent_record_upload(agent, upload.data, upload.size,
                            reinterpret_cast<const uint8_t*>(ack_bytes.data()),
                            ack_bytes.size(), nullptr, nullptr, &status);
  }
  upload_bytes = upload.size;
  ldp_buffer_free(&upload);
  ldp_agent_close(agent);
  return ok;
}

int Run() {
  const int trials = absl::GetFlag(FLAGS_trials);
  std::printf("peak RSS before any agent: %ld KiB\n", PeakRssKib());
  std::printf(
      "\n| task | sessions | wall µs/session | CPU µs/session | "
      "upload bytes | state bytes | peak RSS KiB |\n"
      "|---|---|---|---|---|---|---|\n");
  uint64_t study = 1;
  for (const std::string kind : {"oue", "workload"}) {
    std::vector<std::string> polls;
    for (int t = 0; t < trials; ++t) polls.push_back(PollBytes(kind, study++));
    size_t upload_bytes = 0, state_bytes = 0;
    const double cpu0 = CpuSeconds();
    const auto wall0 = std::chrono::steady_clock::now();
    for (const std::string& poll : polls) {
      MemoryBlob blob;
      if (!Session(blob, poll, upload_bytes)) return 1;
      state_bytes = blob.saved.size();
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
            .count();
    const double cpu = CpuSeconds() - cpu0;
    std::printf("| %s | %d | %.1f | %.1f | %zu | %zu | %ld |\n", kind.c_str(),
                trials, wall / trials * 1e6, cpu / trials * 1e6, upload_bytes,
                state_bytes, PeakRssKib());
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Measures one device agent's session through the C ABI: open, answer "
      "one task (1024-item OUE, or a 1024-value CDF workload), upload, "
      "settle, close; prints wall and CPU time per session and peak RSS.",
      ldp::Run);
}

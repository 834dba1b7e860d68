// The reports one seeded agent sends for a fixed set of tasks, one mechanism
// of each family, as hex: deploy/arm64.sh runs it natively and under qemu
// for the arm64 build, and the two outputs must be identical (the core's
// report bytes for a seeded generator do not depend on the CPU).
//
// Each task is answered by a fresh agent on a fresh state with the seeded
// ChaCha20 stream (insecure_simulation: a test, never a person's record),
// through the C ABI, and the UploadReportsRequest it would send is printed.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "client/agent_c/ldp_agent.h"
#include "google/protobuf/text_format.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace {

constexpr int64_t kNanos = 1'000'000'000;

struct Blob {
  std::string saved, written;
};

int Load(void* c, const uint8_t** data, size_t* size) {
  auto* b = static_cast<Blob*>(c);
  *data = reinterpret_cast<const uint8_t*>(b->saved.data());
  *size = b->saved.size();
  return 0;
}
int Write(void* c, const uint8_t* data, size_t size) {
  static_cast<Blob*>(c)->written.assign(reinterpret_cast<const char*>(data),
                                        size);
  return 0;
}
int Sync(void* c) {
  auto* b = static_cast<Blob*>(c);
  b->saved = b->written;
  return 0;
}

// (name, the task's question and randomizer in text format).
std::vector<std::pair<std::string, std::string>> Tasks() {
  const std::string items = "encoding { field { field: \"x\" } }";
  const std::string mean =
      "query { root { field: \"x\" } output_range { lower: 0 upper: 1023 } }";
  return {
      {"grr", items + " randomizer { grr {} domain_size: 1024 }"},
      {"oue", items + " randomizer { oue {} domain_size: 1024 }"},
      {"olh", items + " randomizer { olh {} domain_size: 1024 }"},
      {"hadamard",
       items + " randomizer { hadamard_response {} domain_size: 1024 }"},
      {"duchi", mean + " randomizer { duchi {} }"},
      {"piecewise", mean + " randomizer { piecewise {} }"},
      {"hybrid", mean + " randomizer { hybrid {} }"},
      {"tree", items + " randomizer { strategy { kind: HIERARCHICAL "
                       "branching: 4 } domain_size: 1024 }"},
  };
}

// The upload bytes for one task, or an error line.
std::string Answer(const std::string& question, uint64_t seed) {
  const std::string text = absl::StrCat(
      "study_id: 1 round_id: 1 task_id: 1 epsilon_nanos: ", kNanos,
      " schema { fields { name: \"x\" int_field { lower: 0 upper: 1023 } } } ",
      question);
  ldp::v1::GetTasksResponse poll;
  ldp::v1::Task* task = poll.add_tasks();
  if (!google::protobuf::TextFormat::ParseFromString(text, task)) {
    return "bad task text";
  }
  task->mutable_randomizer()->set_epsilon_nanos(kNanos);
  const std::string bytes = poll.SerializeAsString();
  Blob blob;
  const ldp_storage storage{
      .context = &blob, .load = Load, .write = Write, .sync = Sync};
  ldp_agent_options options{};
  options.record_json = R"({"x": 417})";
  options.insecure_simulation = 1;
  options.simulation_seed = seed;
  ldp_status status{};
  ldp_agent* agent = nullptr;
  int answered = 0;
  ldp_buffer upload{};
  std::string out;
  if (ldp_agent_open(&options, &storage, &agent, &status) != LDP_OK ||
      ldp_agent_answer_poll(
          agent, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
          &answered, nullptr, &status) != LDP_OK ||
      answered != 1 ||
      ldp_agent_next_upload(agent, 7, &upload, &status) != LDP_OK) {
    out = absl::StrCat("error: ", status.message);
  } else {
    out = absl::BytesToHexString(absl::string_view(
        reinterpret_cast<const char*>(upload.data), upload.size));
  }
  ldp_buffer_free(&upload);
  ldp_agent_close(agent);
  return out;
}

}  // namespace

int main() {
  int errors = 0;
  for (const auto& [name, question] : Tasks()) {
    for (uint64_t seed : {1, 2, 3}) {
      const std::string line = Answer(question, seed);
      errors += line.rfind("error", 0) == 0 || line == "bad task text";
      std::printf("%s seed %llu: %s\n", name.c_str(),
                  static_cast<unsigned long long>(seed), line.c_str());
    }
  }
  return errors == 0 ? 0 : 1;
}

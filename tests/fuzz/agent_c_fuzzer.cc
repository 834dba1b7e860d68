// libFuzzer target: what a hostile server (or a broken app) hands the C
// library (client/agent_c/ldp_agent.h), through its public API only.
//
// The agent is opened, with the app's storage callbacks in memory, from
// the saved state of an agent that already answered one task of study 1
// (so that a report is pending). The input is a flags byte, a 2-byte
// big-endian length, that many bytes of GetTasksResponse for
// ldp_agent_answer_poll, and the rest as the acks for ldp_agent_record_upload
// (an UploadReportsResponse as is, or, by a flag, acks built for the very
// request ldp_agent_next_upload gave, their codes and count from the
// bytes). Flags also make the storage's write or sync fail during the poll
// or the settlement, turn on shuffled studies (then the sealed reports are
// settled from the same bytes), and build an enroll request from the two
// byte strings. Properties: nothing crashes, and the library writes nothing
// to stdout or stderr; every call returns a documented code, a refusal
// carries a message, and a failed call reports counts of 0; answered +
// refused is the number of tasks of a poll that parses; the caps hold
// whatever the server asks (1 ε per study, 2 ε per day: the defaults); a
// poll that answers nothing, or whose save fails (LDP_UNAVAILABLE), spends
// nothing and leaves the durable state as it was; ldp_agent_record_upload
// settles exactly the acknowledged and permanently refused reports, and
// nothing when it refuses (a request the library did not produce included);
// what is left pending is resent byte for byte; the saved state always
// reopens, with the same spend and the same pending reports; an enroll
// request carries the token, the CSR and a fresh 32-byte request id, or is
// refused for an empty or non-UTF-8 token or CSR.
#include <sanitizer/common_interface_defs.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "client/agent_c/ldp_agent.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

constexpr uint64_t kAgentId = 99;
constexpr int64_t kStudyCapNanos = 1'000'000'000;   // the C library's default
constexpr int64_t kPeriodCapNanos = 2'000'000'000;  // per 86,400 s
constexpr uint8_t kFailWrite = 1, kFailSync = 2, kDerivedAcks = 4,
                  kShuffler = 8, kEnroll = 16, kFailSettle = 32;

// Runs one library call with stdout and stderr pointed at a memfd, and
// checks that nothing was written there. Sanitizer reports keep the real
// stderr (LLVMFuzzerInitialize).
template <typename Call>
int Quiet(Call call) {
  static const int capture = memfd_create("ldp_agent_c_output", 0);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(capture, 1);
  dup2(capture, 2);
  const int code = call();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  const off_t written = lseek(capture, 0, SEEK_END);
  if (written > 0) {
    std::string text(static_cast<size_t>(std::min<off_t>(written, 4096)), 0);
    (void)!pread(capture, text.data(), text.size(), 0);
    std::fprintf(stderr, "the library wrote: %s\n", text.c_str());
    Check(false, "the C library wrote to stdout or stderr");
  }
  return code;
}

// The app's storage: `blob` is durable, a write becomes durable on sync.
struct MemoryStorage {
  std::string blob, written;
  bool fail_write = false, fail_sync = false;

  static int Load(void* c, const uint8_t** data, size_t* size) {
    auto* s = static_cast<MemoryStorage*>(c);
    *data = reinterpret_cast<const uint8_t*>(s->blob.data());
    *size = s->blob.size();
    return 0;
  }
  static int Write(void* c, const uint8_t* data, size_t size) {
    auto* s = static_cast<MemoryStorage*>(c);
    if (s->fail_write) return 1;
    s->written.assign(reinterpret_cast<const char*>(data), size);
    return 0;
  }
  static int Sync(void* c) {
    auto* s = static_cast<MemoryStorage*>(c);
    if (s->fail_sync) return 1;
    s->blob = s->written;
    return 0;
  }
  ldp_storage callbacks() {
    return {.context = this, .load = &Load, .write = &Write, .sync = &Sync};
  }
};

ldp_agent_options Options() {
  ldp_agent_options options{};
  options.record_json =
      R"({"color": "c1", "age": 40, "smoker": true, "region": "coast",)"
      R"( "income": 55.5, "bits": "1011001110001111"})";
  options.insecure_simulation = 1;  // repeatable coins: a fuzzer needs them
  options.simulation_seed = 7;
  return options;
}

const uint8_t* Bytes(std::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// The harness's own parsing of fuzzed bytes, without protobuf's messages.
template <typename Message>
bool Parse(std::string_view bytes, Message& message) {
  google::protobuf::LogSilencer quiet;
  return message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// A non-OK status must say why, and a failed call counts nothing.
void CheckRefusal(int code, const ldp_status& status, int yes, int no,
                  const char* what) {
  if (code == LDP_OK) return;
  Check(status.message[0] != '\0', what);
  Check(yes == 0 && no == 0, "a failed call reported counts");
}

ldp_agent* Open(MemoryStorage& storage) {
  const ldp_agent_options options = Options();
  const ldp_storage callbacks = storage.callbacks();
  ldp_agent* agent = nullptr;
  ldp_status status{};
  Check(Quiet([&] {
          return ldp_agent_open(&options, &callbacks, &agent, &status);
        }) == LDP_OK,
        "a saved state does not open");
  return agent;
}

// The saved state of an agent that answered one GRR task of study 1
// (ε = 0.5): the state every input starts from.
const std::string& StartingBlob() {
  static const std::string* blob = [] {
    v1::GetTasksResponse poll;
    Check(google::protobuf::TextFormat::ParseFromString(
              R"pb(tasks {
                     study_id: 1
                     round_id: 1
                     task_id: 1
                     epsilon_nanos: 500000000
                     schema {
                       fields {
                         name: "color"
                         categorical_field { categories: [ "c0", "c1", "c2" ] }
                       }
                     }
                     encoding { field { field: "color" } }
                     randomizer {
                       grr {}
                       epsilon_nanos: 500000000
                       domain_size: 3
                     }
                   })pb",
              &poll),
          "fixture poll does not parse");
    const std::string bytes = poll.SerializeAsString();
    MemoryStorage storage;
    ldp_agent* agent = Open(storage);
    int answered = 0;
    ldp_status status{};
    Check(ldp_agent_answer_poll(agent, Bytes(bytes), bytes.size(), &answered,
                                nullptr, &status) == LDP_OK &&
              answered == 1,
          "fixture task not answered");
    ldp_agent_close(agent);
    return new std::string(storage.blob);
  }();
  return *blob;
}

// What the agent spent in all (study 0) or in one study.
int64_t Spent(ldp_agent* agent, uint64_t study) {
  int64_t total = -1, in_study = -1;
  Check(Quiet([&] {
          return ldp_agent_spent(agent, study, &total, &in_study, nullptr);
        }) == LDP_OK,
        "ldp_agent_spent failed");
  return study == 0 ? total : in_study;
}

std::string TakeBuffer(ldp_buffer& out) {
  std::string bytes(reinterpret_cast<const char*>(out.data), out.size);
  ldp_buffer_free(&out);
  return bytes;
}

std::string NextUpload(ldp_agent* agent) {
  ldp_buffer out{};
  ldp_status status{};
  Check(Quiet([&] {
          return ldp_agent_next_upload(agent, kAgentId, &out, &status);
        }) == LDP_OK,
        "ldp_agent_next_upload failed");
  return TakeBuffer(out);
}

// Acks for `request`'s reports: one per byte of `codes` (so too few, too
// many or exact), each with the report's id unless its byte says to drop
// it, and a google.rpc code from the byte.
std::string DerivedAcks(const v1::UploadReportsRequest& request,
                        std::string_view codes) {
  v1::UploadReportsResponse acks;
  for (size_t i = 0; i < codes.size(); ++i) {
    const auto byte = static_cast<uint8_t>(codes[i]);
    v1::ReportAck* ack = acks.add_acks();
    if (i < static_cast<size_t>(request.reports_size()) && (byte & 0x80) == 0) {
      ack->set_report_id(request.reports(static_cast<int>(i)).report_id());
    }
    ack->set_code(byte % 17);
  }
  return acks.SerializeAsString();
}

void CheckCaps(ldp_agent* agent, std::string_view poll) {
  v1::GetTasksResponse parsed;
  if (Parse(poll, parsed)) {
    for (const v1::Task& task : parsed.tasks()) {
      if (task.study_id() == 0) continue;  // Spent(…, 0) is the total
      Check(Spent(agent, task.study_id()) <= kStudyCapNanos,
            "a study was charged over its cap");
    }
  }
  Check(Spent(agent, 0) <= kPeriodCapNanos, "the period cap was exceeded");
  Check(Spent(agent, 1) <= kStudyCapNanos, "study 1 was charged over its cap");
}

void AnswerPoll(ldp_agent* agent, MemoryStorage& storage, uint8_t flags,
                std::string_view poll) {
  const int64_t before = Spent(agent, 0);
  const std::string durable = storage.blob;
  storage.fail_write = (flags & kFailWrite) != 0;
  storage.fail_sync = (flags & kFailSync) != 0;
  const bool failing = storage.fail_write || storage.fail_sync;
  int answered = -1, refused = -1;
  ldp_status status{};
  const int code = Quiet([&] {
    return ldp_agent_answer_poll(agent, Bytes(poll), poll.size(), &answered,
                                 &refused, &status);
  });
  storage.fail_write = storage.fail_sync = false;
  CheckRefusal(code, status, answered, refused,
               "a refused poll has no message");
  Check(code == LDP_OK || code == LDP_INVALID_ARGUMENT ||
            (failing && code == LDP_UNAVAILABLE),
        "ldp_agent_answer_poll returned an undocumented code");
  if (failing || code != LDP_OK) {
    Check(Spent(agent, 0) == before, "a failed poll spent budget");
    Check(storage.blob == durable, "a failed poll changed the durable state");
  }
  CheckCaps(agent, poll);
  if (code != LDP_OK) return;
  Check(answered >= 0 && refused >= 0, "negative task counts");
  v1::GetTasksResponse parsed;
  if (Parse(poll, parsed)) {
    Check(answered + refused == parsed.tasks_size(),
          "answered + refused is not the number of tasks");
  }
  if (answered == 0) Check(Spent(agent, 0) == before, "refusals spent budget");
}

// ldp_agent_record_upload of `request` (the library's own, or not): a
// documented code; on failure nothing settled; on success exactly the
// acknowledged and permanently refused reports settled, the rest resent as
// they were, in the same order.
void Settle(ldp_agent* agent, MemoryStorage& storage, bool fail,
            std::string_view request, std::string_view response) {
  const std::string before = NextUpload(agent);
  storage.fail_write = fail;
  int accepted = -1, rejected = -1;
  ldp_status status{};
  const int code = Quiet([&] {
    return ldp_agent_record_upload(agent, Bytes(request), request.size(),
                                   Bytes(response), response.size(), &accepted,
                                   &rejected, &status);
  });
  storage.fail_write = false;
  CheckRefusal(code, status, accepted, rejected,
               "a refused upload record has no message");
  Check(code == LDP_OK || code == LDP_INVALID_ARGUMENT ||
            code == LDP_NOT_FOUND || code == LDP_INTERNAL ||
            (fail && code == LDP_UNAVAILABLE),
        "ldp_agent_record_upload returned an undocumented code");
  const std::string after = NextUpload(agent);
  if (code != LDP_OK) {
    Check(after == before, "a refused upload record settled reports");
    return;
  }
  v1::UploadReportsRequest sent, pending, left;
  Check(Parse(request, sent) && Parse(before, pending) && Parse(after, left),
        "a settled request or the next upload does not parse");
  Check(accepted >= 0 && rejected >= 0 &&
            accepted + rejected <= sent.reports_size(),
        "more reports settled than were sent");
  Check(left.reports_size() == pending.reports_size() - accepted - rejected,
        "settled reports are not the acknowledged and refused ones");
  int j = 0;
  for (const v1::Report& r : left.reports()) {
    while (j < pending.reports_size() &&
           pending.reports(j).SerializeAsString() != r.SerializeAsString()) {
      ++j;
    }
    Check(j < pending.reports_size(), "a pending report changed");
    ++j;
  }
}

void RecordUploads(ldp_agent* agent, MemoryStorage& storage, uint8_t flags,
                   std::string_view poll, std::string_view acks) {
  const std::string request = NextUpload(agent);
  if (!request.empty()) {
    v1::UploadReportsRequest sent;
    Check(Parse(request, sent) && sent.reports_size() > 0 &&
              sent.reports_size() <= 1000,
          "ldp_agent_next_upload gave a bad request");
    for (const v1::Report& r : sent.reports()) {
      Check(r.agent_id() == kAgentId, "an upload names another agent");
    }
    const std::string derived =
        (flags & kDerivedAcks) != 0 ? DerivedAcks(sent, acks) : std::string();
    Settle(agent, storage, (flags & kFailSettle) != 0, request,
           (flags & kDerivedAcks) != 0 ? std::string_view(derived) : acks);
    // The same request again: settled already, or pending still.
    Settle(agent, storage, false, request, acks);
  }
  // Bytes the library never produced as the request.
  Settle(agent, storage, false, poll, acks);
}

void RecordShuffled(ldp_agent* agent, std::string_view acks) {
  ldp_buffer out{};
  ldp_status status{};
  Check(Quiet([&] {
          return ldp_agent_next_shuffled_upload(agent, &out, &status);
        }) == LDP_OK,
        "ldp_agent_next_shuffled_upload failed");
  const std::string request = TakeBuffer(out);
  if (request.empty()) return;
  v1::SubmitRequest sent;
  Check(Parse(request, sent), "a shuffled upload does not parse");
  int accepted = -1, rejected = -1;
  const int code = Quiet([&] {
    return ldp_agent_record_shuffled_upload(
        agent, Bytes(request), request.size(), Bytes(acks), acks.size(),
        &accepted, &rejected, &status);
  });
  CheckRefusal(code, status, accepted, rejected,
               "a refused shuffled record has no message");
  Check(code == LDP_OK || code == LDP_INVALID_ARGUMENT ||
            code == LDP_NOT_FOUND || code == LDP_INTERNAL,
        "ldp_agent_record_shuffled_upload returned an undocumented code");
  if (code == LDP_OK) {
    Check(accepted >= 0 && rejected >= 0 &&
              accepted + rejected <= sent.submissions_size(),
          "more sealed reports settled than were sent");
  }
}

bool Utf8(std::string_view s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(
      s.data(), static_cast<int>(s.size()));
}

void EnrollRequest(std::string_view token, std::string_view csr) {
  ldp_buffer out{};
  ldp_status status{};
  const int code = Quiet([&] {
    return ldp_agent_enroll_request(token.data(), token.size(), csr.data(),
                                    csr.size(), &out, &status);
  });
  const std::string bytes = TakeBuffer(out);
  if (code != LDP_OK) {
    Check(code == LDP_INVALID_ARGUMENT && status.message[0] != '\0',
          "a refused enroll request is not INVALID_ARGUMENT with a reason");
    Check(token.empty() || !Utf8(token) || !Utf8(csr),
          "a non-empty UTF-8 token and CSR were refused");
    return;
  }
  v1::EnrollRequest request;
  Check(Parse(bytes, request) && request.enrollment_token() == token &&
            request.csr_pem() == csr && request.request_id().size() == 32,
        "an enroll request lost its token, CSR or request id");
}

void FuzzAgent(uint8_t flags, std::string_view poll, std::string_view acks) {
  MemoryStorage storage{.blob = StartingBlob()};
  ldp_agent* agent = Open(storage);
  ldp_status status{};
  if ((flags & kShuffler) != 0) {
    Check(Quiet([&] {
            return ldp_agent_use_shuffler(agent, kAgentId, &status);
          }) == LDP_OK,
          "ldp_agent_use_shuffler failed");
  }
  AnswerPoll(agent, storage, flags, poll);
  RecordUploads(agent, storage, flags, poll, acks);
  if ((flags & kShuffler) != 0) RecordShuffled(agent, acks);
  if ((flags & kEnroll) != 0) EnrollRequest(poll, acks);
  // Every call left its state durable: a new handle sees the same.
  const int64_t spent = Spent(agent, 0);
  const std::string pending = NextUpload(agent);
  ldp_agent_close(agent);
  agent = Open(storage);
  Check(Spent(agent, 0) == spent, "the reopened agent's spend differs");
  Check(NextUpload(agent) == pending, "the reopened agent's pending differ");
  ldp_agent_close(agent);
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Sanitizer reports go to the real stderr even inside Quiet(); protobuf
  // logs as it does by default again (fuzz_fixtures.cc silences it for the
  // other targets), so that the library's own silence is what is checked.
  static int real_stderr = dup(2);
  __sanitizer_set_report_fd(
      reinterpret_cast<void*>(static_cast<intptr_t>(real_stderr)));
  ldp::fuzz::RestoreProtobufLogging();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const uint8_t flags = bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]);
  bytes.remove_prefix(bytes.empty() ? 0 : 1);
  size_t poll_size = 0;
  if (bytes.size() >= 2) {
    poll_size = (size_t{static_cast<uint8_t>(bytes[0])} << 8) |
                static_cast<uint8_t>(bytes[1]);
    bytes.remove_prefix(2);
  }
  poll_size = std::min(poll_size, bytes.size());
  ldp::fuzz::FuzzAgent(flags, bytes.substr(0, poll_size),
                       bytes.substr(poll_size));
  return 0;
}

// The C ABI over the agent core (ldp_agent.h): each function takes the
// handle's lock (or refuses with ABORTED), converts bytes with the same
// pieces ldp_agent_client uses (task_batch.h, upload_batches.h) once
// quiet_parse.h has made sure protobuf will not print about them, and
// turns every absl::Status, and any exception, into a status code and
// message.
#include "client/agent_c/ldp_agent.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/agent_c/callback_state_store.h"
#include "client/agent_c/enroll_request.h"
#include "client/agent_c/quiet_parse.h"
#include "client/agent_c/server_upload.h"
#include "client/agent_c/shuffled_upload.h"
#include "client/agent_wire/shuffled_reports.h"
#include "client/agent_wire/task_batch.h"
#include "client/agent_wire/upload_batches.h"
#include "client/core/agent.h"
#include "common/crypto/secure_random.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/ldp/v1/agent_service.pb.h"

struct ldp_agent {
  std::mutex mu;
  // Declared before `agent`, which draws from it: destroyed after it.
  std::unique_ptr<ldp::SecureRandom> gen;
  std::unique_ptr<ldp::Agent> agent;
  // Set by ldp_agent_use_shuffler; until then shuffled tasks are refused.
  ldp::ShuffledTaskOptions shuffle;
};

namespace ldp {
namespace {

int Fill(ldp_status* status, const absl::Status& s) {
  if (status != nullptr) {
    status->code = static_cast<int>(s.code());
    const size_t n = std::min(s.message().size(), sizeof(status->message) - 1);
    if (n > 0) std::memcpy(status->message, s.message().data(), n);
    status->message[n] = '\0';
  }
  return static_cast<int>(s.code());
}

// Runs `body` on the handle under its lock; a concurrent call, a null
// handle and any exception become statuses.
template <typename Body>
int Guarded(ldp_agent* agent, ldp_status* status, Body body) {
  if (agent == nullptr) {
    return Fill(status, absl::InvalidArgumentError("the agent handle is null"));
  }
  std::unique_lock<std::mutex> lock(agent->mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    return Fill(status, absl::AbortedError(
                            "another call is running on this agent handle"));
  }
  try {
    return Fill(status, body(*agent));
  } catch (const std::exception& e) {
    return Fill(status, absl::InternalError(
                            absl::StrCat("ldp_agent: exception: ", e.what())));
  } catch (...) {
    return Fill(status, absl::InternalError("ldp_agent: unknown exception"));
  }
}

absl::Status CopyOut(const std::string& bytes, ldp_buffer* out) {
  if (out == nullptr) return absl::InvalidArgumentError("out buffer is null");
  *out = {nullptr, 0};
  if (bytes.empty()) return absl::OkStatus();
  out->data = static_cast<uint8_t*>(std::malloc(bytes.size()));
  if (out->data == nullptr) {
    return absl::ResourceExhaustedError("out of memory for the buffer");
  }
  std::memcpy(out->data, bytes.data(), bytes.size());
  out->size = bytes.size();
  return absl::OkStatus();
}

absl::StatusOr<AgentOptions> ReadOptions(const ldp_agent_options& c) {
  if (c.record_json == nullptr) {
    return absl::InvalidArgumentError("options.record_json is required");
  }
  AgentOptions options{.record_json = c.record_json};
  const auto or_default = [](int64_t value, int64_t fallback) {
    return value == 0 ? fallback : value;
  };
  options.max_epsilon_per_study_nanos =
      or_default(c.max_epsilon_per_study_nanos, kDefaultStudyCapNanos);
  options.caps = {
      .lifetime_nanos =
          or_default(c.lifetime_cap_nanos, kDefaultLifetimeCapNanos),
      .period_nanos = or_default(c.period_cap_nanos, kDefaultPeriodCapNanos),
      .period_seconds = or_default(c.period_seconds, kDefaultPeriodSeconds)};
  return options;
}

absl::Status Open(const ldp_agent_options* c, const ldp_storage* storage,
                  std::unique_ptr<ldp_agent>& handle) {
  if (c == nullptr || storage == nullptr) {
    return absl::InvalidArgumentError("options and storage are required");
  }
  if (storage->load == nullptr || storage->write == nullptr ||
      storage->sync == nullptr) {
    return absl::InvalidArgumentError(
        "storage needs its load, write and sync callbacks");
  }
  absl::StatusOr<AgentOptions> options = ReadOptions(*c);
  if (!options.ok()) return options.status();
  absl::StatusOr<std::unique_ptr<SecureRandom>> gen =
      c->insecure_simulation != 0
          ? SecureRandom::CreateForSimulation(c->simulation_seed)
          : SecureRandom::Create();
  if (!gen.ok()) return gen.status();
  handle->gen = *std::move(gen);
  absl::StatusOr<std::unique_ptr<Agent>> agent = Agent::Create(
      *options, std::make_unique<CallbackStateStore>(*storage), *handle->gen);
  if (!agent.ok()) return agent.status();
  handle->agent = *std::move(agent);
  return absl::OkStatus();
}

// The poll's tasks, decoded without protobuf printing (quiet_parse.h);
// `unreadable` counts the tasks dropped before decoding.
absl::StatusOr<TaskBatch> DecodePoll(const ldp_agent& handle,
                                     const uint8_t* bytes, size_t size,
                                     int& unreadable) {
  if (bytes == nullptr && size > 0) {
    return absl::InvalidArgumentError("response is null");
  }
  absl::StatusOr<std::string> poll = WithoutUnparsableTasks(
      std::string_view(reinterpret_cast<const char*>(bytes), size), unreadable);
  absl::StatusOr<TaskBatch> batch =
      poll.ok() ? DecodeTaskBatch(*poll, handle.shuffle)
                : absl::StatusOr<TaskBatch>(poll.status());
  if (!batch.ok()) {
    return absl::Status(batch.status().code(),
                        absl::StrCat("the poll is not a GetTasksResponse: ",
                                     batch.status().message()));
  }
  return batch;
}

absl::Status AnswerPoll(ldp_agent& handle, const uint8_t* bytes, size_t size,
                        int* answered, int* refused) {
  if (answered != nullptr) *answered = 0;
  if (refused != nullptr) *refused = 0;
  int unreadable = 0;
  absl::StatusOr<TaskBatch> batch = DecodePoll(handle, bytes, size, unreadable);
  if (!batch.ok()) return batch.status();
  Agent& agent = *handle.agent;
  int yes = 0, no = unreadable + static_cast<int>(batch->malformed.size());
  absl::Status store_error;
  for (const auto& answer : agent.AnswerAll(batch->tasks)) {
    if (answer.ok()) {
      ++yes;
      continue;
    }
    ++no;
    // The store's own failure (callback_state_store.h), not a refusal.
    const absl::StatusCode code = answer.status().code();
    if (code == absl::StatusCode::kUnavailable ||
        code == absl::StatusCode::kDataLoss) {
      store_error = answer.status();
    }
  }
  // A failed save answered nothing (the header): the counts stay 0.
  if (!store_error.ok()) return store_error;
  if (answered != nullptr) *answered = yes;
  if (refused != nullptr) *refused = no;
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp

extern "C" {

const char* ldp_agent_version(void) { return "1.1.0"; }

int ldp_agent_abi_version(void) { return LDP_AGENT_ABI_VERSION; }

int ldp_agent_open(const ldp_agent_options* options, const ldp_storage* storage,
                   ldp_agent** out, ldp_status* status) {
  if (out == nullptr) {
    return ldp::Fill(status, absl::InvalidArgumentError("out is null"));
  }
  *out = nullptr;
  try {
    auto handle = std::make_unique<ldp_agent>();
    const absl::Status opened = ldp::Open(options, storage, handle);
    if (opened.ok()) *out = handle.release();
    return ldp::Fill(status, opened);
  } catch (...) {
    return ldp::Fill(status, absl::InternalError("ldp_agent_open: exception"));
  }
}

void ldp_agent_close(ldp_agent* agent) { delete agent; }

int ldp_agent_get_tasks_request(ldp_agent* agent, uint64_t agent_id,
                                uint32_t max_tasks, ldp_buffer* out,
                                ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent&) {
    ldp::v1::GetTasksRequest request;
    request.set_agent_id(agent_id);
    request.set_max_tasks(max_tasks);
    return ldp::CopyOut(ldp::DeterministicBytes(request), out);
  });
}

int ldp_agent_answer_poll(ldp_agent* agent, const uint8_t* response,
                          size_t size, int* answered, int* refused,
                          ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    return ldp::AnswerPoll(h, response, size, answered, refused);
  });
}

int ldp_agent_next_upload(ldp_agent* agent, uint64_t agent_id, ldp_buffer* out,
                          ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    // The server's reports only: PendingReports never holds a shuffled one.
    const std::vector<ldp::TaskReport> pending = h.agent->PendingReports();
    if (pending.empty()) return ldp::CopyOut("", out);
    const auto batches = ldp::MakeUploadBatches(pending, agent_id, {});
    return ldp::CopyOut(ldp::DeterministicBytes(batches.front()), out);
  });
}

int ldp_agent_record_upload(ldp_agent* agent, const uint8_t* request,
                            size_t request_size, const uint8_t* response,
                            size_t response_size, int* accepted, int* rejected,
                            ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    return ldp::RecordUpload(*h.agent, request, request_size, response,
                             response_size, accepted, rejected);
  });
}

int ldp_agent_use_shuffler(ldp_agent* agent, uint64_t agent_id,
                           ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    if (agent_id == 0) {
      return absl::InvalidArgumentError(
          "agent_id must be the id the server enrolled this agent under");
    }
    h.shuffle = {.agent_id = agent_id, .has_shuffler = true};
    return absl::OkStatus();
  });
}

int ldp_agent_next_shuffled_upload(ldp_agent* agent, ldp_buffer* out,
                                   ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    absl::StatusOr<std::string> request = ldp::NextShuffledUpload(*h.agent);
    if (!request.ok()) return request.status();
    return ldp::CopyOut(*request, out);
  });
}

int ldp_agent_record_shuffled_upload(ldp_agent* agent, const uint8_t* request,
                                     size_t request_size,
                                     const uint8_t* response,
                                     size_t response_size, int* accepted,
                                     int* rejected, ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    return ldp::RecordShuffledUpload(*h.agent, request, request_size, response,
                                     response_size, accepted, rejected);
  });
}

int ldp_agent_spent(ldp_agent* agent, uint64_t study_id, int64_t* total_nanos,
                    int64_t* study_nanos, ldp_status* status) {
  return ldp::Guarded(agent, status, [&](ldp_agent& h) {
    if (total_nanos != nullptr) *total_nanos = h.agent->total_spent_nanos();
    if (study_nanos != nullptr) {
      const auto budget = h.agent->Budget(study_id);
      *study_nanos = budget.has_value() ? budget->spent_nanos : 0;
    }
    return absl::OkStatus();
  });
}

int ldp_agent_enroll_request(const char* token, size_t token_size,
                             const char* csr_pem, size_t csr_size,
                             ldp_buffer* out, ldp_status* status) {
  try {
    if (out != nullptr) *out = {nullptr, 0};
    if ((token == nullptr && token_size > 0) ||
        (csr_pem == nullptr && csr_size > 0)) {
      return ldp::Fill(status, absl::InvalidArgumentError(
                                   "the token or CSR is null with a size"));
    }
    absl::StatusOr<std::string> request =
        ldp::EnrollRequestBytes(std::string_view(token, token_size),
                                std::string_view(csr_pem, csr_size));
    return ldp::Fill(
        status, request.ok() ? ldp::CopyOut(*request, out) : request.status());
  } catch (...) {
    return ldp::Fill(
        status, absl::InternalError("ldp_agent_enroll_request: exception"));
  }
}

void ldp_buffer_free(ldp_buffer* buffer) {
  if (buffer == nullptr) return;
  std::free(buffer->data);
  *buffer = {nullptr, 0};
}

}  // extern "C"

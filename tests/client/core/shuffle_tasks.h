// Shuffled studies' tasks for the agent's tests: a task with the shuffle
// parameters a server would send one agent (its HPKE key and a signed
// ticket that fits the task, or one a test has tampered with), and the
// server's side, which opens what the agent sealed. The keys are fresh per
// test; nothing here reads the clock (the deadline is fixed, far ahead).
#ifndef LDP_TESTS_CLIENT_CORE_SHUFFLE_TASKS_H_
#define LDP_TESTS_CLIENT_CORE_SHUFFLE_TASKS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "common/crypto/ed25519.h"
#include "common/crypto/hpke_kem.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"
#include "proto/sealing/sealed_report.h"

namespace ldp::testing {

// 2100-01-01: every test task's round is open, whenever the test runs.
inline constexpr int64_t kShuffleDeadlineSeconds = 4102444800;

// The server's keys: the HPKE pair reports are sealed to, and the Ed25519
// pair that signs tickets.
struct ShuffleKeys {
  HpkeKeyPair hpke;
  Ed25519KeyPair ticket_key;
};

inline ShuffleKeys NewShuffleKeys() {
  absl::StatusOr<HpkeKeyPair> hpke = GenerateHpkeKeyPair();
  absl::StatusOr<Ed25519KeyPair> ticket_key = GenerateEd25519KeyPair();
  EXPECT_TRUE(hpke.ok() && ticket_key.ok());
  return ShuffleKeys{.hpke = *hpke, .ticket_key = *ticket_key};
}

// The shuffled task id of every test task: round 1, question 3.
inline uint64_t TestShuffledTaskId() { return ShuffledTaskId(1, 3); }

// `task` (given a deadline) as a shuffled study sends it to `agent_id`:
// the HPKE public key and a ticket that fits the task, after `tamper` (if
// any) changed it, signed with the ticket key (also a ticket SignTicket
// would refuse: a hostile server signs what it likes).
inline v1::Task ShuffledFor(
    v1::Task task, uint64_t agent_id, const ShuffleKeys& keys,
    const std::function<void(v1::ShuffleTicket&)>& tamper = nullptr) {
  task.mutable_deadline()->set_seconds(kShuffleDeadlineSeconds);
  const std::string public_key(HpkeKeyBytes(keys.hpke.public_key));
  v1::ShuffleTicket ticket;
  ticket.set_agent_id(agent_id);
  ticket.set_study_id(task.study_id());
  ticket.set_round_id(task.round_id());
  ticket.set_shuffled_task_id(TestShuffledTaskId());
  ticket.set_key_id(HpkeKeyId(public_key));
  ticket.set_question_digest(QuestionDigest(task));
  ticket.set_min_batch(100);
  *ticket.mutable_deadline() = task.deadline();
  if (tamper) tamper(ticket);
  v1::ShuffleParams* params = task.mutable_shuffle();
  params->set_hpke_public_key(public_key);
  params->set_target_epsilon(0.5);
  params->set_delta(1e-8);
  absl::StatusOr<v1::SignedShuffleTicket> signed_ticket =
      SignTicket(ticket, keys.ticket_key);
  if (signed_ticket.ok()) {
    *params->mutable_ticket() = *signed_ticket;
  } else {
    params->mutable_ticket()->set_ticket(ticket.SerializeAsString());
    absl::StatusOr<std::string> signature =
        Ed25519Sign(keys.ticket_key, params->ticket().ticket());
    EXPECT_TRUE(signature.ok());
    params->mutable_ticket()->set_signature(signature.value_or(""));
  }
  return task;
}

// What the server opens after the shuffler: the ticket verified with the
// ticket key, the payload opened with the HPKE key under the batch header
// the ticket implies.
inline absl::StatusOr<v1::Report> OpenSubmission(
    const ShuffleKeys& keys, const v1::ShuffleSubmission& submission) {
  absl::StatusOr<v1::ShuffleTicket> ticket = VerifyTicket(
      submission.ticket(), std::string(reinterpret_cast<const char*>(
                                           keys.ticket_key.public_key.data()),
                                       keys.ticket_key.public_key.size()));
  if (!ticket.ok()) return ticket.status();
  v1::ShuffledBatchHeader header;
  header.set_study_id(ticket->study_id());
  header.set_round_id(ticket->round_id());
  header.set_shuffled_task_id(ticket->shuffled_task_id());
  header.set_key_id(ticket->key_id());
  header.set_question_digest(ticket->question_digest());
  header.set_num_reports(1);
  return OpenReport(keys.hpke, header, submission.sealed());
}

// The same from the bytes an agent saved or sent.
inline absl::StatusOr<v1::Report> OpenSubmissionBytes(
    const ShuffleKeys& keys, const std::string& bytes) {
  v1::ShuffleSubmission submission;
  if (!submission.ParseFromString(bytes)) {
    return absl::InvalidArgumentError("not a ShuffleSubmission");
  }
  return OpenSubmission(keys, submission);
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_CLIENT_CORE_SHUFFLE_TASKS_H_

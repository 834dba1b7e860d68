// What the shuffler's tests share: a BatchSink that records (or fails)
// deliveries, signed tickets and well-formed payloads that say whose they
// are, and a fixture that runs a shuffler on them and restarts it.
#ifndef LDP_TESTS_SERVER_SHUFFLER_SHUFFLER_TEST_SUPPORT_H_
#define LDP_TESTS_SERVER_SHUFFLER_SHUFFLER_TEST_SUPPORT_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/crypto/ed25519.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/sealing/sealed_report.h"
#include "server/shuffler/core/batch_sink.h"
#include "server/shuffler/core/shuffler.h"
#include "server/shuffler/core/shuffler_config.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp::shuffler_testing {

inline constexpr uint64_t kStudy = 7;
inline constexpr uint64_t kRound = 3;

// Records every attempt; fails the next ones as told.
class FakeBatchSink final : public BatchSink {
 public:
  struct Batch {
    v1::ShuffledBatchHeader header;
    std::vector<v1::SealedPayload> payloads;
  };

  absl::StatusOr<DeliveryReceipt> Deliver(
      const v1::ShuffledBatchHeader& header,
      absl::Span<const v1::SealedPayload> payloads) override {
    absl::MutexLock lock(&mutex_);
    attempts_.push_back(header.batch_id());
    if (!failures_.empty()) {
      absl::Status failure = failures_.front();
      failures_.pop_front();
      return failure;
    }
    batches_.push_back({header, std::vector<v1::SealedPayload>(
                                    payloads.begin(), payloads.end())});
    return DeliveryReceipt{.accepted = payloads.size()};
  }
  void FailNext(const absl::Status& status, int times = 1) {
    absl::MutexLock lock(&mutex_);
    for (int i = 0; i < times; ++i) failures_.push_back(status);
  }
  std::vector<Batch> batches() const {
    absl::MutexLock lock(&mutex_);
    return batches_;
  }
  std::vector<std::string> attempts() const {
    absl::MutexLock lock(&mutex_);
    return attempts_;
  }

 private:
  mutable absl::Mutex mutex_;
  std::deque<absl::Status> failures_;
  std::vector<Batch> batches_;
  std::vector<std::string> attempts_;
};

// The server's side of the tickets, and submissions whose ciphertext
// names their task, agent and tag ("ct/TASK/AGENT/TAG", padded).
class TicketFactory {
 public:
  explicit TicketFactory(const Clock* clock) : clock_(clock) {
    absl::StatusOr<Ed25519KeyPair> key = GenerateEd25519KeyPair();
    EXPECT_TRUE(key.ok()) << key.status();
    key_ = *key;
  }
  std::string public_key() const {
    return std::string(key_.public_key.begin(), key_.public_key.end());
  }
  v1::ShuffleTicket Ticket(uint64_t agent, uint64_t task,
                           uint64_t min_batch) const {
    v1::ShuffleTicket ticket;
    ticket.set_agent_id(agent);
    ticket.set_study_id(kStudy);
    ticket.set_round_id(kRound);
    ticket.set_shuffled_task_id(task);
    ticket.set_key_id("keyid-08");
    ticket.set_question_digest(std::string(32, 'q'));
    ticket.set_min_batch(min_batch);
    const absl::Time deadline = clock_->Now() + absl::Hours(1);
    ticket.mutable_deadline()->set_seconds(absl::ToUnixSeconds(deadline));
    return ticket;
  }
  v1::ShuffleSubmission Submission(uint64_t agent, uint64_t task = 11,
                                   uint64_t min_batch = 5,
                                   const std::string& tag = "a") const {
    return SubmissionFor(Ticket(agent, task, min_batch), key_, tag);
  }
  static v1::ShuffleSubmission SubmissionFor(const v1::ShuffleTicket& ticket,
                                             const Ed25519KeyPair& key,
                                             const std::string& tag = "a") {
    v1::ShuffleSubmission submission;
    absl::StatusOr<v1::SignedShuffleTicket> signed_ticket =
        SignTicket(ticket, key);
    EXPECT_TRUE(signed_ticket.ok()) << signed_ticket.status();
    *submission.mutable_ticket() = *signed_ticket;
    std::string ciphertext = absl::StrCat("ct/", ticket.shuffled_task_id(), "/",
                                          ticket.agent_id(), "/", tag);
    ciphertext.resize(std::max<size_t>(ciphertext.size(), 24), '.');
    submission.mutable_sealed()->set_enc(std::string(32, 'e'));
    submission.mutable_sealed()->set_ciphertext(ciphertext);
    return submission;
  }
  const Ed25519KeyPair& key() const { return key_; }

 private:
  const Clock* clock_;
  Ed25519KeyPair key_;
};

// The agent a payload from TicketFactory came from (test bookkeeping).
inline uint64_t AgentOf(const v1::SealedPayload& payload) {
  const std::string& c = payload.ciphertext();
  const size_t start = c.find('/', 3) + 1;
  return std::stoull(c.substr(start, c.find('/', start) - start));
}

// A config for tests: a fresh file, the fake clock, batches of exactly the
// ticket's minimum (no extra, floor 1), no sender thread.
inline ShufflerConfig TestShufflerConfig(const std::string& dir,
                                         const TicketFactory& tickets,
                                         const Clock* clock) {
  ShufflerConfig config;
  config.db_path = dir + "/shuffler.db";
  config.ticket_public_key = tickets.public_key();
  config.min_batch_floor = 1;
  config.extra_max_fraction = 0;
  config.clock = clock;
  config.run_sender = false;
  return config;
}

// A shuffler on a fresh file with the fake clock, sink and tickets above.
// A test may change config_ and Reopen: a restart on the same file. `seed`
// fixes the thresholds and permutations it draws.
class ShufflerFixture : public ::testing::Test {
 protected:
  explicit ShufflerFixture(uint64_t seed) : gen_(seed) {}
  void SetUp() override { Reopen(); }
  void Reopen() {
    shuffler_.reset();
    absl::StatusOr<std::unique_ptr<Shuffler>> shuffler =
        Shuffler::Create(config_, &sink_, gen_);
    ASSERT_OK(shuffler);
    shuffler_ = *std::move(shuffler);
  }
  // One submission from each agent first..last for `task`.
  std::vector<v1::ShuffleSubmission> Agents(uint64_t first, uint64_t last,
                                            uint64_t task = 11,
                                            uint64_t min_batch = 5) const {
    std::vector<v1::ShuffleSubmission> submissions;
    for (uint64_t agent = first; agent <= last; ++agent) {
      submissions.push_back(tickets_.Submission(agent, task, min_batch));
    }
    return submissions;
  }
  // Submits them all, each expected OK.
  void SubmitOk(const std::vector<v1::ShuffleSubmission>& submissions) {
    for (const absl::Status& ack : shuffler_->Submit(submissions)) {
      EXPECT_OK(ack);
    }
  }

  ldp::testing::TempDirectory dir_;
  FakeClock clock_;
  TicketFactory tickets_{&clock_};
  ShufflerConfig config_ = TestShufflerConfig(dir_.path(), tickets_, &clock_);
  std::mt19937_64 gen_;
  FakeBatchSink sink_;
  std::unique_ptr<Shuffler> shuffler_;
};

}  // namespace ldp::shuffler_testing

#endif  // LDP_TESTS_SERVER_SHUFFLER_SHUFFLER_TEST_SUPPORT_H_

// The shuffler's facade: checks, group commit and the sender thread; see
// the header.
#include "server/shuffler/core/shuffler.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/sealing/sealed_report.h"
#include "server/shuffler/core/batch_admitter.h"
#include "server/shuffler/core/batch_key.h"
#include "server/shuffler/core/outbox_sender.h"
#include "server/shuffler/core/shuffle_store.h"

namespace ldp {

using shuffler_internal::Admission;
using shuffler_internal::BatchAdmitter;
using shuffler_internal::OutboxSender;
using shuffler_internal::ShuffleStore;

namespace {

// HPKE's X25519 encapsulated key, and ChaCha20-Poly1305's tag.
constexpr size_t kEncBytes = 32;
constexpr size_t kTagBytes = 16;

}  // namespace

// One Submit call's admissions, waiting for the group commit.
struct Shuffler::CommitJob {
  std::vector<Admission*> admissions;
  bool done = false;
};

Shuffler::Shuffler(const ShufflerConfig& config, BatchSink* sink,
                   absl::BitGenRef gen)
    : config_(config), sink_(sink), gen_(gen) {}

absl::StatusOr<std::unique_ptr<Shuffler>> Shuffler::Create(
    const ShufflerConfig& config, BatchSink* sink, absl::BitGenRef gen) {
  RETURN_IF_ERROR(ValidateShufflerConfig(config));
  if (sink == nullptr) {
    return absl::InvalidArgumentError("the shuffler needs a batch sink");
  }
  auto shuffler = std::unique_ptr<Shuffler>(new Shuffler(config, sink, gen));
  RETURN_IF_ERROR(shuffler->Open());
  if (config.run_sender) {
    shuffler->thread_ = std::thread([s = shuffler.get()] { s->SenderLoop(); });
  }
  return shuffler;
}

absl::Status Shuffler::Open() {
  absl::MutexLock lock(&store_mutex_);
  ASSIGN_OR_RETURN(store_, ShuffleStore::Open(config_.db_path));
  ASSIGN_OR_RETURN(const uint64_t pending, store_->CountPending());
  ASSIGN_OR_RETURN(const uint64_t outbox, store_->CountOutbox());
  counters_.pending_reports.store(pending);
  counters_.outbox_batches.store(outbox);
  admitter_ =
      std::make_unique<BatchAdmitter>(store_.get(), &config_, gen_, &counters_);
  sender_ = std::make_unique<OutboxSender>(store_.get(), &store_mutex_, sink_,
                                           &config_, &counters_);
  return absl::OkStatus();
}

Shuffler::~Shuffler() {
  {
    absl::MutexLock lock(&wake_mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

std::vector<absl::Status> Shuffler::Submit(
    absl::Span<const v1::ShuffleSubmission> submissions) {
  std::vector<const v1::ShuffleSubmission*> pointers;
  pointers.reserve(submissions.size());
  for (const v1::ShuffleSubmission& submission : submissions) {
    pointers.push_back(&submission);
  }
  return Submit(absl::MakeConstSpan(pointers));
}

std::vector<absl::Status> Shuffler::Submit(
    absl::Span<const v1::ShuffleSubmission* const> submissions) {
  std::vector<absl::Status> statuses(submissions.size());
  std::vector<Admission> admissions;
  std::vector<size_t> positions;
  admissions.reserve(submissions.size());
  for (size_t i = 0; i < submissions.size(); ++i) {
    absl::StatusOr<Admission> admission = Check(*submissions[i]);
    if (!admission.ok()) {
      statuses[i] = admission.status();
      continue;
    }
    admissions.push_back(*std::move(admission));
    positions.push_back(i);
  }
  if (!admissions.empty()) {
    CommitJob job;
    for (Admission& admission : admissions)
      job.admissions.push_back(&admission);
    CommitInGroup(job);
    for (size_t k = 0; k < admissions.size(); ++k) {
      statuses[positions[k]] = std::move(admissions[k].status);
    }
  }
  for (const absl::Status& status : statuses) {
    counters_.CountSubmission(status.code());
  }
  return statuses;
}

absl::StatusOr<Admission> Shuffler::Check(
    const v1::ShuffleSubmission& submission) const {
  ASSIGN_OR_RETURN(
      const v1::ShuffleTicket ticket,
      VerifyTicket(submission.ticket(), config_.ticket_public_key));
  ASSIGN_OR_RETURN(BatchKey key, BatchKeyOf(ticket));
  // The last batch must reach the server while its round is still open.
  key.deadline -= config_.deadline_margin;
  if (config_.clock->Now() >= key.deadline) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the round's deadline is less than the shuffler's margin of ",
        absl::FormatDuration(config_.deadline_margin),
        " away, or has passed: its last batch is already on its way"));
  }
  const v1::SealedPayload& payload = submission.sealed();
  if (payload.enc().size() != kEncBytes) {
    return absl::InvalidArgumentError(absl::StrCat("sealed.enc must be ",
                                                   kEncBytes, " bytes, not ",
                                                   payload.enc().size()));
  }
  if (payload.ciphertext().size() < kTagBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sealed.ciphertext must hold at least the ", kTagBytes,
        "-byte tag; it has ", payload.ciphertext().size(), " bytes"));
  }
  ASSIGN_OR_RETURN(std::string digest, PayloadDigest(payload));
  return Admission{.key = std::move(key),
                   .agent_id = ticket.agent_id(),
                   .payload = &payload,
                   .digest = std::move(digest)};
}

// The first caller to find no commit running commits every queued job,
// its own included; the others wait. While it commits (one fsync), new
// calls queue up and go together in the next group.
void Shuffler::CommitInGroup(CommitJob& job) {
  absl::MutexLock lock(&queue_mutex_);
  queue_.push_back(&job);
  while (!job.done) {
    if (committing_) {
      auto can_go = [this, &job] { return job.done || !committing_; };
      queue_mutex_.Await(absl::Condition(&can_go));
      continue;
    }
    committing_ = true;
    std::vector<CommitJob*> group;
    group.swap(queue_);
    queue_mutex_.Unlock();
    CommitGroup(group);
    queue_mutex_.Lock();
    for (CommitJob* member : group) member->done = true;
    committing_ = false;
  }
}

void Shuffler::CommitGroup(const std::vector<CommitJob*>& group) {
  std::vector<Admission*> all;
  for (const CommitJob* job : group) {
    all.insert(all.end(), job->admissions.begin(), job->admissions.end());
  }
  absl::StatusOr<int> released;
  {
    absl::MutexLock lock(&store_mutex_);
    released = admitter_->AdmitAll(all);
  }
  if (!released.ok()) {
    const absl::Status error(
        released.status().code(),
        absl::StrCat("not stored: ", released.status().message()));
    for (Admission* admission : all) admission->status = error;
    if (config_.event_log != nullptr) {
      config_.event_log->Write(LogLevel::kError, "submissions_not_stored",
                               {{"submissions", absl::StrCat(all.size())},
                                {"error", error.ToString()}});
    }
  } else if (*released > 0) {
    WakeSender();
  }
}

absl::StatusOr<int> Shuffler::SweepDeadlines() {
  absl::StatusOr<int> released;
  {
    absl::MutexLock lock(&store_mutex_);
    released = admitter_->SweepDeadlines();
  }
  if (released.ok() && *released > 0) WakeSender();
  return released;
}

absl::StatusOr<DeliveryOutcome> Shuffler::DeliverOldest() {
  return sender_->DeliverOldest();
}

// Sweeps deadlines every sweep_interval and delivers while the outbox has
// batches; after a failed delivery it backs off (doubling, capped) before
// the next attempt, which is of the same oldest batch.
void Shuffler::SenderLoop() {
  absl::Duration backoff = config_.retry_initial_backoff;
  absl::Time next_sweep = absl::Now();
  for (;;) {
    if (absl::Now() >= next_sweep) {
      absl::StatusOr<int> swept = SweepDeadlines();
      if (!swept.ok() && config_.event_log != nullptr) {
        config_.event_log->Write(LogLevel::kError, "deadline_sweep_failed",
                                 {{"error", swept.status().ToString()}});
      }
      next_sweep = absl::Now() + config_.sweep_interval;
    }
    const absl::StatusOr<DeliveryOutcome> outcome = sender_->DeliverOldest();
    absl::Duration wait = absl::ZeroDuration();
    if (!outcome.ok()) {
      wait = backoff;
      backoff = std::min(backoff * 2, config_.retry_max_backoff);
    } else {
      backoff = config_.retry_initial_backoff;
      if (*outcome == DeliveryOutcome::kIdle) wait = next_sweep - absl::Now();
    }
    if (!Wait(wait, /*backing_off=*/!outcome.ok())) return;
  }
}

bool Shuffler::Wait(absl::Duration wait, bool backing_off) {
  absl::MutexLock lock(&wake_mutex_);
  auto ready = [this, backing_off] {
    return stopping_ || (work_ && !backing_off);
  };
  wake_mutex_.AwaitWithTimeout(absl::Condition(&ready),
                               std::max(wait, absl::ZeroDuration()));
  work_ = false;
  return !stopping_;
}

void Shuffler::WakeSender() {
  absl::MutexLock lock(&wake_mutex_);
  work_ = true;
}

}  // namespace ldp

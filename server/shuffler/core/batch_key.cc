// Batch keys, release thresholds and payload digests; see the header.
#include "server/shuffler/core/batch_key.h"

#include <algorithm>
#include <cmath>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

void AppendBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void AppendLengthPrefixed(std::string& out, const std::string& value) {
  AppendBigEndian(out, value.size(), 4);
  out += value;
}

absl::StatusOr<absl::Time> DeadlineOf(const v1::ShuffleTicket& ticket) {
  if (!ticket.has_deadline()) {
    return absl::InvalidArgumentError("the ticket has no deadline");
  }
  const google::protobuf::Timestamp& deadline = ticket.deadline();
  if (deadline.nanos() < 0 || deadline.nanos() >= 1'000'000'000) {
    return absl::InvalidArgumentError(
        "the ticket's deadline has nanos outside [0, 1e9)");
  }
  return absl::FromUnixSeconds(deadline.seconds()) +
         absl::Nanoseconds(deadline.nanos());
}

}  // namespace

absl::StatusOr<BatchKey> BatchKeyOf(const v1::ShuffleTicket& ticket) {
  BatchKey key;
  ASSIGN_OR_RETURN(key.deadline, DeadlineOf(ticket));
  if (ticket.min_batch() > kMaxTicketMinBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ticket's min_batch ", ticket.min_batch(), " exceeds ",
                     kMaxTicketMinBatch));
  }
  key.ticket_min_batch = ticket.min_batch();
  std::string& b = key.bytes;
  AppendBigEndian(b, ticket.study_id(), 8);
  AppendBigEndian(b, ticket.round_id(), 8);
  AppendBigEndian(b, ticket.shuffled_task_id(), 8);
  AppendBigEndian(b, ticket.min_batch(), 8);
  AppendBigEndian(b, static_cast<uint64_t>(ticket.deadline().seconds()), 8);
  AppendBigEndian(b, static_cast<uint32_t>(ticket.deadline().nanos()), 4);
  AppendLengthPrefixed(b, ticket.key_id());
  AppendLengthPrefixed(b, ticket.question_digest());
  key.header.set_study_id(ticket.study_id());
  key.header.set_round_id(ticket.round_id());
  key.header.set_shuffled_task_id(ticket.shuffled_task_id());
  key.header.set_key_id(ticket.key_id());
  key.header.set_question_digest(ticket.question_digest());
  return key;
}

uint64_t ReleaseMinimum(uint64_t ticket_min_batch, uint64_t floor) {
  return std::max(ticket_min_batch, floor);
}

uint64_t DrawThreshold(uint64_t min, double extra_max_fraction,
                       absl::BitGenRef gen) {
  const auto extra = static_cast<uint64_t>(
      std::ceil(static_cast<double>(min) * extra_max_fraction));
  return min +
         absl::Uniform(absl::IntervalClosedClosed, gen, uint64_t{0}, extra);
}

absl::StatusOr<std::string> PayloadDigest(const v1::SealedPayload& payload) {
  std::string bytes;
  AppendBigEndian(bytes, payload.enc().size(), 4);
  bytes += payload.enc();
  bytes += payload.ciphertext();
  ASSIGN_OR_RETURN(const Sha256Digest digest, Sha256Of(bytes));
  return std::string(DigestBytes(digest));
}

}  // namespace ldp

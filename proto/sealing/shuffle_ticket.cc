// The server's shuffle tickets: signed over their deterministic bytes with
// the server's Ed25519 ticket key, and checked by the shuffler offline; see
// sealed_report.h. Both sides refuse a ticket missing a field, so a server
// bug surfaces where the ticket is made rather than as batches that never
// release.
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/sha256.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {
namespace {

constexpr size_t kTicketKeyIdBytes = 8;

// The first field the ticket misses, or empty if it has them all.
std::string MissingTicketField(const v1::ShuffleTicket& ticket) {
  if (ticket.agent_id() == 0) return "agent_id";
  if (ticket.study_id() == 0) return "study_id";
  if (ticket.round_id() == 0) return "round_id";
  if (ticket.shuffled_task_id() == 0) return "shuffled_task_id";
  if (ticket.key_id().size() != kTicketKeyIdBytes) return "key_id (8 bytes)";
  if (ticket.question_digest().size() != kSha256Bytes) {
    return "question_digest (32 bytes)";
  }
  if (ticket.min_batch() < 1) return "min_batch (at least 1)";
  if (!ticket.has_deadline()) return "deadline";
  return std::string();
}

absl::Status CheckTicketFields(const v1::ShuffleTicket& ticket) {
  const std::string missing = MissingTicketField(ticket);
  if (missing.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("shuffle ticket lacks ", missing));
}

}  // namespace

absl::StatusOr<v1::SignedShuffleTicket> SignTicket(
    const v1::ShuffleTicket& ticket, const Ed25519KeyPair& key) {
  RETURN_IF_ERROR(CheckTicketFields(ticket));
  v1::SignedShuffleTicket signed_ticket;
  signed_ticket.set_ticket(DeterministicBytes(ticket));
  ASSIGN_OR_RETURN(std::string signature,
                   Ed25519Sign(key, signed_ticket.ticket()));
  signed_ticket.set_signature(std::move(signature));
  return signed_ticket;
}

absl::StatusOr<v1::ShuffleTicket> VerifyTicket(
    const v1::SignedShuffleTicket& signed_ticket,
    std::string_view ticket_public_key) {
  const absl::Status verified = Ed25519Verify(
      ticket_public_key, signed_ticket.ticket(), signed_ticket.signature());
  if (!verified.ok()) {
    return absl::Status(
        verified.code(),
        absl::StrCat("shuffle ticket is not the server's: ", verified.message(),
                     " (is the shuffler configured with the server's ticket "
                     "key?)"));
  }
  v1::ShuffleTicket ticket;
  if (!ticket.ParseFromString(signed_ticket.ticket())) {
    return absl::InvalidArgumentError(
        "signed shuffle ticket does not parse as an ldp.v1.ShuffleTicket");
  }
  RETURN_IF_ERROR(CheckTicketFields(ticket));
  return ticket;
}

}  // namespace ldp

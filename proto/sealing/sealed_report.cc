// Sealing and opening a shuffled report, and the ids and aad that bind a
// payload to its study, round, question and key; see the header. The
// padding is in padded_report.cc and the tickets' signatures in
// shuffle_ticket.cc.
#include "proto/sealing/sealed_report.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/hpke.h"
#include "common/crypto/sha256.h"
#include "proto/convert/deterministic_bytes.h"

namespace ldp {
namespace {

constexpr size_t kKeyIdBytes = 8;
constexpr size_t kAadBytes = 3 * 8 + kKeyIdBytes + kSha256Bytes;
// Restates common/tasks/task_id.h's layout (20 bits round, 32 bits agent,
// 12 bits question, high to low), which this library cannot include.
constexpr int kRoundShift = 44;

void AppendBigEndian64(uint64_t value, std::string& out) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

// The fields a ticket and a batch header share, in the aad's order.
absl::StatusOr<std::string> AadOf(uint64_t study_id, uint64_t round_id,
                                  uint64_t shuffled_task_id,
                                  std::string_view key_id,
                                  std::string_view question_digest) {
  if (key_id.size() != kKeyIdBytes || question_digest.size() != kSha256Bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a shuffled report's key_id must have ", kKeyIdBytes,
                     " bytes and its question_digest ", kSha256Bytes, "; got ",
                     key_id.size(), " and ", question_digest.size()));
  }
  std::string aad;
  aad.reserve(kAadBytes);
  AppendBigEndian64(study_id, aad);
  AppendBigEndian64(round_id, aad);
  AppendBigEndian64(shuffled_task_id, aad);
  aad.append(key_id);
  aad.append(question_digest);
  return aad;
}

// Sealed reports carry the shuffled task id and no agent: the shuffler and
// the server must not learn which agent sent one.
absl::Status CheckSealedReportIds(const v1::Report& report,
                                  uint64_t shuffled_task_id) {
  if (report.task_id() != shuffled_task_id || report.agent_id() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a sealed report must carry task_id ", shuffled_task_id,
                     " (the shuffled task id) and agent_id 0; it has task_id ",
                     report.task_id(), " and agent_id ", report.agent_id()));
  }
  return absl::OkStatus();
}

// The digest's bytes, or empty if OpenSSL fails, which every caller
// refuses (a key id must have 8 bytes, a digest 32).
std::string Sha256Bytes(std::string_view data) {
  absl::StatusOr<Sha256Digest> digest = Sha256Of(data);
  if (!digest.ok()) return std::string();
  return std::string(DigestBytes(*digest));
}

}  // namespace

std::string_view SealedReportInfo() { return "ldp.v1 shuffled report"; }

absl::StatusOr<std::string> SealedReportAad(const v1::ShuffleTicket& ticket) {
  return AadOf(ticket.study_id(), ticket.round_id(), ticket.shuffled_task_id(),
               ticket.key_id(), ticket.question_digest());
}

absl::StatusOr<std::string> SealedReportAad(
    const v1::ShuffledBatchHeader& header) {
  return AadOf(header.study_id(), header.round_id(), header.shuffled_task_id(),
               header.key_id(), header.question_digest());
}

std::string HpkeKeyId(std::string_view public_key) {
  return Sha256Bytes(public_key).substr(0, kKeyIdBytes);
}

std::string QuestionDigest(const v1::Task& task) {
  v1::Task question = task;
  question.clear_task_id();
  question.clear_shuffle();
  return Sha256Bytes(DeterministicBytes(question));
}

uint64_t ShuffledTaskId(uint64_t round_id, uint32_t question) {
  return (round_id << kRoundShift) | question;
}

absl::StatusOr<v1::SealedPayload> SealReport(const v1::Report& report,
                                             const v1::ShuffleParams& params) {
  const std::string& public_key = params.hpke_public_key();
  if (public_key.size() != kHpkeKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the task's shuffle hpke_public_key has ", public_key.size(),
        " bytes; an X25519 public key has ", kHpkeKeyBytes));
  }
  v1::ShuffleTicket ticket;
  if (!ticket.ParseFromString(params.ticket().ticket())) {
    return absl::InvalidArgumentError(
        "the task's shuffle ticket does not parse as an ldp.v1.ShuffleTicket");
  }
  if (ticket.key_id() != HpkeKeyId(public_key)) {
    return absl::InvalidArgumentError(
        "the task's shuffle ticket names another key than hpke_public_key; "
        "the server would not open the report");
  }
  RETURN_IF_ERROR(CheckSealedReportIds(report, ticket.shuffled_task_id()));
  ASSIGN_OR_RETURN(const std::string aad, SealedReportAad(ticket));
  ASSIGN_OR_RETURN(HpkeSealed sealed, SealBase(public_key, SealedReportInfo(),
                                               aad, PadReport(report)));
  v1::SealedPayload payload;
  payload.set_enc(std::move(sealed.enc));
  payload.set_ciphertext(std::move(sealed.ciphertext));
  return payload;
}

absl::StatusOr<v1::Report> OpenReport(const HpkeKeyPair& key,
                                      const v1::ShuffledBatchHeader& header,
                                      const v1::SealedPayload& payload) {
  ASSIGN_OR_RETURN(const std::string aad, SealedReportAad(header));
  absl::StatusOr<std::string> padded = OpenBase(
      key, payload.enc(), SealedReportInfo(), aad, payload.ciphertext());
  if (!padded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sealed report does not open: altered, or sealed to another task or "
        "key (",
        padded.status().message(), ")"));
  }
  absl::StatusOr<v1::Report> report = UnpadReport(*padded);
  if (!report.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sealed report opened but its plaintext is malformed: ",
                     report.status().message()));
  }
  RETURN_IF_ERROR(CheckSealedReportIds(*report, header.shuffled_task_id()));
  return report;
}

}  // namespace ldp

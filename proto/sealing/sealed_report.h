// How a shuffled report is sealed and opened (types.proto, "The shuffle
// model", is the contract): the padded plaintext, the 64-byte aad that
// binds a payload to its study, round, question and key, HPKE on top, and
// the server's signed tickets that admit an agent at the shuffler.
//
// Why one library for agent, shuffler and server: the three must agree on
// every byte, and each rule lives here once. It works on generated types
// because the bytes are the wire contract itself.
#ifndef LDP_PROTO_SEALING_SEALED_REPORT_H_
#define LDP_PROTO_SEALING_SEALED_REPORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/crypto/ed25519.h"
#include "common/crypto/hpke_kem.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// HPKE info for every sealed report: "ldp.v1 shuffled report".
std::string_view SealedReportInfo();

// The 64-byte aad: study, round and shuffled task id (8-byte big-endian
// each), key id (8 bytes), question digest (32 bytes). INVALID_ARGUMENT if
// the key id or digest has the wrong length.
absl::StatusOr<std::string> SealedReportAad(const v1::ShuffleTicket& ticket);
absl::StatusOr<std::string> SealedReportAad(
    const v1::ShuffledBatchHeader& header);

// First 8 bytes of SHA-256 of a 32-byte public key.
std::string HpkeKeyId(std::string_view public_key);

// SHA-256 of `task` serialized deterministically with task_id and shuffle
// cleared: the same for every agent asked the same question in a round.
std::string QuestionDigest(const v1::Task& task);

// The id every agent's report for (round, question index) carries inside
// the seal: the per-agent task id with its agent bits zero.
uint64_t ShuffledTaskId(uint64_t round_id, uint32_t question);

// The padded plaintext of `report` (see types.proto, step 2).
std::string PadReport(const v1::Report& report);
// Its inverse. INVALID_ARGUMENT if the length prefix overruns, the padding
// is not all zero, the length is not what PadReport gives for the report,
// or the report does not parse.
absl::StatusOr<v1::Report> UnpadReport(std::string_view padded);

// Pads `report` and seals it to `params` (the task's shuffle parameters),
// after checking that the ticket's key id is the public key's. The ticket
// is read, not verified: an agent trusts what its server sent.
absl::StatusOr<v1::SealedPayload> SealReport(const v1::Report& report,
                                             const v1::ShuffleParams& params);

// Opens and unpads one payload of a batch. INVALID_ARGUMENT, with a
// message that says which, if it does not open (altered, or sealed under
// another aad or key) or its plaintext is malformed.
absl::StatusOr<v1::Report> OpenReport(const HpkeKeyPair& key,
                                      const v1::ShuffledBatchHeader& header,
                                      const v1::SealedPayload& payload);

// The server's signed ticket.
absl::StatusOr<v1::SignedShuffleTicket> SignTicket(
    const v1::ShuffleTicket& ticket, const Ed25519KeyPair& key);
// The ticket inside `signed_ticket` if the signature verifies with the
// server's ticket key (UNAUTHENTICATED if not, INVALID_ARGUMENT if it does
// not parse or misses a field).
absl::StatusOr<v1::ShuffleTicket> VerifyTicket(
    const v1::SignedShuffleTicket& signed_ticket,
    std::string_view ticket_public_key);

}  // namespace ldp

#endif  // LDP_PROTO_SEALING_SEALED_REPORT_H_

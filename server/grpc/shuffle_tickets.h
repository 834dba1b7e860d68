// The shuffle parameters a shuffled study's task carries: the server's
// sealing key, and a ticket signed for this agent and task that the
// agent's shuffler verifies offline (types.proto, "The shuffle model").
//
// Why in the gRPC edge: the ticket names the question by the digest of
// its wire form, which only the edge has.
#ifndef LDP_SERVER_GRPC_SHUFFLE_TICKETS_H_
#define LDP_SERVER_GRPC_SHUFFLE_TICKETS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "proto/ldp/v1/types.pb.h"
#include "server/core/aggregator_types.h"
#include "server/keys/shuffle_keyring.h"

namespace ldp {

class ShuffleTicketIssuer {
 public:
  // `keys` outlives this.
  explicit ShuffleTicketIssuer(const ShuffleKeyring& keys) : keys_(keys) {}

  // For an assignment of a shuffled study (assignment.study->shuffle set):
  // the parameters for `agent_id`. `question_digest` is QuestionDigest of
  // the question's wire form (WireQuestionCache::Digest).
  absl::StatusOr<v1::ShuffleParams> Issue(const TaskAssignment& assignment,
                                          std::string_view question_digest,
                                          uint64_t agent_id) const;

 private:
  const ShuffleKeyring& keys_;
};

// Issue with `issuer` into `wire`'s shuffle parameters; INTERNAL if the
// server has no issuer (no shuffle keys).
absl::Status AttachShuffle(const ShuffleTicketIssuer* issuer,
                           const TaskAssignment& assignment,
                           std::string_view question_digest, uint64_t agent_id,
                           v1::ShuffleParams& wire);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_SHUFFLE_TICKETS_H_

// The budget ledger as a wire message; shared by the agent's own view and
// the analyst's view of an agent.
#ifndef LDP_SERVER_GRPC_LEDGER_PROTO_H_
#define LDP_SERVER_GRPC_LEDGER_PROTO_H_

#include <vector>

#include "proto/ldp/v1/agent_service.pb.h"
#include "server/store/store.h"

namespace ldp {

inline void LedgerToProto(const std::vector<LedgerEntry>& ledger,
                          v1::GetBudgetResponse* response) {
  for (const LedgerEntry& entry : ledger) {
    v1::BudgetEntry* out = response->add_entries();
    out->set_study_id(entry.study_id);
    out->set_cap_nanos(static_cast<uint64_t>(entry.cap_nanos));
    out->set_spent_nanos(static_cast<uint64_t>(entry.spent_nanos));
  }
}

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_LEDGER_PROTO_H_

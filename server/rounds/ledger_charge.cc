// The ledger's charge for repeated questions; see the header.
#include "server/rounds/ledger_charge.h"

#include <algorithm>

#include "common/tasks/task_id.h"

namespace ldp {

int64_t LedgerCharge(const RoundRuntime& round, int question, uint64_t agent_id,
                     const std::function<bool(uint64_t)>& in_batch) {
  const int64_t charge = round.task(question)->epsilon_nanos;
  const auto& earlier = round.earlier_askings(question);
  if (earlier.empty()) return charge;  // the common case: nothing to look up
  int64_t answered = 0;
  for (const RoundRuntime::Asking& asking : earlier) {
    const RoundRuntime& where = asking.round != nullptr ? *asking.round : round;
    const uint64_t task_id =
        PackTaskId({.round_id = where.round_id(),
                    .agent_id = agent_id,
                    .question = static_cast<uint32_t>(asking.question)});
    if (where.HasReport(task_id) || in_batch(task_id)) ++answered;
  }
  if (answered == 0) return charge;
  const int64_t infinity = round.mechanism(question).epsilon_infinity_nanos();
  if (infinity == 0) return 0;  // answered from the memo
  return std::clamp(infinity - answered * charge, int64_t{0}, charge);
}

}  // namespace ldp

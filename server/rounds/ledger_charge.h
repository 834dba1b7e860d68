// What the server's ledger charges for one report: εₜ, except for a
// question the agent answered before in the same study.
//
// The rule mirrors the honest agent (client/core/agent.h, DESIGN invariant 4):
// a question with the same canonical fingerprint as one the agent already
// reported in this study is answered from the agent's memory with the same
// payload, and costs nothing more; a longitudinal question is charged εₜ per
// report until ε∞ is paid, then nothing. The server cannot see a memo, so it
// counts what it can: this agent's stored reports for the earlier askings of
// the same question (RoundRuntime::earlier_askings), plus those earlier in
// the same upload batch. It never charges more than the agent would for an
// unchanged record; a device whose record changed pays more on its own side
// than the server books, which is the safe direction for a ledger whose
// caps are defense in depth.
//
// Estimates: an estimate is one question of one round, and a round gives an
// agent at most one task per question, so no estimate ever holds two
// reports of one agent. The server never pools rounds; repeated questions
// show up as separate estimates whose reports are NOT independent across
// rounds (the same agents sent the same payloads), which is why they are
// not combined.
#ifndef LDP_SERVER_ROUNDS_LEDGER_CHARGE_H_
#define LDP_SERVER_ROUNDS_LEDGER_CHARGE_H_

#include <cstdint>
#include <functional>

#include "server/rounds/round_runtime.h"

namespace ldp {

// `in_batch(task_id)`: whether a report for that task is already admitted
// in the current upload batch (not yet visible in the round).
int64_t LedgerCharge(const RoundRuntime& round, int question, uint64_t agent_id,
                     const std::function<bool(uint64_t)>& in_batch);

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_LEDGER_CHARGE_H_

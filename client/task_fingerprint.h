// A canonical fingerprint of what a task asks, for the agent's memo.
//
// DESIGN invariant 4: a repeated identical question is answered from memory
// at no extra budget cost. Answering it afresh would hand the server a
// second independent sample of the same value, i.e. spend ε twice. Two
// tasks are "identical" when everything that determines the distribution of
// the report is equal: the study, the record schema the question is read
// against, the question itself (query tree and output range, or domain
// encoding), the randomizer and εₜ. Task, round and report ids are left
// out. Fields the randomizer ignores (a statistical query's mechanism
// `bound` and an oracle's `domain_size`, both derived from the question by
// TaskMechanism) are left out too, so a different placeholder there cannot
// defeat the memo.
//
// The fingerprint is SHA-256 over an unambiguous tagged encoding of those
// values (every string length-prefixed, every double by its bit pattern),
// as 64 lowercase hex digits.
#ifndef LDP_CLIENT_TASK_FINGERPRINT_H_
#define LDP_CLIENT_TASK_FINGERPRINT_H_

#include <string>

#include "common/record_schema.h"
#include "common/task.h"

namespace ldp {

std::string TaskFingerprint(const Task& task, const RecordSchema& schema);

}  // namespace ldp

#endif  // LDP_CLIENT_TASK_FINGERPRINT_H_

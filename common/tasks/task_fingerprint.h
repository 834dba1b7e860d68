// A canonical fingerprint of what a task asks, for the agent's memo.
//
// DESIGN invariant 4: a repeated question is answered from memory at no
// extra budget cost. Answering it afresh would hand the server a second
// independent sample of the same value, i.e. spend ε twice. "Repeated" is
// judged by what the question IS, never by what the server CALLS it: the
// fingerprint covers the fields the question reads (their specs, by name),
// the question itself (query tree and output range, or domain encoding)
// and the randomizer with every default made explicit (CanonicalTask in
// common/tasks/task_mechanism.h). Study, round and task ids, the charge, fields
// the question never reads, the schema's field order, and how a default is
// spelled (OLH num_buckets 0 or its value, a sketch's default hash seed,
// piecewise num_cells, discrete Laplace resolution_bits) are left out, so
// none of them can buy the server a fresh answer.
//
// The fingerprint is SHA-256 over an unambiguous tagged encoding of those
// values (every string length-prefixed, every double by its bit pattern),
// as 64 lowercase hex digits.
#ifndef LDP_COMMON_TASKS_TASK_FINGERPRINT_H_
#define LDP_COMMON_TASKS_TASK_FINGERPRINT_H_

#include <string>

#include "common/queries/record_schema.h"
#include "common/tasks/task.h"

namespace ldp {

// `canonical`: TaskMechanism::canonical_task() of the task; `schema`: the
// study's record schema the question is read against.
std::string TaskFingerprint(const Task& canonical, const RecordSchema& schema);

// The key of a longitudinal question's permanent response for one value:
// SHA-256 of the question's fingerprint and the encoded item, in hex.
std::string ValueFingerprint(const std::string& fingerprint, uint32_t item);

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_TASK_FINGERPRINT_H_

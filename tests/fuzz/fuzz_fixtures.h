// Fixed schema, tasks and study shared by the libFuzzer targets, and a check
// that aborts (so libFuzzer records the input) when a property fails.
//
// The fuzzed bytes are what an attacker controls; everything here is what
// the server or agent already trusts. Building a fixture can only fail on a
// harness bug, which also aborts.
#ifndef LDP_TESTS_FUZZ_FUZZ_FIXTURES_H_
#define LDP_TESTS_FUZZ_FUZZ_FIXTURES_H_

#include <memory>
#include <vector>

#include "common/queries/record_schema.h"
#include "common/task_estimation/task_accumulator.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task_mechanism.h"

namespace ldp::fuzz {

// Aborts with `what` when `ok` is false.
void Check(bool ok, const char* what);

// protobuf's own log handler (stderr) back: the fixtures drop its messages
// about malformed bytes (fuzz_fixtures.cc), which agent_c_fuzzer must see.
void RestoreProtobufLogging();

// age int [18, 89], smoker bool, region 8 categories, income real [0, 200],
// bits 16-bit vector.
const RecordSchema& Schema();

// Records a hostile or careless agent could hold: typical, empty, wrongly
// typed, NaN and infinite, out of range, short and long bit vectors.
const std::vector<Record>& Records();

// One task per frequency oracle and per workload strategy (over region ×
// age, N = 64) and per real mechanism (E[income]), each charged generously
// so Create never refuses. The sketches (CMS, HCMS) have 8 × 128 cells and
// RAPPOR 8 cohorts, not their defaults: the targets build and estimate
// accumulators per input, and at the defaults allocating, clearing and
// decoding them was most of the targets' time (the code paths are the
// same at any size).
const std::vector<std::shared_ptr<const TaskMechanism>>& Mechanisms();

// What to build Mechanisms()[i]'s accumulators with: for a workload task,
// its strategy built once and shared, as the server does for a question's
// accumulators (task_accumulator.h); empty otherwise.
const WorkloadEstimation& Estimation(size_t i);

// deploy/examples/demo_study.textproto's shape: two queries, one histogram.
const StudySpec& Study();

}  // namespace ldp::fuzz

#endif  // LDP_TESTS_FUZZ_FUZZ_FIXTURES_H_

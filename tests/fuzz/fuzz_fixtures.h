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
#include "common/tasks/study_spec.h"
#include "common/tasks/task_mechanism.h"

namespace ldp::fuzz {

// Aborts with `what` when `ok` is false.
void Check(bool ok, const char* what);

// age int [18, 89], smoker bool, region 8 categories, income real [0, 200],
// bits 16-bit vector.
const RecordSchema& Schema();

// Records a hostile or careless agent could hold: typical, empty, wrongly
// typed, NaN and infinite, out of range, short and long bit vectors.
const std::vector<Record>& Records();

// One task per frequency oracle and per workload strategy (over region ×
// age, N = 64) and per real mechanism (E[income]), each charged generously
// so Create never refuses.
const std::vector<std::shared_ptr<const TaskMechanism>>& Mechanisms();

// deploy/examples/demo_study.textproto's shape: two queries, one histogram.
const StudySpec& Study();

}  // namespace ldp::fuzz

#endif  // LDP_TESTS_FUZZ_FUZZ_FIXTURES_H_

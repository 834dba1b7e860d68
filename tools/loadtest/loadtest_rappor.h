// ldp-loadtest's RAPPOR run (--rappor_candidates): every agent holds a
// string, "string-<item>" for its population item, in a 128-bit field
// `text`; the study asks one RAPPOR question whose candidates are those
// strings and decoys nobody holds, and the report counts what the server's
// discoveries got right: realized false-discovery proportion and recall.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_RAPPOR_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_RAPPOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "proto/convert/estimate_convert.h"

namespace ldp {

inline constexpr char kLoadtestRapporId[] = "strings";

struct RapporRun {
  uint32_t num_candidates = 0;  // the domain's strings, then decoys
  uint32_t num_strings = 0;     // the domain: strings agents may hold
  double false_discovery_rate = 0.05;
};

// InvalidArgument unless domain ≤ candidates ≤ kMaxRapporCandidates and
// q is in (0, 1).
absl::StatusOr<RapporRun> MakeRapporRun(uint32_t candidates, uint32_t domain,
                                        double q);

// The string of item v, and the schema and record that hold it.
std::string RapporString(uint32_t item);
RecordSchema RapporSchema();
Record RapporRecord(uint32_t item);

// The study: one RAPPOR question over `text` (ε, ε∞ and the seed left to
// the server).
absl::StatusOr<StudySpec> MakeRapporStudySpec(const RapporRun& run,
                                              std::string display_name,
                                              int64_t cap_nanos,
                                              double confidence,
                                              absl::Duration round_duration);

// What the discoveries got right, against the acknowledged agents' true
// frequencies per item.
struct RapporOutcome {
  int64_t discoveries = 0;
  int64_t false_discoveries = 0;  // decoys, or strings nobody reported
  int64_t held = 0;               // strings some agent reported
  int64_t found = 0;              // of those, discovered
  int64_t strong = 0;             // held at a share of at least 5 σ
  int64_t strong_found = 0;
  double sigma = 0;  // the median finite standard error
};
RapporOutcome CompareRappor(const HistogramRelease& release,
                            const std::vector<double>& truth);
std::string FormatRapporOutcome(const RapporOutcome& outcome, double q);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_RAPPOR_H_

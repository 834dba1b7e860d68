// Released estimates <-> ldp.v1.ScalarEstimate / HistogramEstimate /
// WorkloadEstimate / QuestionEstimate.
//
// The common/ estimate types carry what the accumulators compute; a released
// answer also names the ε charged, the mechanism, item labels and an
// optional consistent (post-processed) copy, so these Release structs bundle
// them. Every released number keeps its uncertainty (DESIGN invariant 6):
// histogram standard errors and per-item normal intervals are derived from
// the variances when written.
#ifndef LDP_PROTO_CONVERT_ESTIMATE_CONVERT_H_
#define LDP_PROTO_CONVERT_ESTIMATE_CONVERT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/estimation/consistency.h"
#include "common/estimation/estimate.h"
#include "common/estimation/histogram_estimate.h"
#include "common/workload/specs/workload_answer.h"
#include "proto/ldp/v1/analyst_service.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

struct ScalarRelease {
  // value, standard error, interval, confidence, n, implemented ε.
  ScalarEstimate estimate{};
  int64_t epsilon_nanos = 0;  // ε charged to each reporting agent
  std::string mechanism{};    // e.g. "hybrid" (RealMechanismKindName)
};

struct PostProcessedFrequencies {
  ConsistencyMethod method = ConsistencyMethod::kSimplexProjection;
  std::vector<double> frequencies{};
};

struct HistogramRelease {
  // n, implemented ε, unbiased frequencies and their variances.
  HistogramEstimate estimate{};
  // Coverage of the per-item normal intervals, in (0, 1).
  double confidence = 0.95;
  // One label per item (DomainEncoding::Describe), or empty.
  std::vector<std::string> labels{};
  int64_t epsilon_nanos = 0;  // ε charged to each reporting agent
  std::string mechanism{};    // e.g. "oue" (FrequencyOracleKindName)
  std::optional<PostProcessedFrequencies> post_processed{};
};

struct WorkloadRelease {
  // n, implemented ε, the band's confidence and z, answers, standard errors
  // and (if asked) consistent answers.
  WorkloadAnswer answer{};
  // One label per query (Workload::QueryLabel), or empty.
  std::vector<std::string> labels{};
  int64_t epsilon_nanos = 0;  // ε charged to each reporting agent
  std::string strategy{};     // StrategyMechanism::Describe
  std::string workload{};     // Workload::Describe
  // The strategy's predicted per-user variances (VarianceSummary).
  double predicted_v_max = 0;
  double predicted_v_avg = 0;
  // What the planner measured its choice against (StrategyDecision).
  std::string best_fixed_strategy{};
  double best_fixed_v_max = 0;
  double gamma2_lower = 0;
  double gamma2_upper = 0;
};

using EstimateRelease =
    std::variant<ScalarRelease, HistogramRelease, WorkloadRelease>;

struct NamedEstimate {
  std::string question_id{};
  EstimateRelease estimate{};
};

// Overwrite `proto`. Histograms: standard_errors = √variances, intervals =
// NormalInterval(f, se, confidence).
void ToProto(const ScalarRelease& release, v1::ScalarEstimate* proto);
void ToProto(const HistogramRelease& release, v1::HistogramEstimate* proto);
// Workloads: band = answers ∓ band_z·standard_errors (∓∞ for an infinite
// standard error).
void ToProto(const WorkloadRelease& release, v1::WorkloadEstimate* proto);
void ToProto(std::string_view question_id, const EstimateRelease& release,
             v1::QuestionEstimate* proto);

// InvalidArgument for NaN anywhere, an infinite value or frequency, a
// negative standard error (+∞ is allowed: no reports yet), an interval with
// lower > upper, confidence outside (0, 1), num_reports < 0, epsilon_nanos
// beyond int64, histogram arrays of unequal lengths (labels may be empty),
// or an unknown post-processing method or wrong-length post-processed
// vector. Histogram intervals are not read back (they are derived).
absl::StatusOr<ScalarRelease> ScalarEstimateFromProto(
    const v1::ScalarEstimate& proto);
absl::StatusOr<HistogramRelease> HistogramEstimateFromProto(
    const v1::HistogramEstimate& proto);
// Also InvalidArgument for answers, standard errors and band arrays of
// unequal lengths, labels or consistent answers neither empty nor one per
// query, a band_z or predicted variance that is negative or not finite, or
// a band with lower > upper. The band is not read back (it is derived).
absl::StatusOr<WorkloadRelease> WorkloadEstimateFromProto(
    const v1::WorkloadEstimate& proto);
// Also InvalidArgument when no estimate is set.
absl::StatusOr<NamedEstimate> QuestionEstimateFromProto(
    const v1::QuestionEstimate& proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_ESTIMATE_CONVERT_H_

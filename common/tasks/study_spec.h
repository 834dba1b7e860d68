// A study as the analyst fixes it, in plain types (the service edge
// translates `ldp.v1.StudySpec`).
#ifndef LDP_COMMON_TASKS_STUDY_SPEC_H_
#define LDP_COMMON_TASKS_STUDY_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/time/time.h"
#include "common/estimation/consistency.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/rappor/rappor_sparse_decoder.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "common/queries/record_schema.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_spec.h"

namespace ldp {

enum class StudyMode { kNoninteractive, kInteractive };

// Limits every edge enforces on a round's questions.
inline constexpr int kMaxQuestionsPerRound = 1024;
inline constexpr int kMaxQuestionIdLength = 128;

// E[φ(x)] for a statistical query φ.
struct StatisticalQueryQuestion {
  Query query;
  // The mechanism; its `epsilon` and `bound` are filled in by the planner.
  RealMechanismKind mechanism = RealMechanismKind::kHybrid;
};

// A RAPPOR question's candidates (RapporQuestion in analyst_service.proto):
// strings tested against the reports' Bloom filters of their digests.
struct CandidateStrings {
  std::vector<std::string> strings{};
  double false_discovery_rate = 0.05;
  friend bool operator==(const CandidateStrings&,
                         const CandidateStrings&) = default;
};

// Most candidates a RAPPOR question may list: what the sparse decode takes.
inline constexpr size_t kMaxRapporCandidates = kMaxCandidates;

// The histogram of an encoded domain.
struct HistogramQuestion {
  DomainEncoding encoding;
  // The oracle; unset = the lowest-variance oracle for (ε, N), chosen by the
  // planner. Its `epsilon` and `domain_size` are filled in by the planner.
  std::optional<FrequencyOracleSpec> oracle{};
  // Consistency post-processing applied to a copy of the raw estimate.
  std::optional<ConsistencyMethod> post_processing{};
  // ε∞ > 0: the question is asked repeatedly and, with `oracle` unset, the
  // planner picks the longitudinal oracle (L-GRR, L-UE or L-OLH) with the
  // lowest variance at (ε, ε∞, N). 0: a one-off question.
  double epsilon_permanent = 0;
  // Set: a RAPPOR question. The encoding is a DigestEncoding, the oracle
  // RAPPOR over its open domain, and the estimate covers these strings only.
  std::optional<CandidateStrings> candidates{};
};

// An analyst's choice of workload strategy; the planner fills in ε, N and,
// for optimized kinds, the matrix.
struct StrategyChoice {
  StrategyKind kind = StrategyKind::kIdentity;
  // kHierarchical: b ≥ 2, or 0 = the best b the planner finds.
  uint32_t branching = 0;
  friend bool operator==(const StrategyChoice&,
                         const StrategyChoice&) = default;
};

// A workload of linear queries over an encoded domain, answered together
// through one strategy (common/workload/).
struct WorkloadQuestion {
  DomainEncoding encoding;
  // Resolved against the encoding: domain_size (N) for histogram, prefix,
  // all-range and custom workloads, num_bits (d) for marginals and
  // parities, whose encoding is d bool fields.
  WorkloadSpec workload;
  // Unset = the planner's choice (smallest predicted worst-case variance).
  std::optional<StrategyChoice> strategy{};
  // Also release answers from the projected (consistent) histogram.
  bool consistency = false;
};

struct Question {
  std::string id;  // unique within the study
  std::variant<StatisticalQueryQuestion, HistogramQuestion, WorkloadQuestion>
      kind;
  // εₜ for this question in nano-ε; 0 = the planner decides.
  int64_t epsilon_nanos = 0;
  // Reports wanted; 0 = an equal share of the population.
  int64_t target_reports = 0;
};

// An interactive study's analyst program (planning/programs/), by registered
// name, with its string parameters (each program documents its own).
struct ProgramSpec {
  std::string name{};
  std::map<std::string, std::string> parameters{};
  friend bool operator==(const ProgramSpec&, const ProgramSpec&) = default;
};

// A shuffled study's central target (DESIGN invariant 9): the server alone
// learns (target_epsilon, delta)-DP from batches of at least min_batch
// reports, while each report is ε0-LDP with the planner's larger ε0.
struct ShuffleSpec {
  double target_epsilon = 0;
  double delta = 0;
  int64_t min_batch = 0;
  friend bool operator==(const ShuffleSpec&, const ShuffleSpec&) = default;
};

// Limits on a ShuffleSpec. Fewer than 100 reports hide nobody well, and
// the amplification bounds are loose there anyway.
inline constexpr int64_t kMinShuffleBatch = 100;
inline constexpr int64_t kMaxShuffleBatch = int64_t{1} << 30;
inline constexpr double kMaxShuffleTargetEpsilon = 20;

struct StudySpec {
  std::string display_name{};
  RecordSchema schema;
  int64_t epsilon_cap_nanos = 0;  // per agent, for the whole study
  StudyMode mode = StudyMode::kNoninteractive;
  // Noninteractive: the study's only round. Interactive: empty, the program
  // asks every round.
  std::vector<Question> questions{};
  // Interactive studies only.
  std::optional<ProgramSpec> program{};
  double confidence = 0.95;  // 1 − β of every interval
  int64_t quorum = 0;        // close early at this many reports per question
  absl::Duration round_duration = absl::Hours(1);
  // No round starts at or after this time (InfiniteFuture: no deadline).
  absl::Time deadline = absl::InfiniteFuture();
  // Set: reports arrive sealed, in shuffled batches (noninteractive only).
  std::optional<ShuffleSpec> shuffle{};
};

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_STUDY_SPEC_H_

// Builds any frequency oracle from one plain spec, and picks the oracle with
// the lowest variance for (ε, N).
//
// The spec is what a task carries (after the service edge has translated the
// wire message), so agent and server construct the very same oracle.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_ORACLE_FACTORY_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_ORACLE_FACTORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"

namespace ldp {

struct FrequencyOracleSpec {
  FrequencyOracleKind kind = FrequencyOracleKind::kOptimizedUnaryEncoding;
  double epsilon = 0;
  uint32_t domain_size = 0;
  // Kind-specific parameters; 0 selects the mechanism's own default.
  uint32_t num_buckets = 0;      // local hashing: g
  uint32_t subset_size = 0;      // subset selection: k
  uint32_t num_hashes = 0;       // sketches: rows; RAPPOR: hashes h
  uint32_t num_columns = 0;      // sketches: columns m; RAPPOR: bits k
  uint64_t hash_seed = 0;        // sketches, RAPPOR: public hash family
  double epsilon_permanent = 0;  // L-UE, L-GRR, L-OLH, RAPPOR: ε∞ (> ε)
  uint32_t rows_per_item = 0;    // Hadamard response: t (0 = 1, one block)
  uint32_t sampled_buckets = 0;  // dBitFlipPM: d
  uint32_t num_cohorts = 0;      // RAPPOR: C
  friend bool operator==(const FrequencyOracleSpec&,
                         const FrequencyOracleSpec&) = default;
};

absl::StatusOr<std::unique_ptr<FrequencyOracle>> CreateFrequencyOracle(
    const FrequencyOracleSpec& spec);

struct OracleCandidate {
  FrequencyOracleSpec spec;
  double unit_variance = 0;  // n · Var[f̂_v] at f_v = 0
  int64_t report_bits = 0;   // payload size of one report
};

struct OracleChoice {
  OracleCandidate chosen;
  // Every oracle considered, best first; for logs and "why this one".
  std::vector<OracleCandidate> candidates;
  std::string reason;
};

struct ChooserOptions {
  // Exclude oracles whose reports exceed this many bits (0: no limit).
  int64_t max_report_bits = 0;
  // Among oracles within this relative variance of the best, take the one
  // with the smallest reports: at ε = 1, N = 1024 subset selection beats
  // local hashing by 0.3% but sends 2750 bits instead of 66.
  double variance_slack = 0.01;
};

// Considers GRR, OUE, SUE, OLH, subset selection and Hadamard response
// (for N ≤ 2^20, where the server can decode every item) or the Hadamard
// count-mean sketch (larger N), builds each, and keeps the one with the
// smallest implemented variance (up to `variance_slack`, then the smallest
// reports).
absl::StatusOr<OracleChoice> ChooseFrequencyOracle(
    double epsilon, uint32_t domain_size, const ChooserOptions& options = {});

// For a question asked repeatedly: considers L-UE, L-GRR and L-OLH at
// (ε1 = epsilon, ε∞ = epsilon_permanent, N) and keeps the one with the
// smallest variance of one report's estimate (same slack and size rule).
// dBitFlipPM is not a candidate: its reports repeat the memo, so ε1 = ε∞
// and it answers a different budget.
absl::StatusOr<OracleChoice> ChooseLongitudinalOracle(
    double epsilon, double epsilon_permanent, uint32_t domain_size,
    const ChooserOptions& options = {});

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_ORACLE_FACTORY_H_

// The contract every frequency oracle (local randomizer for an item of a
// domain [N], plus its server-side estimator) meets.
//
// An oracle object is immutable and thread-safe; client and server build the
// same oracle from the same task parameters. It is *transparent*:
// `Probability` gives Pr[R(v) = w] exactly, computed from the integer coin
// thresholds it really flips (coin.h), so tests can check the e^ε ratio
// bound by enumeration. `epsilon()` is the implemented ε derived from those
// integers; it never exceeds the ε the oracle was created for.
//
// Accumulators are the server side: mergeable sufficient statistics (counts)
// that turn into unbiased estimates with closed-form variances. They are
// thread-compatible; shard one per ingest thread and `Merge`. Their
// statistics also read out as plain numbers (`State`) to be stored and
// merged back in later (`MergeState`).
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_ORACLE_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_ORACLE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "common/estimation/accumulator_state.h"
#include "common/estimation/histogram_estimate.h"
#include "common/mechanisms/frequency/frequency_report.h"

namespace ldp {

// The server stores these by ordinal (storage.proto's FrequencyOracle.kind):
// append new kinds, never reorder.
enum class FrequencyOracleKind {
  kGeneralizedRandomizedResponse,  // GRR / k-RR / direct encoding
  kOptimizedUnaryEncoding,         // OUE
  kSymmetricUnaryEncoding,         // SUE = basic one-time RAPPOR
  kOptimizedLocalHashing,          // OLH
  kSubsetSelection,                // Ye–Barg
  kHadamardResponse,               // Acharya–Sun–Zhang
  kCountMeanSketch,                // Apple CMS
  kHadamardCountMeanSketch,        // Apple HCMS
  kLongitudinalUnaryEncoding,      // memoized permanent + instantaneous layer
  kLongitudinalGrr,                // L-GRR: memoized GRR + instantaneous GRR
  kLongitudinalLocalHashing,       // L-OLH: memoized hashed GRR + instantaneous
  kDBitFlip,                       // Microsoft's dBitFlipPM, permanent output
  kRappor,                         // Bloom filters, cohorts, PRR + IRR
};

std::string_view FrequencyOracleKindName(FrequencyOracleKind kind);

class FrequencyAccumulator;

class FrequencyOracle {
 public:
  virtual ~FrequencyOracle() = default;

  virtual FrequencyOracleKind kind() const = 0;
  virtual uint32_t domain_size() const = 0;
  // Implemented ε: max over v, v', w of ln(Pr[R(v)=w] / Pr[R(v')=w]).
  virtual double epsilon() const = 0;

  // Randomizes `item`. Items ≥ domain_size() are clamped to the last item, so
  // every call yields exactly one well-formed report (DESIGN invariant 8);
  // encoding records into [N] is the caller's job.
  virtual FrequencyReport Randomize(uint32_t item,
                                    absl::BitGenRef gen) const = 0;

  // Exact Pr[R(item) = report], conditioned on the report's public
  // components (see frequency_report.h). Zero for reports R never outputs.
  virtual double Probability(uint32_t item,
                             const FrequencyReport& report) const = 0;

  // InvalidArgument unless `report` is a shape this oracle can output.
  virtual absl::Status Validate(const FrequencyReport& report) const = 0;

  virtual std::unique_ptr<FrequencyAccumulator> NewAccumulator() const = 0;

  // Closed-form Var[f̂_v] with n reports when the true frequency is f_v.
  virtual double Variance(double frequency, int64_t num_reports) const = 0;
};

class FrequencyAccumulator {
 public:
  virtual ~FrequencyAccumulator() = default;

  // Validates and counts one report; an invalid report changes nothing.
  virtual absl::Status Add(const FrequencyReport& report) = 0;
  // Adds another accumulator of the same oracle (InvalidArgument otherwise).
  virtual absl::Status Merge(const FrequencyAccumulator& other) = 0;
  virtual int64_t num_reports() const = 0;
  virtual HistogramEstimate Estimate() const = 0;

  // The sufficient statistics as plain numbers (accumulator_state.h), so a
  // shard's statistics can be stored and merged later. Each accumulator
  // documents its layout; none holds oracle parameters.
  virtual AccumulatorState State() const = 0;
  // Adds a state read from an accumulator of the same oracle:
  // a.MergeState(b.State()) leaves `a` exactly as a.Merge(b) would (the same
  // Estimate, bit for bit). The state may come from a damaged or hostile
  // store, so this is a trust boundary: InvalidArgument, and no change,
  // unless it has exactly this accumulator's shape (the lengths this
  // oracle's parameters fix), num_reports ≥ 0, no negative count that
  // cannot be negative, no count beyond what num_reports allows (where
  // that is cheap to check) and finite reals. Which oracle wrote the state
  // it cannot tell: as with Merge, that is the caller's to know.
  virtual absl::Status MergeState(const AccumulatorState& state) = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_ORACLE_H_

// The server's side of one RAPPOR task (rappor.h): per cohort, the reports
// and the ones of each bit, decoded on demand by rappor_decoder.h.
#ifndef LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_ACCUMULATOR_H_
#define LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_ACCUMULATOR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/rappor/rappor_decoder.h"

namespace ldp {

class RapporAccumulator final : public FrequencyAccumulator {
 public:
  // For an oracle over [domain_size] with these filters, one report's bit
  // protocol and implemented ε (Rappor::NewAccumulator).
  RapporAccumulator(uint32_t domain_size, RapporBloom bloom, PureProtocol bit,
                    double epsilon);

  absl::Status Add(const FrequencyReport& report) override;
  // Merges only an accumulator of an equal oracle (same ε, N and filters).
  absl::Status Merge(const FrequencyAccumulator& other) override;
  int64_t num_reports() const override { return num_reports_; }
  // The weighted least-squares fit over every item of [N]. When the cohorts
  // with reports cannot yet tell the items apart (few reports), every
  // frequency is 0 with an infinite variance.
  HistogramEstimate Estimate() const override;
  // counts: the reports per cohort n_c (num_cohorts values, summing to
  // num_reports), then the ones y_ci of every cohort's bits at
  // num_cohorts + c·k + i (each in [0, n_c]).
  AccumulatorState State() const override;
  absl::Status MergeState(const AccumulatorState& state) override;

  const RapporCounts& counts() const { return counts_; }
  const RapporDecoder& decoder() const { return decoder_; }
  // A decode over `candidates` only (items of [N]), for dictionary
  // questions and the significance cut (RapporDiscoveries).
  absl::StatusOr<RapporFit> FitCandidates(
      absl::Span<const uint32_t> candidates) const;

 private:
  uint32_t domain_size_;
  RapporDecoder decoder_;  // the filters and one report's bit protocol
  double epsilon_;
  RapporCounts counts_;
  int64_t num_reports_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_ACCUMULATOR_H_

// The whole server-side state of a pure frequency protocol whose reports
// name the items they support (GRR: one item; subset selection: k items):
// one int64 support count C_v per item and the number of reports n, which
// PureProtocol (pure_protocol.h; Wang, Blocki, Li, Jha, USENIX Security
// 2017) turns into unbiased frequencies.
//
// Why a value type and not a base class: accumulators hold one, so their
// Add stays a non-virtual, inlined increment with no allocation, and each
// keeps its own report validation and merge-compatibility key.
#ifndef LDP_COMMON_ESTIMATION_SUPPORT_COUNTS_H_
#define LDP_COMMON_ESTIMATION_SUPPORT_COUNTS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/estimation/accumulator_state.h"
#include "common/estimation/histogram_estimate.h"
#include "common/estimation/pure_protocol.h"

namespace ldp {

class SupportCounts {
 public:
  // `epsilon` is the implemented ε, copied into every estimate.
  SupportCounts(uint32_t num_items, PureProtocol protocol, double epsilon)
      : protocol_(protocol), epsilon_(epsilon), counts_(num_items, 0) {}

  // Counts one report that supports `item` alone. The caller has validated
  // the report, so item < num_items.
  void AddReport(uint32_t item) {
    ++counts_[item];
    ++num_reports_;
  }
  // Counts one report that supports each of `items` (validated, each
  // < num_items).
  void AddReport(absl::Span<const uint32_t> items) {
    for (uint32_t item : items) ++counts_[item];
    ++num_reports_;
  }

  // Adds the counts of `other`, which the caller has checked comes from the
  // same oracle (so it has the same num_items and protocol).
  void Merge(const SupportCounts& other);

  // counts: C_v for every item (num_items values).
  AccumulatorState State() const;
  // Adds a State() of the same oracle: `state` must be num_items counts,
  // each in [0, num_reports], that sum to items_per_report · num_reports
  // (every report supports exactly that many items). InvalidArgument, and
  // no change, otherwise; the message starts with `accumulator`.
  absl::Status MergeState(const AccumulatorState& state,
                          std::string_view accumulator,
                          int64_t items_per_report);

  int64_t num_reports() const { return num_reports_; }
  absl::Span<const int64_t> counts() const { return counts_; }

  HistogramEstimate Estimate() const;

 private:
  PureProtocol protocol_;
  double epsilon_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_SUPPORT_COUNTS_H_

// A workload: m linear queries over a domain [N], answered as fractions of
// the population (W·h with h the normalized histogram).
//
// Structured workloads (histogram, prefix, all ranges, k-way marginals,
// parities) never materialize W: all ranges at N = 1024 is 524,800 × 1024.
// Every consumer (reconstruction, variance, the γ₂ and strategy optimizers)
// goes through the few products below, which each kind answers in closed
// form or with cumulative sums; a custom matrix answers them densely.
//
// Bit vectors: for marginals and parities the domain is {0,1}^d, N = 2^d,
// and bit i (0-based) of the record is bit d−1−i of the index x, so a
// product encoding over d bool fields (first field most significant) lines
// up with bits 0..d−1 in declared order.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/specs/workload_spec.h"

namespace ldp {

// Immutable, copyable (shares its data), thread-safe.
class Workload {
 public:
  // InvalidArgument (naming the field) for N outside [1,
  // kMaxWorkloadDomainSize], d outside [1, 12] or k outside [1, d] for
  // bit workloads, a custom matrix of the wrong size, out-of-range or
  // repeated sparse entries, non-finite values, an all-zero custom
  // workload, or a label count that is neither 0 nor m.
  static absl::StatusOr<Workload> Create(WorkloadSpec spec);

  const WorkloadSpec& spec() const;
  WorkloadKind kind() const;
  uint32_t domain_size() const;  // N
  uint64_t num_queries() const;  // m
  // "x ≤ 17", "17 ≤ x ≤ 40", "b1=0 b4=1", "b1⊕b4", or the custom label
  // (or "q<j>").
  std::string QueryLabel(uint64_t j) const;
  // A short description: "prefix N=1024", "2-way marginals d=8".
  std::string Describe() const;

  // W·h (m values).
  Eigen::VectorXd Answer(const Eigen::VectorXd& h) const;
  // Wᵀ·diag(p)·W (N×N); p has m entries. Gram() is p = 1.
  Eigen::MatrixXd WeightedGram(const Eigen::VectorXd& p) const;
  Eigen::MatrixXd Gram() const;
  // (w_jᵀ·S·w_j) for every query j (m values); S is N×N symmetric.
  Eigen::VectorXd QuadraticForms(const Eigen::MatrixXd& S) const;
  // Calls visit(first, rows) with rows = (W·B)[first .. first+b) for
  // consecutive blocks of at most `block_rows` queries covering all m;
  // B is N×k. How reconstructed answers are computed without holding an
  // m×k matrix.
  void ForEachProjectedBlock(
      const Eigen::MatrixXd& B, int block_rows,
      const std::function<void(uint64_t first, const Eigen::MatrixXd& rows)>&
          visit) const;
  // The whole m×N matrix; only for m·N ≤ 2^26 (tests, small optimizers).
  absl::StatusOr<Eigen::MatrixXd> Dense() const;

  struct Data;  // internal

 private:
  explicit Workload(std::shared_ptr<const Data> data)
      : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_H_

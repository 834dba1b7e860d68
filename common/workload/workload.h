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
#ifndef LDP_COMMON_WORKLOAD_WORKLOAD_H_
#define LDP_COMMON_WORKLOAD_WORKLOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"

namespace ldp {

enum class WorkloadKind {
  kHistogram,  // m = N: f_x for every x
  kPrefix,     // m = N: Pr[x ≤ t] for t = 0..N−1 (the CDF)
  kAllRange,   // m = N(N+1)/2: Pr[a ≤ x ≤ b], ordered by a, then b
  kMarginals,  // m = C(d,k)·2^k: Pr[x_S = v], S k-subsets in lexicographic
               // order, v ∈ {0,1}^k with S's first bit most significant
  kParities,   // m = Σ_{1≤i≤k} C(d,i): Pr[⊕_{i∈T} x_i = 1], T ordered by
               // weight, then lexicographically
  kCustom,     // a matrix from the study file
};

std::string_view WorkloadKindName(WorkloadKind kind);

struct SparseEntry {
  uint32_t row = 0;
  uint32_t column = 0;
  double value = 0;
};

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kHistogram;
  uint32_t domain_size = 0;  // N: histogram, prefix, all ranges, custom
  uint32_t num_bits = 0;     // d: marginals, parities (N = 2^d)
  uint32_t order = 0;        // k: marginal order, largest parity weight
  // Custom only: m rows, given either densely (row-major, m·N values) or as
  // sparse entries (each (row, column) at most once). Optional labels, one
  // per row.
  uint32_t num_queries = 0;
  std::vector<double> dense{};
  std::vector<SparseEntry> sparse{};
  std::vector<std::string> labels{};
};

// Limits every edge enforces (the optimizers are cubic in N).
inline constexpr uint32_t kMaxWorkloadDomainSize = 4096;
inline constexpr uint32_t kMaxCustomWorkloadQueries = 1u << 16;
inline constexpr uint64_t kMaxCustomWorkloadEntries = uint64_t{1} << 22;

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
  explicit Workload(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_WORKLOAD_H_

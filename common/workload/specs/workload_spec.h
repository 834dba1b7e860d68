// What a workload is, as a study file and the wire describe it: its kind,
// shape and (custom) matrix. Plain data without Eigen, so study and task
// headers that every file includes stay cheap to compile; workload.h turns
// a spec into the queries' products.
#ifndef LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_SPEC_H_
#define LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_SPEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ldp {

enum class WorkloadKind {
  kHistogram,  // m = N: f_x for every x
  kPrefix,     // m = N: Pr[x ≤ t] for t = 0..N−1 (the CDF)
  kAllRange,   // m = N(N+1)/2: Pr[a ≤ x ≤ b], ordered by a, then b
  kMarginals,  // m = C(d,k)·2^k: Pr[x_S = v], S k-subsets in lexicographic
               // order, v ∈ {0,1}^k with S's first bit most significant
  kParities,  // m = Σ_{1≤i≤k} C(d,i): Pr[⊕_{i∈T} x_i = 1], T ordered by
              // weight, then lexicographically
  kCustom,  // a matrix from the study file
  // m = Σ k_j: Pr[x_j = v] for d categorical attributes of sizes k_j
  // (N = Π k_j, x_j the j-th mixed-radix digit, the first most
  // significant), attribute by attribute, v ascending.
  kAttributeMarginals,
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
  std::vector<uint32_t> attribute_sizes{};  // attribute marginals: k_j
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

// The number of queries m of `spec`, or InvalidArgument naming the first
// thing wrong with it: exactly the checks Workload::Create makes, without
// building anything (workload_spec.cc, no Eigen), for code that must refuse
// a bad workload but never computes with one.
absl::StatusOr<uint64_t> CheckWorkloadSpec(const WorkloadSpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_SPEC_H_

// CheckWorkloadSpec (workload_spec.h): the checks Workload::Create makes, on
// the spec alone and without Eigen, so that the wire conversion refuses a
// bad workload in the same words without linking the linear algebra.
#include "common/workload/specs/workload_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/workload/specs/strategy_spec.h"  // kMaxStrategyAttributes

namespace ldp {
namespace {

constexpr uint32_t kMaxBits = 12;

// C(n, k), exact for the n ≤ kMaxBits used here.
uint64_t Choose(uint32_t n, uint32_t k) {
  uint64_t r = 1;
  for (uint32_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

absl::Status CheckDomainSize(uint32_t n) {
  if (n < 1) {
    return absl::InvalidArgumentError(
        "workload.domain_size must be at least 1");
  }
  if (n > kMaxWorkloadDomainSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.domain_size ", n, " exceeds ", kMaxWorkloadDomainSize));
  }
  return absl::OkStatus();
}

absl::Status CheckDense(const WorkloadSpec& spec, uint64_t entries) {
  if (!spec.sparse.empty()) {
    return absl::InvalidArgumentError(
        "custom workload gives both workload.dense and workload.sparse; "
        "give one");
  }
  if (spec.dense.size() != entries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.dense has ", spec.dense.size(), " values; expected ",
        "num_queries × domain_size = ", entries));
  }
  const uint32_t n = spec.domain_size;
  for (uint64_t i = 0; i < entries; ++i) {
    if (!std::isfinite(spec.dense[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.dense[", i, "] (row ", i / n, ", column ",
                       i % n, ") is not finite"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSparse(const WorkloadSpec& spec) {
  const uint32_t m = spec.num_queries, n = spec.domain_size;
  std::vector<uint64_t> seen;
  seen.reserve(spec.sparse.size());
  for (size_t i = 0; i < spec.sparse.size(); ++i) {
    const SparseEntry& e = spec.sparse[i];
    if (e.row >= m) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.sparse[", i, "].row ", e.row,
                       " is not below num_queries ", m));
    }
    if (e.column >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.sparse[", i, "].column ", e.column,
                       " is not below domain_size ", n));
    }
    if (!std::isfinite(e.value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.sparse[", i, "].value is not finite"));
    }
    seen.push_back(uint64_t{e.row} * n + e.column);
  }
  std::sort(seen.begin(), seen.end());
  const auto dup = std::adjacent_find(seen.begin(), seen.end());
  if (dup != seen.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.sparse repeats the entry (row ", *dup / n,
                     ", column ", *dup % n, ")"));
  }
  return absl::OkStatus();
}

// A custom matrix: its shape within the limits, one of dense or sparse,
// finite entries, each sparse entry once, not all zero. Returns m.
absl::StatusOr<uint64_t> CheckCustom(const WorkloadSpec& spec) {
  const uint32_t m = spec.num_queries, n = spec.domain_size;
  if (m < 1 || m > kMaxCustomWorkloadQueries) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.num_queries ", m, " is outside [1, ",
                     kMaxCustomWorkloadQueries, "]"));
  }
  const uint64_t entries = uint64_t{m} * n;
  if (entries > kMaxCustomWorkloadEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom workload has ", m, " × ", n, " = ", entries,
        " entries, over the limit of ", kMaxCustomWorkloadEntries));
  }
  const absl::Status entries_ok =
      spec.dense.empty() ? CheckSparse(spec) : CheckDense(spec, entries);
  if (!entries_ok.ok()) return entries_ok;
  const auto nonzero = [](double v) { return v != 0; };
  const bool any =
      std::any_of(spec.dense.begin(), spec.dense.end(), nonzero) ||
      std::any_of(spec.sparse.begin(), spec.sparse.end(),
                  [](const SparseEntry& e) { return e.value != 0; });
  if (!any) {
    return absl::InvalidArgumentError(
        "custom workload matrix is all zero: no query to answer");
  }
  return m;
}

// Marginals and parities: d, k and a domain size of 0 or 2^d. Returns m.
absl::StatusOr<uint64_t> CheckBits(const WorkloadSpec& s) {
  if (s.num_bits < 1 || s.num_bits > kMaxBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.num_bits ", s.num_bits, " is outside [1, ", kMaxBits, "]"));
  }
  if (s.order < 1 || s.order > s.num_bits) {
    return absl::InvalidArgumentError(absl::StrCat("workload.order ", s.order,
                                                   " is outside [1, ",
                                                   s.num_bits, "] (num_bits)"));
  }
  const uint32_t n = uint32_t{1} << s.num_bits;
  if (s.domain_size != 0 && s.domain_size != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.domain_size ", s.domain_size, " does not match 2^",
        s.num_bits, " = ", n, " for num_bits ", s.num_bits));
  }
  if (s.kind == WorkloadKind::kMarginals) {
    return Choose(s.num_bits, s.order) << s.order;
  }
  uint64_t m = 0;
  for (uint32_t w = 1; w <= s.order; ++w) m += Choose(s.num_bits, w);
  return m;
}

// Attribute marginals: 1 to 12 sizes of at least 2 whose product is the
// domain (at most kMaxWorkloadDomainSize); m = Σ k_j.
absl::StatusOr<uint64_t> CheckAttributes(const WorkloadSpec& s) {
  if (s.attribute_sizes.empty() ||
      s.attribute_sizes.size() > kMaxStrategyAttributes) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute marginals need 1 to ", kMaxStrategyAttributes,
                     " attributes, got ", s.attribute_sizes.size()));
  }
  uint64_t n = 1, m = 0;
  for (uint32_t k : s.attribute_sizes) {
    if (k < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute marginals: every attribute needs at least 2 values, got ",
          k));
    }
    n *= k;
    m += k;
    if (n > kMaxWorkloadDomainSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute marginals: the attributes' product domain exceeds ",
          kMaxWorkloadDomainSize, " items (bucketize a field)"));
    }
  }
  if (s.domain_size != 0 && s.domain_size != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.domain_size ", s.domain_size,
                     " does not match the attributes' product ", n));
  }
  return m;
}

// A structured workload takes no matrix, and a stated query count must
// match its kind's m.
absl::Status CheckStructured(const WorkloadSpec& s, uint64_t m) {
  if (!s.dense.empty() || !s.sparse.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.dense and workload.sparse are only for custom "
                     "workloads, not ",
                     std::string(WorkloadKindName(s.kind))));
  }
  if (s.num_queries != 0 && s.num_queries != m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.num_queries ", s.num_queries, " does not match the ", m,
        " queries of ", std::string(WorkloadKindName(s.kind))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<uint64_t> CheckWorkloadSpec(const WorkloadSpec& spec) {
  absl::StatusOr<uint64_t> m;
  switch (spec.kind) {
    case WorkloadKind::kHistogram:
    case WorkloadKind::kPrefix:
    case WorkloadKind::kAllRange:
      if (absl::Status st = CheckDomainSize(spec.domain_size); !st.ok()) {
        return st;
      }
      m = spec.kind == WorkloadKind::kAllRange
              ? uint64_t{spec.domain_size} * (spec.domain_size + 1) / 2
              : spec.domain_size;
      break;
    case WorkloadKind::kMarginals:
    case WorkloadKind::kParities:
      m = CheckBits(spec);
      break;
    case WorkloadKind::kCustom:
      if (absl::Status st = CheckDomainSize(spec.domain_size); !st.ok()) {
        return st;
      }
      m = CheckCustom(spec);
      break;
    case WorkloadKind::kAttributeMarginals:
      m = CheckAttributes(spec);
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "workload.kind ", static_cast<int>(spec.kind), " is unknown"));
  }
  if (!m.ok()) return m;
  if (spec.kind != WorkloadKind::kCustom) {
    if (absl::Status st = CheckStructured(spec, *m); !st.ok()) return st;
  }
  if (!spec.labels.empty() && spec.labels.size() != *m) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.labels has ", spec.labels.size(),
                     " labels; expected 0 or one per query (", *m, ")"));
  }
  return m;
}

}  // namespace ldp

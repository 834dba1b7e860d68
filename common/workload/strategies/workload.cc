// Workloads of linear queries (workload.h): validation, labels and the
// dense matrix. The products every consumer needs are in
// workload_products.cc and workload_projection.cc; the index arithmetic they
// share in workload_internal.h.
//
// Per kind:
//  - histogram: W = I.
//  - prefix: row t = 1[x ≤ t]; products are cumulative sums.
//  - all ranges: row (a,b) = 1[a ≤ x ≤ b], a then b; products are
//    differences of cumulative sums and 2-D block sums.
//  - marginals: row (S,v) = 1[x_S = v]; each subset S partitions the domain
//    into 2^k cells, so per-subset loops touch each x once (or each pair in
//    a cell once).
//  - parities: row T = 1[χ_T(x) = −1] = (1 − χ_T(x))/2, so products reduce to
//    Walsh–Hadamard transforms (m can be 4095 at d = 12, where per-row loops
//    over N² pairs would be far too slow).
//  - custom: a dense Eigen matrix.
//  - attribute marginals: the same dense matrix, built from the sizes (m
//    is Σ k_j, at most 48 rows of at most 4096 items).
#include "common/workload/strategies/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/workload/strategies/workload_internal.h"

namespace ldp {
namespace {

using workload_internal::RangeAt;
using workload_internal::XBit;

constexpr uint64_t kMaxDenseEntries = uint64_t{1} << 26;

// All subsets of {0..d−1} of size `size`, in lexicographic order.
void AppendSubsets(uint32_t d, uint32_t size,
                   std::vector<std::vector<uint32_t>>& out) {
  std::vector<uint32_t> s(size);
  for (uint32_t i = 0; i < size; ++i) s[i] = i;
  while (true) {
    out.push_back(s);
    int i = static_cast<int>(size) - 1;
    while (i >= 0 && s[i] == d - size + static_cast<uint32_t>(i)) --i;
    if (i < 0) return;
    ++s[i];
    for (uint32_t j = static_cast<uint32_t>(i) + 1; j < size; ++j) {
      s[j] = s[j - 1] + 1;
    }
  }
}

// The custom matrix of a spec CheckWorkloadSpec accepted.
void BuildCustom(Workload::Data& data) {
  const WorkloadSpec& spec = data.spec;
  const uint32_t n = spec.domain_size;
  data.custom = Eigen::MatrixXd::Zero(spec.num_queries, n);
  for (uint64_t i = 0; i < spec.dense.size(); ++i) {
    data.custom(i / n, i % n) = spec.dense[i];
  }
  for (const SparseEntry& e : spec.sparse)
    data.custom(e.row, e.column) = e.value;
}

// Row (j, v) = 1[x_j = v], x_j the j-th mixed-radix digit of x.
void BuildAttributes(Workload::Data& data) {
  WorkloadSpec& s = data.spec;
  uint32_t n = 1;
  for (uint32_t k : s.attribute_sizes) n *= k;
  s.domain_size = n;
  data.custom = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(data.m), n);
  uint32_t place = n, first_row = 0;
  for (uint32_t k : s.attribute_sizes) {
    place /= k;
    for (uint32_t x = 0; x < n; ++x)
      data.custom(first_row + (x / place) % k, x) = 1;
    first_row += k;
  }
}

// Marginals and parities of a spec CheckWorkloadSpec accepted: d, k,
// N = 2^d and the subsets (with their masks).
void BuildBits(Workload::Data& data) {
  WorkloadSpec& s = data.spec;
  const uint32_t n = uint32_t{1} << s.num_bits;
  s.domain_size = n;
  data.n = n;
  data.d = s.num_bits;
  data.k = s.order;
  if (s.kind == WorkloadKind::kMarginals) {
    AppendSubsets(s.num_bits, s.order, data.subsets);
  } else {
    for (uint32_t w = 1; w <= s.order; ++w) {
      AppendSubsets(s.num_bits, w, data.subsets);
    }
  }
  for (const auto& subset : data.subsets) {
    uint32_t mask = 0;
    for (uint32_t bit : subset) mask |= XBit(data.d, bit);
    data.masks.push_back(mask);
  }
}

}  // namespace

absl::StatusOr<Workload> Workload::Create(WorkloadSpec spec) {
  const absl::StatusOr<uint64_t> m = CheckWorkloadSpec(spec);
  if (!m.ok()) return m.status();
  auto data = std::make_shared<Data>();
  data->spec = std::move(spec);
  WorkloadSpec& s = data->spec;
  data->m = *m;
  if (s.kind == WorkloadKind::kMarginals || s.kind == WorkloadKind::kParities) {
    BuildBits(*data);
  } else {
    if (s.kind == WorkloadKind::kAttributeMarginals) BuildAttributes(*data);
    data->n = s.domain_size;
    if (s.kind == WorkloadKind::kCustom) BuildCustom(*data);
    s.num_bits = s.order = 0;
  }
  s.num_queries = static_cast<uint32_t>(data->m);
  return Workload(std::move(data));
}

const WorkloadSpec& Workload::spec() const { return data_->spec; }
WorkloadKind Workload::kind() const { return data_->spec.kind; }
uint32_t Workload::domain_size() const { return data_->n; }
uint64_t Workload::num_queries() const { return data_->m; }

std::string Workload::QueryLabel(uint64_t j) const {
  const Data& w = *data_;
  if (!w.spec.labels.empty() && j < w.spec.labels.size()) {
    return w.spec.labels[j];
  }
  switch (w.spec.kind) {
    case WorkloadKind::kHistogram:
      return absl::StrCat("x = ", j);
    case WorkloadKind::kPrefix:
      return absl::StrCat("x ≤ ", j);
    case WorkloadKind::kAllRange: {
      const auto [a, b] = RangeAt(w.n, j);
      return absl::StrCat(a, " ≤ x ≤ ", b);
    }
    case WorkloadKind::kMarginals: {
      const auto& subset = w.subsets[j >> w.k];
      const uint64_t v = j & ((uint64_t{1} << w.k) - 1);
      std::string label;
      for (uint32_t l = 0; l < w.k; ++l) {
        absl::StrAppend(&label, l == 0 ? "" : " ", "b", subset[l], "=",
                        (v >> (w.k - 1 - l)) & 1);
      }
      return label;
    }
    case WorkloadKind::kParities: {
      std::string label;
      for (size_t l = 0; l < w.subsets[j].size(); ++l) {
        absl::StrAppend(&label, l == 0 ? "" : "⊕", "b", w.subsets[j][l]);
      }
      return label;
    }
    case WorkloadKind::kCustom:
      return absl::StrCat("q", j);
    case WorkloadKind::kAttributeMarginals: {
      uint64_t row = j;
      for (size_t a = 0; a < w.spec.attribute_sizes.size(); ++a) {
        if (row < w.spec.attribute_sizes[a])
          return absl::StrCat("a", a, "=", row);
        row -= w.spec.attribute_sizes[a];
      }
      return absl::StrCat("q", j);
    }
  }
  return absl::StrCat("q", j);
}

std::string Workload::Describe() const {
  const Data& w = *data_;
  switch (w.spec.kind) {
    case WorkloadKind::kHistogram:
      return absl::StrCat("histogram N=", w.n);
    case WorkloadKind::kPrefix:
      return absl::StrCat("prefix N=", w.n);
    case WorkloadKind::kAllRange:
      return absl::StrCat("all ranges N=", w.n);
    case WorkloadKind::kMarginals:
      return absl::StrCat(w.k, "-way marginals d=", w.d);
    case WorkloadKind::kParities:
      return absl::StrCat("parities of weight ≤ ", w.k, " d=", w.d);
    case WorkloadKind::kCustom:
      return absl::StrCat("custom m=", w.m, " N=", w.n);
    case WorkloadKind::kAttributeMarginals:
      return absl::StrCat("1-way marginals of ", w.spec.attribute_sizes.size(),
                          " attributes N=", w.n);
  }
  return "workload";
}

absl::StatusOr<Eigen::MatrixXd> Workload::Dense() const {
  const Data& w = *data_;
  const uint32_t n = w.n;
  if (w.m * n > kMaxDenseEntries) {
    return absl::FailedPreconditionError(
        absl::StrCat(Describe(), " has ", w.m, " × ", n,
                     " entries, too many to materialize (limit 2^26)"));
  }
  Eigen::MatrixXd out =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(w.m), n);
  // Straight from the row definitions (workload.h), independent of the
  // closed forms above so tests can compare the two.
  for (uint64_t j = 0; j < w.m; ++j) {
    switch (w.spec.kind) {
      case WorkloadKind::kHistogram:
        out(j, j) = 1;
        break;
      case WorkloadKind::kPrefix:
        for (uint32_t x = 0; x <= j; ++x) out(j, x) = 1;
        break;
      case WorkloadKind::kAllRange: {
        const auto [a, b] = RangeAt(n, j);
        for (uint32_t x = a; x <= b; ++x) out(j, x) = 1;
        break;
      }
      case WorkloadKind::kMarginals: {
        const auto& subset = w.subsets[j >> w.k];
        const uint64_t v = j & ((uint64_t{1} << w.k) - 1);
        for (uint32_t x = 0; x < n; ++x) {
          bool match = true;
          for (uint32_t l = 0; l < w.k; ++l) {
            const uint64_t want = (v >> (w.k - 1 - l)) & 1;
            const uint32_t bit = (x >> (w.d - 1 - subset[l])) & 1;
            match = match && bit == want;
          }
          out(j, x) = match ? 1 : 0;
        }
        break;
      }
      case WorkloadKind::kParities:
        for (uint32_t x = 0; x < n; ++x) {
          uint32_t parity = 0;
          for (uint32_t bit : w.subsets[j])
            parity ^= (x >> (w.d - 1 - bit)) & 1;
          out(j, x) = parity;
        }
        break;
      case WorkloadKind::kCustom:
        return w.custom;
      case WorkloadKind::kAttributeMarginals: {
        // From the row definition, not from the matrix Create built.
        const auto& sizes = w.spec.attribute_sizes;
        uint64_t row = j;
        uint32_t a = 0, place = n;
        while (row >= sizes[a]) row -= sizes[a++];
        for (uint32_t b = 0; b <= a; ++b) place /= sizes[b];
        for (uint32_t x = 0; x < n; ++x)
          out(j, x) = (x / place) % sizes[a] == row;
        break;
      }
    }
  }
  return out;
}

}  // namespace ldp
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
#include "common/workload/workload.h"

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
#include "common/workload/workload_internal.h"

namespace ldp {
namespace {

using workload_internal::RangeAt;
using workload_internal::XBit;

constexpr uint32_t kMaxBits = 12;
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

absl::Status BuildCustom(Workload::Data& data) {
  const WorkloadSpec& spec = data.spec;
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
  data.custom = Eigen::MatrixXd::Zero(m, n);
  if (!spec.dense.empty()) {
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
    for (uint64_t i = 0; i < entries; ++i) {
      const double value = spec.dense[i];
      if (!std::isfinite(value)) {
        return absl::InvalidArgumentError(
            absl::StrCat("workload.dense[", i, "] (row ", i / n, ", column ",
                         i % n, ") is not finite"));
      }
      data.custom(i / n, i % n) = value;
    }
  } else {
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
      data.custom(e.row, e.column) = e.value;
    }
    std::sort(seen.begin(), seen.end());
    const auto dup = std::adjacent_find(seen.begin(), seen.end());
    if (dup != seen.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.sparse repeats the entry (row ", *dup / n,
                       ", column ", *dup % n, ")"));
    }
  }
  if (data.custom.cwiseAbs().maxCoeff() == 0) {
    return absl::InvalidArgumentError(
        "custom workload matrix is all zero: no query to answer");
  }
  data.m = m;
  return absl::OkStatus();
}


// Marginals and parities: d, k, N = 2^d and the subsets (with their masks).
absl::Status BuildBits(Workload::Data& data) {
  WorkloadSpec& s = data.spec;
  if (s.num_bits < 1 || s.num_bits > kMaxBits) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.num_bits ", s.num_bits, " is outside [1, ",
                     kMaxBits, "]"));
  }
  if (s.order < 1 || s.order > s.num_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.order ", s.order, " is outside [1, ",
                     s.num_bits, "] (num_bits)"));
  }
  const uint32_t n = uint32_t{1} << s.num_bits;
  if (s.domain_size != 0 && s.domain_size != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.domain_size ", s.domain_size, " does not match 2^",
        s.num_bits, " = ", n, " for num_bits ", s.num_bits));
  }
  s.domain_size = n;
  data.n = n;
  data.d = s.num_bits;
  data.k = s.order;
  if (s.kind == WorkloadKind::kMarginals) {
    AppendSubsets(s.num_bits, s.order, data.subsets);
    data.m = uint64_t{data.subsets.size()} << s.order;
  } else {
    for (uint32_t w = 1; w <= s.order; ++w) {
      AppendSubsets(s.num_bits, w, data.subsets);
    }
    data.m = data.subsets.size();
  }
  for (const auto& subset : data.subsets) {
    uint32_t mask = 0;
    for (uint32_t bit : subset) mask |= XBit(data.d, bit);
    data.masks.push_back(mask);
  }
  return absl::OkStatus();
}

// A structured workload takes no matrix, and a stated query count must
// match its kind's.
absl::Status CheckStructured(const Workload::Data& data) {
  const WorkloadSpec& s = data.spec;
  if (!s.dense.empty() || !s.sparse.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.dense and workload.sparse are only for custom "
                     "workloads, not ",
                     std::string(WorkloadKindName(s.kind))));
  }
  if (s.num_queries != 0 && s.num_queries != data.m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.num_queries ", s.num_queries, " does not match the ",
        data.m, " queries of ", std::string(WorkloadKindName(s.kind))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Workload> Workload::Create(WorkloadSpec spec) {
  auto data = std::make_shared<Data>();
  data->spec = std::move(spec);
  WorkloadSpec& s = data->spec;
  switch (s.kind) {
    case WorkloadKind::kHistogram:
    case WorkloadKind::kPrefix:
    case WorkloadKind::kAllRange: {
      if (absl::Status st = CheckDomainSize(s.domain_size); !st.ok()) return st;
      data->n = s.domain_size;
      data->m = s.kind == WorkloadKind::kAllRange
                    ? uint64_t{s.domain_size} * (s.domain_size + 1) / 2
                    : s.domain_size;
      s.num_bits = s.order = 0;
      break;
    }
    case WorkloadKind::kMarginals:
    case WorkloadKind::kParities:
      if (absl::Status st = BuildBits(*data); !st.ok()) return st;
      break;
    case WorkloadKind::kCustom: {
      if (absl::Status st = CheckDomainSize(s.domain_size); !st.ok()) return st;
      data->n = s.domain_size;
      if (absl::Status st = BuildCustom(*data); !st.ok()) return st;
      s.num_bits = s.order = 0;
      break;
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "workload.kind ", static_cast<int>(s.kind), " is unknown"));
  }
  if (s.kind != WorkloadKind::kCustom) {
    if (absl::Status st = CheckStructured(*data); !st.ok()) return st;
  }
  s.num_queries = static_cast<uint32_t>(data->m);
  if (!s.labels.empty() && s.labels.size() != data->m) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.labels has ", s.labels.size(),
                     " labels; expected 0 or one per query (", data->m, ")"));
  }
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
    }
  }
  return out;
}

}  // namespace ldp
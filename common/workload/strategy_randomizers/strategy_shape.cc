// Shape checks of matrix-shaped strategy specs; see the header.
#include "common/workload/strategy_randomizers/strategy_shape.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/validation.h"
#include "common/workload/specs/workload_spec.h"  // kMaxWorkloadDomainSize

namespace ldp {

absl::Status CheckStrategyShape(const StrategySpec& spec, StrategyKind kind,
                                std::string_view name_view) {
  const std::string name(
      name_view);  // absl::StrCat takes no std::string_view here
  if (spec.kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": spec.kind must be ", std::string(StrategyKindName(kind))));
  }
  if (absl::Status s = ValidateEpsilon(name, spec.epsilon); !s.ok()) return s;
  if (absl::Status s =
          ValidateDomainSize(name, spec.domain_size, 1, kMaxWorkloadDomainSize);
      !s.ok()) {
    return s;
  }
  const uint64_t rows = spec.rows, n = spec.domain_size;
  if (rows == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": rows must be >= 1"));
  }
  if (rows * n > kMaxInProcessStrategyMatrixEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": rows x domain_size = ", rows * n, " exceeds ",
        kMaxInProcessStrategyMatrixEntries, " entries (use fewer rows)"));
  }
  if (spec.matrix.size() != rows * n) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": matrix must hold rows x domain_size = ", rows * n,
                     " values (row-major), got ", spec.matrix.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckAttributeSizes(const StrategySpec& spec,
                                 std::string_view name_view) {
  const std::string name(name_view);
  const std::vector<uint32_t>& sizes = spec.attribute_sizes;
  if (sizes.empty() || sizes.size() > kMaxStrategyAttributes) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": attribute_sizes has ", sizes.size(),
                     " entries; it needs 1 to ", kMaxStrategyAttributes));
  }
  uint64_t product = 1;
  for (uint32_t k : sizes) {
    if (k < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": every attribute size must be at least 2, got ", k));
    }
    product *= k;
    if (product > kMaxWorkloadDomainSize) break;
  }
  if (product != spec.domain_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": the attribute sizes (", absl::StrJoin(sizes, " × "),
        ") must multiply to the domain size ", spec.domain_size));
  }
  return absl::OkStatus();
}

}  // namespace ldp

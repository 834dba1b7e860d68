// Builds any bounded-real mechanism from one plain spec (what a statistical-
// query task carries once the service edge has translated it), so agent and
// server construct the very same mechanism.
#ifndef LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_FACTORY_H_
#define LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_FACTORY_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

struct RealMechanismSpec {
  RealMechanismKind kind = RealMechanismKind::kHybrid;
  double epsilon = 0;
  // Inputs live in [-bound, bound]. A query with output range [lo, hi] uses
  // bound = (hi − lo)/2 and randomizes φ − (lo + hi)/2 (see task.h).
  double bound = 1;
  // Kind-specific parameters; 0 selects the mechanism's own default.
  int resolution_bits = 0;  // discrete Laplace: lattice step bound / 2^k
  int64_t num_cells = 0;    // piecewise and hybrid: output cells
};

absl::StatusOr<std::unique_ptr<RealMechanism>> CreateRealMechanism(
    const RealMechanismSpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_FACTORY_H_

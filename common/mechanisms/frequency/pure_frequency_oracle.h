// A frequency oracle that is a pure protocol (pure_protocol.h): its
// variance is the pure protocol's closed form at the implemented (p, q), so
// that formula is written once here. Generalized randomized response, the
// unary encodings, subset selection, local hashing, Hadamard response and
// the longitudinal encoding derive from it.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_PURE_FREQUENCY_ORACLE_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_PURE_FREQUENCY_ORACLE_H_

#include <cstdint>

#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"

namespace ldp {

class PureFrequencyOracle : public FrequencyOracle {
 public:
  // The implemented pure-protocol parameters (p and q from the coins).
  virtual PureProtocol protocol() const = 0;

  double Variance(double frequency, int64_t num_reports) const final {
    return protocol().Variance(frequency, num_reports);
  }
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_PURE_FREQUENCY_ORACLE_H_

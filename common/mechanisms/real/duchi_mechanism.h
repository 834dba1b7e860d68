// Duchi, Jordan and Wainwright's one-bit mean mechanism ("Minimax optimal
// procedures for locally private estimation", JASA 2018), the same
// randomizer Microsoft deployed as 1BitMean (Ding, Kulkarni, Yekhanin,
// NeurIPS 2017).
//
// The agent sends one sign: + with probability
//   P(+ | x) = 1/2 + x (e^ε − 1) / (2b (e^ε + 1)),
// and the server decodes ± C·b with C = (e^ε + 1)/(e^ε − 1). Why one bit: for
// small ε its worst-case variance (C b)² is within a constant of optimal,
// and a report is as small and as simple to audit as a report can be.
//
// Integer coins: x is first randomized-rounded to one of the endpoints ±b
// (pre-processing, real_input.h), then the agent flips the endpoint's coin,
// P(+ | −b) = A / 2^32 or P(+ | +b) = 1 − A / 2^32, with the integer A
// rounded up from 2^32/(e^ε + 1). P(+ | x) is then exactly affine in the
// rounding probability, so decoding ± C'·b with C' = 2^32 / (2^32 − 2A),
// computed from the implemented A, is exactly unbiased, and the implemented
// ε = ln((2^32 − A) / A) ≤ the requested ε.
#ifndef LDP_COMMON_MECHANISMS_REAL_DUCHI_MECHANISM_H_
#define LDP_COMMON_MECHANISMS_REAL_DUCHI_MECHANISM_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

struct DuchiOptions {
  double epsilon = 1.0;
  double bound = 1.0;
};

class DuchiMechanism final : public RealMechanism {
 public:
  // The two report levels.
  static constexpr int64_t kMinus = -1;
  static constexpr int64_t kPlus = 1;

  static absl::StatusOr<std::unique_ptr<DuchiMechanism>> Create(
      const DuchiOptions& options);

  RealMechanismKind kind() const override { return RealMechanismKind::kDuchi; }
  double epsilon() const override { return epsilon_; }
  double bound() const override { return bound_; }

  ScalarReport Randomize(double x, absl::BitGenRef gen) const override;
  double Probability(double x, const ScalarReport& report) const override;
  absl::Status Validate(const ScalarReport& report) const override;
  double Decode(const ScalarReport& report) const override;
  double DecodeBound() const override { return output_magnitude_; }
  // C'²b² − x²: every report decodes to ±C'b, so E[Decode²] = C'²b².
  double Variance(double x) const override;
  double WorstCaseVariance() const override;

  // Pr[+ | x = −b] (the implemented 1/(e^ε + 1)).
  CoinProbability plus_at_lower_bound() const { return plus_at_lower_; }
  // C'·b, the magnitude every report decodes to.
  double output_magnitude() const { return output_magnitude_; }

 private:
  DuchiMechanism(double bound, CoinProbability plus_at_lower, double epsilon);

  // Pr[+ | x], mixing the two endpoint coins by the rounding weights.
  double PlusProbability(double x) const;

  double bound_;
  CoinProbability plus_at_lower_;
  double epsilon_;
  double output_magnitude_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_DUCHI_MECHANISM_H_

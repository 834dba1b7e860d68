// The ℓ2-ball randomizer of Duchi, Jordan and Wainwright (JASA 2018) for a
// factorization's strategy A, with the report compressed to a public
// direction seed and one sign bit (factorization-and-sq.md §1).
//
// Agent with item x, v = a_x:
//  1. Ṽ = +v/‖v‖ with probability ½ + ‖v‖/2, else −v/‖v‖ (E[Ṽ] = v; for
//     v = 0, ±e₁ with probability ½ each);
//  2. a 64-bit seed s, drawn independently of x; U = the unit vector the
//     seed names (UnitDirection below, identical on agent and server);
//  3. with probability π = e^ε/(1+e^ε) send the sign σ with ⟨σU, Ṽ⟩ ≥ 0,
//     otherwise the other one.
// Both probabilities are exact integer coins (coin.h); π is rounded down,
// so epsilon() = ln(π/(1−π)) of the coin used never exceeds the request.
// The seed is public and independent of x, so Pr[bit | s, x] alone decides
// the privacy loss: for either Ṽ it is π or 1−π, a ratio ≤ π/(1−π).
//
// Sums here run in index order (plain loops, not Eigen's vectorized
// reductions, which the agent no longer links): a projection may differ
// from the Eigen build in its last bit, which changes a sign only within
// rounding of zero.
#include "common/workload/strategy_randomizers/vector_randomizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/workload/strategy_randomizers/strategy_shape.h"

namespace ldp {
namespace {

double Norm(const double* v, int64_t size, int64_t stride) {
  double squares = 0;
  for (int64_t i = 0; i < size; ++i) squares += v[i * stride] * v[i * stride];
  return std::sqrt(squares);
}

// Pr[bit | U, Ṽ] for a given Ṽ: π when the bit's sign agrees with Ṽ.
double BitGivenDirection(CoinProbability agree, double projection,
                         uint32_t bit) {
  const uint32_t agreeing_bit = projection >= 0 ? 1 : 0;
  return bit == agreeing_bit ? agree.value() : agree.Complement().value();
}

// The shape, then every entry finite, before any entry is used.
absl::Status CheckVectorShape(const StrategySpec& spec) {
  if (absl::Status s = CheckStrategyShape(spec, StrategyKind::kFactorization,
                                          "vector strategy");
      !s.ok()) {
    return s;
  }
  for (double v : spec.matrix) {
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(
          "vector strategy: matrix entries must be finite");
    }
  }
  return absl::OkStatus();
}

// Each item's unit direction and Ṽ coin; InvalidArgument for a column
// outside the unit ball.
absl::Status AddDirections(VectorRandomizer::Parts& parts) {
  const int64_t d = parts.spec.rows, n = parts.spec.domain_size;
  parts.directions.assign(static_cast<size_t>(d * n), 0.0);
  for (int64_t x = 0; x < n; ++x) {
    const double* column = parts.spec.matrix.data() + x;
    const double norm = Norm(column, d, n);
    if (norm > 1 + 1e-9) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vector strategy: column ", x, " of the matrix has norm ", norm,
          " > 1 (scale A so that every column lies in the unit ball)"));
    }
    // An item no query asks about has a zero column: any unit direction,
    // each sign with probability ½, keeps E[Ṽ] = 0.
    double* direction = parts.directions.data() + x * d;
    for (int64_t i = 0; i < d; ++i) {
      direction[i] = norm > 0 ? column[i * n] / norm : (i == 0 ? 1.0 : 0.0);
    }
    // Pr[Ṽ = +v/‖v‖] = (1 + ‖v‖)/2, to the nearest 2^-32.
    const double p = std::min(1.0, (1 + norm) / 2);
    parts.plus.push_back(CoinProbability::FromNumerator(static_cast<uint64_t>(
        std::llround(p * static_cast<double>(CoinProbability::kDenominator)))));
  }
  return absl::OkStatus();
}

}  // namespace

// d standard Gaussians by Box–Muller from a SplitMix64 stream seeded with
// s, normalized. This is not privacy noise (s is drawn independently of
// the item and sent in the clear); it only has to be the same function on
// agent and server, which is why it is fixed here rather than taken from a
// library distribution.
std::vector<double> UnitDirection(uint64_t seed, int64_t d) {
  uint64_t state = seed;
  auto next_unit = [&state] {  // uniform in (0, 1]
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>((z >> 11) + 1) * 0x1.0p-53;
  };
  std::vector<double> u(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; i += 2) {
    const double radius = std::sqrt(-2.0 * std::log(next_unit()));
    const double angle = 2.0 * std::numbers::pi * next_unit();
    u[i] = radius * std::cos(angle);
    if (i + 1 < d) u[i + 1] = radius * std::sin(angle);
  }
  const double norm = Norm(u.data(), d, 1);
  if (!(norm > 0)) {
    std::fill(u.begin(), u.end(), 0.0);
    u[0] = 1;
    return u;
  }
  for (double& v : u) v /= norm;
  return u;
}

std::string VectorRandomizer::Describe() const {
  return absl::StrCat("factorization rank=", rank(), ", l2-ball randomizer");
}

double VectorRandomizer::Projection(const std::vector<double>& u,
                                    int64_t x) const {
  const double* direction = parts_.directions.data() + x * rank();
  double dot = 0;
  for (int64_t i = 0; i < rank(); ++i) dot += u[i] * direction[i];
  return dot;
}

WorkloadReport VectorRandomizer::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  const int64_t x = std::min<int64_t>(item, parts_.spec.domain_size - 1);
  const bool plus = FlipCoin(parts_.plus[x], gen);
  const uint64_t seed = gen();
  const bool agree = FlipCoin(parts_.agree, gen);
  double projection = Projection(UnitDirection(seed, rank()), x);
  if (!plus) projection = -projection;
  const uint32_t agreeing_bit = projection >= 0 ? 1 : 0;
  return WorkloadReport{
      .group = 0,
      .inner = HashedReport{.seed = seed,
                            .bucket = agree ? agreeing_bit : 1 - agreeing_bit}};
}

double VectorRandomizer::Probability(uint32_t item,
                                     const WorkloadReport& report) const {
  if (!Validate(report).ok()) return 0;
  const int64_t x = std::min<int64_t>(item, parts_.spec.domain_size - 1);
  const HashedReport& hashed = std::get<HashedReport>(report.inner);
  const double projection = Projection(UnitDirection(hashed.seed, rank()), x);
  const double p_plus = parts_.plus[x].value();
  return p_plus * BitGivenDirection(parts_.agree, projection, hashed.bucket) +
         (1 - p_plus) *
             BitGivenDirection(parts_.agree, -projection, hashed.bucket);
}

absl::Status VectorRandomizer::Validate(const WorkloadReport& report) const {
  if (report.group != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector strategy: report group must be 0, got ", report.group));
  }
  const HashedReport* hashed = std::get_if<HashedReport>(&report.inner);
  if (hashed == nullptr) {
    return absl::InvalidArgumentError(
        "vector strategy: a report must carry a hashed report (direction "
        "seed and sign bit)");
  }
  if (hashed->bucket > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector strategy: the sign bit (bucket) must be 0 or 1, got ",
        hashed->bucket));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const VectorRandomizer>> CreateVectorRandomizer(
    const StrategySpec& spec) {
  if (absl::Status s = CheckVectorShape(spec); !s.ok()) return s;
  VectorRandomizer::Parts parts;
  parts.spec = spec;
  if (absl::Status s = AddDirections(parts); !s.ok()) return s;
  // π rounded down so the implemented ε never exceeds the request.
  const double e = std::exp(spec.epsilon);
  parts.agree = CoinProbability::RoundDown(e / (1 + e));
  const double pi = parts.agree.value();
  if (!(pi > 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vector strategy: epsilon ", spec.epsilon,
                     " is too small for a 32-bit coin to implement"));
  }
  // ln(π/(1−π)) ≤ ε exactly; min() only absorbs the log's last-ulp error.
  parts.epsilon = std::min(std::log(pi / (1 - pi)), spec.epsilon);
  return std::make_shared<const VectorRandomizer>(std::move(parts));
}

}  // namespace ldp

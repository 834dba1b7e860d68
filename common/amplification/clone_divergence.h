// The conditional hockey-stick divergence at the heart of the numerical
// amplification bound (Feldman, McMillan, Talwar, "Hiding among the clones",
// FOCS 2021).
//
// Their reduction: for any pure ε0-LDP randomizer, what the analyzer sees of
// n shuffled reports on two neighbouring datasets is a post-processing of
// the pair P, Q on (A + Δ, C − A + 1 − Δ) and (A + 1 − Δ, C − A + Δ), with
// C ~ Bin(n − 1, e^−ε0) clones of the protected report, A ~ Bin(C, 1/2)
// and Δ ~ Bern(α), α = e^ε0/(1 + e^ε0). C is seen by both sides, so with
// b_c the Bin(c, 1/2) pmf and, for a = 0..c+1,
//
//   P_c(a) = α·b_c(a) + (1 − α)·b_c(a − 1),
//   Q_c(a) = α·b_c(a − 1) + (1 − α)·b_c(a),
//
// the shuffled protocol is (ε, δ(ε))-DP with δ(ε) = Σ_c Pr[C = c]·D_c(ε) and
// D_c(ε) = Σ_a max(0, P_c(a) − e^ε·Q_c(a)). Two facts make this cheap:
//  * Q_c(a) = P_c(c + 1 − a), so the reverse divergence D(Q_c‖P_c) is the
//    same number: one direction suffices.
//  * D_c is non-increasing in c: (P_{c+1}, Q_{c+1}) is (P_c, Q_c) with an
//    independent fair coin added to A, a post-processing. So the largest D_c
//    over a block of c values is at one of the block's two ends.
//
// Why a hand-written sum and not two binomial CDFs: P_c(a) − e^ε·Q_c(a) =
// b_c(a)·(A − B·a/(c − a + 1)) with A = α − e^ε(1 − α), B = e^ε·α − (1 − α),
// positive exactly for a up to a cutoff k, so D_c is a sum of positive terms
// with no cancellation; the CDF difference A·F(k) − B·F(k − 1) loses all
// digits when D_c is far below F(k).
#ifndef LDP_COMMON_AMPLIFICATION_CLONE_DIVERGENCE_H_
#define LDP_COMMON_AMPLIFICATION_CLONE_DIVERGENCE_H_

#include <cstdint>

namespace ldp {

// Every conditional bound is at least this: it absorbs the terms lost when
// b_c underflows (below 1e-308, at most 1e10 of them).
inline constexpr double kCloneDivergenceFloor = 1e-280;

// D_c(ε) for one ε0 and ε and any number of clones c.
class CloneDivergence {
 public:
  // ε0 > 0 finite (validated by the caller), ε ≥ 0.
  CloneDivergence(double epsilon0, double epsilon);

  // Guarantee: ≥ D_c(ε), and above it by a relative 1e-10 for c ≤ 1000,
  // 1e-5 for c ≤ 1e8 (plus the floor). The lgamma value anchoring the sum
  // (glibc: a few ulps) is allowed 16 ulps of (c + 2)·ln(c + 2), the ratio
  // recurrence 4 ulps a step, and the terms past the stopping point are bounded
  // by a geometric series and added. Zero when ε ≥ ε0.
  double UpperBound(int64_t clones) const;

 private:
  // Whether the term at a is positive: A·(c − a + 1) > B·a.
  bool PositiveTerm(int64_t clones, int64_t a) const;
  // The last a with a positive term, or −1 if none.
  int64_t LastPositiveTerm(int64_t clones) const;

  double a_coefficient_;  // A = α − e^ε(1 − α)
  double b_coefficient_;  // B = e^ε·α − (1 − α)
};

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_CLONE_DIVERGENCE_H_

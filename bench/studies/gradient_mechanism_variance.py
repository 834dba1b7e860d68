#!/usr/bin/env python3
"""Which way of reporting a D-coordinate gradient gives the least noise.

Closed forms only (no data, no randomness); standard library only. For a
round of n agents estimating a mean gradient whose coordinates are clipped
to [-c, c], it prints each scheme's worst-case variance of ONE
coordinate's estimate, times n / c^2 (lower is better):

  coordinate, noise    one coordinate per agent, the mechanism's noise
                       alone: D * V(eps), V the smallest worst-case
                       mechanism variance (Duchi, piecewise or hybrid, with
                       the factory's defaults). Leaves out the spread of the
                       clipped gradient between agents.
  coordinate, bound    the same with that spread (at most c^2): D * R(eps),
                       R = max_x (V(x) + x^2) of that mechanism, a bound
                       over any population.
  k of D, planner      each agent reports k coordinates of k blocks, each at
                       eps/k; a coordinate gets about k*n/D reports:
                       ceil(D/k) * R(eps/k), at the k that minimizes it (Wang
                       et al., ICDE 2019; planning/programs/gradient_plan.h,
                       whose choice this mirrors). Counting the noise alone,
                       D * V(eps/k) / k, k = 1 would always win.
  l2 ball, r = c*sqrt(D)  Duchi, Jordan and Wainwright's l2 mechanism on the
                       gradient clipped to the ball that holds every
                       coordinate-clipped one: E[Z_j^2] = B^2 / D (whatever
                       the population: a bound with the spread) with
                       B = r / (tanh(eps/2) * c_D), c_D = Gamma(D/2) /
                       (sqrt(pi) * Gamma((D+1)/2)) (the formula
                       common/workload/strategies/vector_strategy.cc decodes with).
  linf cube            Duchi et al.'s l-infinity mechanism on [-c, c]^D:
                       every coordinate is +-B, B = C_D / tanh(eps/2), C_D as
                       in Wang et al. 2019, Algorithm 3.

Also printed: r*, the l2 clipping radius below which the l2 ball's bound
would beat the planner's k of D (in units of c*sqrt(D)).

Run: python3 bench/studies/gradient_mechanism_variance.py [--dims 31,65]
"""
import argparse
import math


def piecewise(eps, x2):
    a = math.exp(eps / 2)
    return x2 / (a - 1) + (a + 3) / (3 * (a - 1) ** 2)


def duchi(eps, x2):
    b = 1 / math.tanh(eps / 2)
    return b * b - x2


def hybrid(eps, x2):
    alpha = 1 - math.exp(-eps / 2) if eps > 0.61 else 0.0
    return alpha * piecewise(eps, x2) + (1 - alpha) * duchi(eps, x2)


def best_scalar(eps):
    """(V, R) of the mechanism with the smallest worst-case variance V over
    x in [-1, 1]; R = max (V(x) + x^2). Both are linear in x^2."""
    return min((max(f(eps, x2) for x2 in (0.0, 1.0)),
                max(f(eps, x2) + x2 for x2 in (0.0, 1.0)))
               for f in (duchi, piecewise, hybrid))


def planner(eps, dims):
    """(ceil(D/k) * R(eps/k), k) at the best k <= min(D, 16)."""
    return min((math.ceil(dims / k) * best_scalar(eps / k)[1], k)
               for k in range(1, min(dims, 16) + 1))


def l2_ball(eps, dims):
    c_d = math.exp(math.lgamma(dims / 2) - math.lgamma((dims + 1) / 2))
    c_d /= math.sqrt(math.pi)
    b = math.sqrt(dims) / (math.tanh(eps / 2) * c_d)
    return b * b / dims


def linf_cube(eps, dims):
    if dims % 2 == 1:
        c_d = 2 ** (dims - 1) / math.comb(dims - 1, (dims - 1) // 2)
    else:
        c_d = (2 ** (dims - 1) + math.comb(dims, dims // 2) / 2) / math.comb(
            dims - 1, dims // 2)
    return (c_d / math.tanh(eps / 2)) ** 2


def fmt(value):
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", default="31,65",
                        help="gradient lengths D (features + 1), comma-separated")
    parser.add_argument("--epsilon", default="0.5,1,2,4,8,16")
    args = parser.parse_args()
    print("| D | eps | coordinate, noise | coordinate, bound | k of D, planner"
          " (k) | l2 ball, r = c*sqrt(D) | linf cube | r* / (c*sqrt(D)) |")
    print("|---|---|---|---|---|---|---|---|")
    for dims in (int(v) for v in args.dims.split(",")):
        for eps in (float(v) for v in args.epsilon.split(",")):
            noise, bound = best_scalar(eps)
            best, k = planner(eps, dims)
            l2 = l2_ball(eps, dims)
            print(f"| {dims} | {eps:g} | {fmt(dims * noise)} | "
                  f"{fmt(dims * bound)} | {fmt(best)} ({k}) | "
                  f"{fmt(l2)} | {fmt(linf_cube(eps, dims))} | "
                  f"{math.sqrt(best / l2):.2f} |")


if __name__ == "__main__":
    main()

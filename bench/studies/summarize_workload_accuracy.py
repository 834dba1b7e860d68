#!/usr/bin/env python3
"""Summarizes bench/reports/results/workload_accuracy.csv as Markdown: one table per
workload and ε (rows: mechanism × n) with the large-n limit (the planner's
figure), the prediction at n, the measurement and their ratio, then a final
check that every measured/predicted ratio lies within ±10%. Several CSV files
(e.g. one per part of the grid) are read in order; a row of a later file
replaces an earlier one for the same workload, ε, n and mechanism (a partial
rerun, e.g. --mechanisms=haar), and a later file that marks the planner's
choice for a workload, ε and n takes the mark from earlier rows there."""
import csv
import sys
from statistics import NormalDist
from collections import OrderedDict


def main(paths):
    latest = OrderedDict()
    for path in paths:
        new_rows = list(csv.DictReader(open(path)))
        rechosen = {(r["workload"], r["epsilon"], r["n"]) for r in new_rows
                    if r["mechanism"].endswith(" *")}
        for key, r in latest.items():
            if key[:3] in rechosen:
                r["mechanism"] = r["mechanism"].removesuffix(" *")
        for r in new_rows:
            key = (r["workload"], r["epsilon"], r["n"],
                   r["mechanism"].removesuffix(" *"))
            latest[key] = r
    rows = list(latest.values())
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["workload"], r["epsilon"]), []).append(r)
    # Headline: per workload and ε, the planner's choice (marked *) next to
    # the best fixed strategy, the factorization's γ₂ certificate and naive
    # answering. "worst" is what the planner minimizes: the worst query at
    # the worse of point-mass and uniform data; the uniform part is read back
    # from the 95% bound z·sqrt(max_j v_j(uniform)/n) at the largest n.
    print("## The planner's choice per workload and ε\n")
    print("Per-user variances in the large-n limit (point-mass v_max as in the"
          " reference tables; worst = max over point masses and uniform data)."
          "\n")
    print("| workload | ε | chosen | v_max | worst | v_avg | best fixed | v_max | worst"
          " | γ₂ certified | naive v_max |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def worst_of(r):
        m, n = float(r["m"]), float(r["n"])
        z = NormalDist().inv_cdf(1 - 0.025 / m)
        uniform = n * (float(r["bound_max_error_95"]) / z) ** 2
        return max(float(r["limit_v_max"]), uniform)

    for (workload, eps), items in groups.items():
        top_n = max(int(r["n"]) for r in items)
        same_n = [r for r in items if int(r["n"]) == top_n]
        chosen = next((r for r in same_n if r["mechanism"].endswith(" *")), None)
        fixed = [r for r in same_n
                 if not r["mechanism"].startswith(("optimized", "factorization", "naive"))]
        best = min(fixed, key=worst_of, default=None)
        fact = next((r for r in same_n if r["mechanism"].startswith("factorization")), None)
        naive = next((r for r in same_n if r["mechanism"].startswith("naive")), None)
        if chosen is None or best is None or naive is None:
            continue
        gamma = (f"[{float(fact['gamma2_lower']):.5g}, {float(fact['gamma2_upper']):.5g}]"
                 if fact else "—")
        print(f"| {workload} | {eps} | {chosen['mechanism'][:-2]}"
              f" | {float(chosen['limit_v_max']):.4g} | {worst_of(chosen):.4g}"
              f" | {float(chosen['limit_v_avg']):.4g}"
              f" | {best['mechanism'].removesuffix(' *')}"
              f" | {float(best['limit_v_max']):.4g} | {worst_of(best):.4g}"
              f" | {gamma} | {float(naive['limit_v_max']):.4g} |")
    print()
    worst = []
    for (workload, eps), items in groups.items():
        first = items[0]
        print(f"### {workload} (N = {first['N']}, m = {first['m']}), ε = {eps}\n")
        print("| mechanism | n | v_max limit | v_max pred | v_max meas | ratio"
              " | v_avg limit | v_avg pred | v_avg meas | ratio | max err 95% bound"
              " | max err meas |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in items:
            rmax = float(r["measured_v_max"]) / float(r["predicted_v_max"])
            ravg = float(r["measured_v_avg"]) / float(r["predicted_v_avg"])
            worst.append((max(abs(rmax - 1), abs(ravg - 1)), workload, eps, r["n"],
                          r["mechanism"], rmax, ravg))
            print(f"| {r['mechanism']} | {int(r['n']):,} | {float(r['limit_v_max']):.4g}"
                  f" | {float(r['predicted_v_max']):.4g}"
                  f" | {float(r['measured_v_max']):.4g} | {rmax:.3f}"
                  f" | {float(r['limit_v_avg']):.4g}"
                  f" | {float(r['predicted_v_avg']):.4g} | {float(r['measured_v_avg']):.4g}"
                  f" | {ravg:.3f} | {float(r['bound_max_error_95']):.4f}"
                  f" | {float(r['measured_max_error']):.4f} |")
        print()
    worst.sort(reverse=True)
    outside = [w for w in worst if w[0] > 0.10]
    print(f"**{len(worst)} rows; {len(outside)} with a measured/predicted ratio outside"
          f" [0.9, 1.1].**")
    for w in worst[:5]:
        print(f"- {w[1]} ε={w[2]} n={w[3]} {w[4]}: v_max ratio {w[5]:.3f},"
              f" v_avg ratio {w[6]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])

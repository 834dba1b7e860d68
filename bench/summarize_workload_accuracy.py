#!/usr/bin/env python3
"""Summarizes bench/results/workload_accuracy.csv as Markdown: one table per
workload and ε (rows: mechanism × n) with the large-n limit (the planner's
figure), the prediction at n, the measurement and their ratio, then a final
check that every measured/predicted ratio lies within ±10%. Several CSV files
(e.g. one per part of the grid) are read in order."""
import csv
import sys
from collections import OrderedDict


def main(paths):
    rows = [r for path in paths for r in csv.DictReader(open(path))]
    groups = OrderedDict()
    for r in rows:
        groups.setdefault((r["workload"], r["epsilon"]), []).append(r)
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

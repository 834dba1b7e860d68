#!/usr/bin/env python3
"""Plots per-run CSV results of an experiment as an SVG line chart.

Why by hand: the plot must come out of a clean Debian machine with nothing
but python3, so this writes SVG directly instead of needing matplotlib.

Usage: plot_experiment.py RUNS.csv OUT.svg --x d --group learner \
         --y exact:"exact runs (fraction)" --y error:"mean error"
Each --y is COLUMN:TITLE; one panel per --y, one line per group, the value
averaged over the rows sharing (group, x).
"""
import argparse
import csv
import collections
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def panel(out, rows, x_col, group_col, y_col, title, left, top, w, h):
    sums = collections.defaultdict(lambda: [0.0, 0])
    for r in rows:
        key = (r[group_col], float(r[x_col]))
        sums[key][0] += float(r[y_col])
        sums[key][1] += 1
    groups = sorted({g for g, _ in sums})
    xs = sorted({x for _, x in sums})
    ys = [s / n for s, n in sums.values()]
    y_max = max(max(ys), 1e-9)
    y_max = 1.0 if y_max > 0.5 else 0.5 if y_max > 0.25 else 0.3
    # x positions evenly spaced by rank: d grows geometrically.
    def px(x):
        return left + 50 + (w - 70) * (xs.index(x) / max(1, len(xs) - 1))

    def py(y):
        return top + h - 30 - (h - 60) * (y / y_max)

    out.append(f'<text x="{left + w / 2}" y="{top + 15}" text-anchor="middle" '
               f'font-weight="bold">{title}</text>')
    out.append(f'<line x1="{left + 50}" y1="{py(0)}" x2="{left + w - 20}" '
               f'y2="{py(0)}" stroke="black"/>')
    out.append(f'<line x1="{left + 50}" y1="{py(0)}" x2="{left + 50}" '
               f'y2="{py(y_max)}" stroke="black"/>')
    for i in range(5):
        y = y_max * i / 4
        out.append(f'<text x="{left + 45}" y="{py(y) + 4}" text-anchor="end" '
                   f'font-size="11">{y:.2f}</text>')
        out.append(f'<line x1="{left + 50}" y1="{py(y)}" x2="{left + w - 20}" '
                   f'y2="{py(y)}" stroke="#ddd"/>')
    for x in xs:
        out.append(f'<text x="{px(x)}" y="{py(0) + 16}" text-anchor="middle" '
                   f'font-size="11">{x:g}</text>')
    out.append(f'<text x="{left + w / 2}" y="{top + h}" text-anchor="middle" '
               f'font-size="12">{x_col}</text>')
    for gi, g in enumerate(groups):
        color = COLORS[gi % len(COLORS)]
        pts = [(px(x), py(sums[(g, x)][0] / sums[(g, x)][1]))
               for x in xs if (g, x) in sums]
        out.append('<polyline fill="none" stroke-width="2" stroke="%s" '
                   'points="%s"/>' % (color, " ".join(f"{a},{b}" for a, b in pts)))
        for a, b in pts:
            out.append(f'<circle cx="{a}" cy="{b}" r="3" fill="{color}"/>')
        out.append(f'<text x="{left + 60}" y="{top + 32 + 14 * gi}" '
                   f'font-size="11" fill="{color}">{g}</text>')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("svg")
    parser.add_argument("--x", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--y", action="append", required=True)
    args = parser.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{args.csv} has no rows")
    w, h = 420, 300
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(args.y)}" '
           f'height="{h}" font-family="sans-serif">',
           f'<rect width="100%" height="100%" fill="white"/>']
    for i, spec in enumerate(args.y):
        column, _, title = spec.partition(":")
        panel(out, rows, args.x, args.group, column, title or column,
              i * w, 0, w, h)
    out.append("</svg>")
    with open(args.svg, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

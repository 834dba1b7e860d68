#!/usr/bin/python3
"""The median of each run's rounds, for the ingest benchmarks' tables.

  median_rows.py [--range] NAME_WIDTH SPEC...  < rows

Each input line is a run's name and its numbers; lines with the same name
are the rounds of one run. Prints one line per run (in order of first
appearance): the name left-aligned in NAME_WIDTH, then each column's
median formatted by its SPEC (a format spec such as 12.0f, right-aligned).
--range adds the first column's smallest and largest round, as reports/s.
"""
import statistics
import sys


def main():
    args = sys.argv[1:]
    with_range = bool(args) and args[0] == "--range"
    if with_range:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    width, specs = int(args[0]), args[1:]
    runs = {}
    for line in sys.stdin:
        name, *values = line.split()
        runs.setdefault(name, []).append([float(v) for v in values])
    for name, rows in runs.items():
        columns = list(zip(*rows))
        if len(columns) != len(specs):
            sys.exit(f"median_rows.py: {name} has {len(columns)} numbers, "
                     f"not {len(specs)}")
        cells = [f"{statistics.median(c):>{s}}" for c, s in zip(columns, specs)]
        line = f"{name:<{width}} " + " ".join(cells)
        if with_range:
            line += (f"   (reports/s {min(columns[0]):.0f} to "
                     f"{max(columns[0]):.0f})")
        print(line)


if __name__ == "__main__":
    main()

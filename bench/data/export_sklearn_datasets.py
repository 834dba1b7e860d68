#!/usr/bin/python3
"""Exports the Wisconsin diagnostic breast cancer data to breast_cancer.csv.

Why this data set: it is a real tabular binary classification problem (569
tumours, 30 real features, label malignant/benign) that Debian ships inside
python3-sklearn, so the logistic-regression experiment
(bench/logistic_regression_experiment.cc) runs on real data without any
download. Source: sklearn.datasets.load_breast_cancer (UCI, Wolberg, Street &
Mangasarian 1995).

Output: one header line, then one row per tumour: the 30 features (names
lower-cased, spaces replaced by underscores) and `label` = 1 for malignant,
0 for benign (sklearn's target is 0 = malignant, so it is flipped, making
the positive class the one a screening model looks for). Rows keep the
order sklearn ships; the experiment shuffles and splits with its own seed.

Usage: sudo apt-get install python3-sklearn
       bench/data/export_breast_cancer.py [bench/data/breast_cancer.csv]
"""
import csv
import os
import sys

from sklearn.datasets import load_breast_cancer


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "breast_cancer.csv")
    data = load_breast_cancer()
    names = [n.replace(" ", "_") for n in data.feature_names]
    with open(out, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(names + ["label"])
        for row, target in zip(data.data, data.target):
            writer.writerow([repr(float(v)) for v in row] +
                            [1 if target == 0 else 0])
    print(f"wrote {len(data.target)} rows to {out}")


if __name__ == "__main__":
    main()

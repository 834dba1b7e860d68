#!/usr/bin/python3
"""Exports data sets that Debian's python3-sklearn ships to CSV files for the
learning experiments (bench/studies/logistic/logistic_regression_experiment.cc).

Why these: they are real tabular classification problems that come with
python3-sklearn, so the experiments run on real data without any download,
and they differ in what a learner must cope with:

  breast_cancer  Wisconsin diagnostic breast cancer (UCI; Wolberg, Street &
                 Mangasarian 1995): 569 tumours, 30 real features. Names
                 have their spaces replaced by underscores; label 1 =
                 malignant, 0 = benign (sklearn's target is 0 = malignant,
                 so it is flipped, making the positive class the one a
                 screening model looks for).
  wine           UCI wine recognition (Forina et al.): 178 wines, 13 real
                 features with sklearn's original names, one of them not a
                 valid field name ("od280/od315_of_diluted_wines"); label 1
                 = cultivar class_0, 0 = the other two cultivars.
  digits         UCI optical handwritten digits (Alpaydin & Kaynak), 8×8
                 images: 1797 images, 64 pixel features "pixel_R_C" with
                 integer values 0 … 16 (public bounds: --bounds='*=0:16'),
                 some of them 0 in every image; label 1 = digit >= 5.

Each file: one header line (the features, then `label`), one row per
sample in the order sklearn ships (the experiment shuffles and splits with
its own seed). Real values are written with repr(float), digits' pixels as
integers.

Usage: sudo apt-get install python3-sklearn
       bench/studies/logistic/data/export_sklearn_datasets.py [--dir DIR] [NAME ...]
(default: all three into this script's directory, bench/studies/logistic/data/).
"""
import argparse
import csv
import os

from sklearn.datasets import load_breast_cancer, load_digits, load_wine


def real(v):
    return repr(float(v))


def pixel(v):
    if not float(v).is_integer():
        raise ValueError(f"digits pixel {v} is not an integer")
    return str(int(v))


# name: (loader, header of feature name, label of target, cell of value)
DATASETS = {
    "breast_cancer": (load_breast_cancer, lambda n: n.replace(" ", "_"),
                      lambda t: 1 if t == 0 else 0, real),
    "wine": (load_wine, str, lambda t: 1 if t == 0 else 0, real),
    "digits": (load_digits, str, lambda t: 1 if t >= 5 else 0, pixel),
}


def export(name, out):
    loader, header, label, cell = DATASETS[name]
    data = loader()
    names = [header(n) for n in data.feature_names]
    with open(out, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(names + ["label"])
        for row, target in zip(data.data, data.target):
            writer.writerow([cell(v) for v in row] + [label(target)])
    print(f"wrote {len(data.target)} rows, {len(names)} features to {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.path.dirname(os.path.abspath(__file__)),
                        help="output directory (default: bench/studies/logistic/data/)")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"data sets to export: {', '.join(DATASETS)} "
                        "(default: all)")
    args = parser.parse_args()
    for name in args.names:
        if name not in DATASETS:
            parser.error(f"unknown data set {name!r} (known: "
                         f"{', '.join(DATASETS)})")
    for name in args.names or list(DATASETS):
        export(name, os.path.join(args.dir, name + ".csv"))


if __name__ == "__main__":
    main()

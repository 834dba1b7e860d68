#!/usr/bin/env python3
"""Would Duchi et al.'s l2 ball beat one coordinate per agent on digits?

bench/studies/gradient_mechanism_variance.py compares the schemes' noise at equal
clipping; an l2 ball with a tighter radius r has less noise but clips large
gradients (a bias the closed forms cannot weigh). This study weighs it on
data, cheaply: it runs the logistic_regression program's private gradient
descent on rows of bench/studies/logistic/data/digits.csv with each round's private mean
gradient replaced by its central-limit approximation, the exact mean of the
clipped per-row gradients plus Gaussian noise of the scheme's exact
variance for N / T reports (N agents resampling the rows, as the
experiment's simulated agents do):

  coordinate  the program's scheme: the round's agents split equally among
              the D = features + 1 coordinates, each coordinate clipped to
              [-c, c] and reported with the hybrid mechanism (Wang et al.):
              Var = (E[V_hybrid(eps, v)] + Var_rows(v)) / (N / (T D)).
  l2 ball     every agent reports its whole gradient, l2-clipped to r, with
              Duchi, Jordan and Wainwright's l2 mechanism: E[Z_j^2] = B^2/D,
              B = r / (tanh(eps/2) c_D), so Var = (B^2/D - mean^2) / (N/T).

Same step (constant eta), rounds T, projection radius 20 and averaging of
the last half of the iterates as the program. Features are scaled to
[-1, 1] by the public bounds 0..16.

It reports TRAINING accuracy and log-loss only, on a fixed random subset
of rows, next to the non-private Newton optimum on the same rows: it
compares optimizers and is never evaluated on held-out rows, so it cannot
have tuned anything on the experiment's test split. Standard library only;
slow (pure Python: a few seconds per run at 400 rows).

Run: python3 bench/studies/gradient_l2_study.py [--rows 400] [--epsilon 1]
"""
import argparse
import csv
import math
import random

# The scalar mechanisms' variances per c^2 at x^2 = (v/c)^2, as the factory
# builds them (the hybrid is the program's choice at eps >= 1).
from gradient_mechanism_variance import hybrid


def load(path, rows, seed):
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    header, data = lines[0], lines[1:]
    label = header.index("label")
    random.Random(seed).shuffle(data)
    data = data[:rows]
    x = [[2 * float(v) / 16 - 1 for j, v in enumerate(r) if j != label] + [1.0]
         for r in data]
    return x, [float(r[label]) for r in data]


def l2_second_moment(eps, r, dims):
    """E[Z_j^2] = B^2 / D of the l2 mechanism with radius r."""
    c_d = math.exp(math.lgamma(dims / 2) - math.lgamma((dims + 1) / 2))
    b = r / (math.tanh(eps / 2) * c_d / math.sqrt(math.pi))
    return b * b / dims


def sigmoid(s):
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))


def dot(a, b):
    return sum(p * q for p, q in zip(a, b))


def metrics(theta, x, y):
    """Training accuracy and mean log-loss."""
    correct, loss = 0, 0.0
    for z, label in zip(x, y):
        p = sigmoid(dot(theta, z))
        correct += (p > 0.5) == (label > 0.5)
        loss -= label * math.log(max(p, 1e-12)) + (1 - label) * math.log(
            max(1 - p, 1e-12))
    return correct / len(y), loss / len(y)


def noisy_gradient(theta, x, y, scheme, eps, clip, radius, reports, rng):
    """One round's private mean gradient, by its CLT approximation."""
    dims, n = len(theta), len(y)
    total, squares, mech = [0.0] * dims, [0.0] * dims, [0.0] * dims
    for z, label in zip(x, y):
        residual = sigmoid(dot(theta, z)) - label
        scale = 1.0
        if scheme == "l2":
            norm = abs(residual) * math.sqrt(dot(z, z))
            scale = min(1.0, radius / norm) if norm > 0 else 1.0
        for j in range(dims):
            v = residual * z[j] * scale
            if scheme == "coordinate":
                v = max(-clip, min(clip, v))
                mech[j] += hybrid(eps, (v / clip) ** 2) * clip * clip
            total[j] += v
            squares[j] += v * v
    gradient = []
    for j in range(dims):
        mean = total[j] / n
        if scheme == "coordinate":
            spread = max(0.0, squares[j] / n - mean * mean)
            var = (mech[j] / n + spread) / (reports / dims)
        else:
            var = max(0.0, l2_second_moment(eps, radius, dims) - mean * mean) / reports
        gradient.append(mean + rng.gauss(0, math.sqrt(var)))
    return gradient


def private_run(x, y, scheme, eps, eta, rounds, clip, radius, agents, seed):
    rng = random.Random(seed)
    dims = len(x[0])
    theta, average = [0.0] * dims, [0.0] * dims
    kept = max(1, math.ceil(rounds / 2))
    for t in range(rounds):
        g = noisy_gradient(theta, x, y, scheme, eps, clip, radius,
                           agents / rounds, rng)
        theta = [a - eta * b for a, b in zip(theta, g)]
        norm = math.sqrt(dot(theta, theta))
        if norm > 20:
            theta = [a * 20 / norm for a in theta]
        if t >= rounds - kept:
            average = [a + b / kept for a, b in zip(average, theta)]
    return metrics(average, x, y)


def newton(x, y, l2=1e-3, iterations=25):
    """The non-private optimum (L2 = 1e-3, as the experiment's baseline)."""
    dims, n = len(x[0]), len(y)
    theta = [0.0] * dims
    for _ in range(iterations):
        g = [l2 * a for a in theta]
        h = [[l2 if i == j else 0.0 for j in range(dims)] for i in range(dims)]
        for z, label in zip(x, y):
            p = sigmoid(dot(theta, z))
            for i in range(dims):
                g[i] += (p - label) * z[i] / n
                w = p * (1 - p) * z[i] / n
                for j in range(dims):
                    h[i][j] += w * z[j]
        theta = [a - b for a, b in zip(theta, solve(h, g))]
    return metrics(theta, x, y)


def solve(a, b):
    """Gaussian elimination with partial pivoting."""
    m = [row[:] + [v] for row, v in zip(a, b)]
    size = len(b)
    for c in range(size):
        pivot = max(range(c, size), key=lambda k: abs(m[k][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for k in range(c + 1, size):
            f = m[k][c] / m[c][c]
            m[k] = [p - f * q for p, q in zip(m[k], m[c])]
    out = [0.0] * size
    for i in reversed(range(size)):
        out[i] = (m[i][size] - dot(m[i][i + 1:size], out[i + 1:])) / m[i][i]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--csv", default="bench/studies/logistic/data/digits.csv")
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--agents", type=float, default=1e6)
    parser.add_argument("--seeds", default="1,2")
    args = parser.parse_args()
    x, y = load(args.csv, args.rows, 12345)
    seeds = [int(s) for s in args.seeds.split(",")]
    accuracy, loss = newton(x, y)
    print(f"{len(y)} rows, D = {len(x[0])}, eps = {args.epsilon}, "
          f"N = {args.agents:.0f}; non-private Newton: train accuracy "
          f"{accuracy:.3f}, log-loss {loss:.3f}\n")
    print("| scheme | eta | T | clip | train accuracy (per seed) | "
          "train log-loss (per seed) |")
    print("|---|---|---|---|---|---|")
    c_ref = 0.1 * math.sqrt(len(x[0]))
    settings = [("coordinate", 8, 100, 0.1, None),
                ("coordinate", 4, 50, 0.25, None)]
    for kappa in (0.25, 0.5, 1.0):
        for eta, rounds in ((8, 100), (4, 50), (8, 50)):
            settings.append(("l2", eta, rounds, None, kappa * c_ref))
    for scheme, eta, rounds, clip, radius in settings:
        runs = [private_run(x, y, scheme, args.epsilon, eta, rounds, clip,
                            radius, args.agents, seed) for seed in seeds]
        bound = (f"c = {clip}" if scheme == "coordinate" else
                 f"r = {radius / c_ref:g}·0.1·√D = {radius:.3f}")
        print(f"| {scheme} | {eta} | {rounds} | {bound} | "
              + " / ".join(f"{a:.3f}" for a, _ in runs) + " | "
              + " / ".join(f"{l:.3f}" for _, l in runs) + " |", flush=True)


if __name__ == "__main__":
    main()

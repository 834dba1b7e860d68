"""Estimates drawn with their uncertainty, and the truth when it is known.

Every released number carries its uncertainty (DESIGN invariant 6), so a
plot never shows an estimate alone: histogram items and scalars get their
per-answer confidence interval as error bars, a workload gets its
simultaneous band as a shaded area (it is one statement about all answers
at once, not one per answer), and the truth, when given, is drawn on top
so that misses are visible. Works with any matplotlib backend; tests use
Agg.
"""

import matplotlib.pyplot as plt
import numpy as np

from .results import Estimates
from .truth import load_truth

MAX_TICK_LABELS = 24


def _answers(estimates):
    return estimates.answers if isinstance(estimates, Estimates) else estimates


def _title(qid, kind, question):
    """``qid (kind)``, and what was released when the question row is known."""
    if question is None:
        return f"{qid} ({kind})"
    how = question.strategy if kind == "workload" else question.mechanism
    shown = "simultaneous band" if kind == "workload" else "intervals"
    return (f"{qid}: {how}, n = {question.num_reports}, ε = {question.epsilon:g}, "
            f"{question.confidence:.0%} {shown}")


def _draw_question(ax, rows, truth, question):
    x = np.arange(len(rows))
    est = rows["estimate"].to_numpy(dtype=float)
    kind = rows["kind"].iloc[0]
    qid = rows["question_id"].iloc[0]
    if kind == "workload":
        ax.fill_between(x, rows["band_lower"].to_numpy(dtype=float),
                        rows["band_upper"].to_numpy(dtype=float), step="mid", alpha=0.3,
                        color="tab:blue", label="simultaneous band")
        ax.plot(x, est, marker=".", color="tab:blue", label="estimate")
    else:
        err = np.vstack([est - rows["interval_lower"].to_numpy(dtype=float),
                         rows["interval_upper"].to_numpy(dtype=float) - est])
        ax.errorbar(x, est, yerr=err, fmt="o", capsize=3, color="tab:blue",
                    label="estimate with its interval")
    if truth is not None:
        if len(truth) != len(rows):
            raise ValueError(f"truth for {qid!r} has {len(truth)} values, the estimate "
                             f"{len(rows)}")
        ax.plot(x, truth, linestyle="--", marker="x", color="tab:red", label="truth")
    labels = rows["label"].astype(str).tolist()
    step = max(1, -(-len(labels) // MAX_TICK_LABELS))
    ax.set_xticks(x[::step], labels[::step], rotation=45 if len(labels) > 4 else 0,
                  ha="right" if len(labels) > 4 else "center", fontsize=8)
    ax.set_title(_title(qid, kind, question), fontsize=10)
    ax.set_ylabel("estimate")
    ax.legend(fontsize=8)


def plot_estimates(estimates, question_id=None, truth=None, ax=None):
    """Draws estimates with their intervals or bands; returns the Figure.

    Args:
        estimates: an :class:`~ldp_analyst.results.Estimates` or its
            ``answers`` DataFrame.
        question_id: draw only this question (on ``ax`` if given); None =
            every question, one panel each.
        truth: true values to draw as well: anything
            :func:`~ldp_analyst.truth.load_truth` reads (a dict, a DataFrame,
            ldp-loadtest's truth JSON or estimates.csv, a LoadtestRun).
            Questions it does not name are drawn without truth.
    """
    answers = _answers(estimates)
    truths = load_truth(truth) if truth is not None else {}
    questions = list(dict.fromkeys(answers["question_id"]))
    if question_id is not None:
        if question_id not in questions:
            raise KeyError(f"no question {question_id!r} in these estimates "
                           f"(questions: {', '.join(questions) or 'none'})")
        questions = [question_id]
    if not questions:
        raise ValueError("no estimates to plot")
    if ax is not None and len(questions) != 1:
        raise ValueError("ax= draws one question: name it with question_id=")
    if ax is None:
        fig, axes = plt.subplots(len(questions), 1, figsize=(8, 3.5 * len(questions)),
                                 squeeze=False)
        axes = axes[:, 0]
    else:
        fig, axes = ax.figure, [ax]
    facts = ({row.question_id: row for row in estimates.questions.itertuples()}
             if isinstance(estimates, Estimates) else {})
    for axis, qid in zip(axes, questions):
        _draw_question(axis, answers[answers["question_id"] == qid], truths.get(qid),
                       facts.get(qid))
    fig.tight_layout()
    return fig

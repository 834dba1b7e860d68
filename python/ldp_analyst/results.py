"""A round's released estimates as pandas tables.

``GetEstimatesResponse`` holds one ``QuestionEstimate`` per question, each a
scalar (a statistical query), a histogram (one value per item) or a workload
(one value per linear query). Analysts compare answers across questions, so
they become one long table, one row per released value, with the same
columns whatever the kind:

==================  ==========================================================
question_id         the question
kind                ``scalar``, ``histogram`` or ``workload``
index               the answer's position within its question
label               the item's or query's label (a scalar's: its question id)
estimate            the unbiased estimate
standard_error      its standard error
interval_lower/     the per-answer confidence interval (scalars, histograms;
interval_upper      NaN for workloads, which release a band instead)
band_lower/         the workload's simultaneous band (NaN elsewhere): every
band_upper          answer of the question lies in its band at once with
                    probability >= confidence
post_processed      a histogram's post-processed frequency or a workload's
                    consistent answer, when the question asked for one
p_value             a RAPPOR question's candidate: its one-sided p-value for
                    "nobody holds it" (NaN for other questions)
discovered          a RAPPOR question's candidate: whether Benjamini–Hochberg
                    at the question's ``false_discovery_rate`` (a column of
                    :attr:`Estimates.questions`) counts it as held (None for
                    other questions)
==================  ==========================================================

Per-question facts (mechanism or strategy, reports, ε, the workload's γ₂
interval, ...) are in :attr:`Estimates.questions`, one row per question. A
shuffled study's questions also state their central guarantee there:
``central_epsilon`` and ``central_delta`` against the server alone, from the
smallest of ``num_batches`` batches released (``smallest_batch``), beside
``epsilon``, each report's local ε0 (NaN and 0 for unshuffled studies).
"""

import math
from dataclasses import dataclass

import pandas as pd

from .stubs import analyst_pb2

NANOS_PER_EPSILON = 1e9
NAN = math.nan

ANSWER_COLUMNS = ["question_id", "kind", "index", "label", "estimate", "standard_error",
                  "interval_lower", "interval_upper", "band_lower", "band_upper",
                  "post_processed", "p_value", "discovered"]
QUESTION_COLUMNS = ["question_id", "kind", "num_answers", "num_reports", "epsilon",
                    "implemented_epsilon", "confidence", "mechanism", "strategy",
                    "workload", "band_z", "gamma2_lower", "gamma2_upper",
                    "best_fixed_strategy", "best_fixed_v_max", "predicted_v_max",
                    "predicted_v_avg", "central_epsilon", "central_delta", "num_batches",
                    "smallest_batch", "false_discovery_rate"]


def _at(values, i):
    return values[i] if i < len(values) else NAN


def _scalar(qid, s):
    answers = [dict(question_id=qid, kind="scalar", index=0, label=qid, estimate=s.value,
                    standard_error=s.standard_error, interval_lower=s.interval.lower,
                    interval_upper=s.interval.upper, band_lower=NAN, band_upper=NAN,
                    post_processed=NAN)]
    question = dict(question_id=qid, kind="scalar", num_answers=1, num_reports=s.num_reports,
                    epsilon=s.epsilon_nanos / NANOS_PER_EPSILON,
                    implemented_epsilon=s.implemented_epsilon,
                    confidence=s.interval.confidence, mechanism=s.mechanism)
    return answers, question


def _histogram(qid, h):
    post = list(h.post_processed.frequencies) if h.HasField("post_processed") else []
    tested = len(h.discovered) == len(h.frequencies) and len(h.discovered) > 0
    answers = [dict(question_id=qid, kind="histogram", index=i,
                    label=h.labels[i] if i < len(h.labels) else str(i), estimate=f,
                    standard_error=_at(h.standard_errors, i),
                    interval_lower=_at(h.interval_lower, i),
                    interval_upper=_at(h.interval_upper, i), band_lower=NAN, band_upper=NAN,
                    post_processed=_at(post, i), p_value=_at(h.p_values, i),
                    discovered=bool(h.discovered[i]) if tested else None)
               for i, f in enumerate(h.frequencies)]
    question = dict(question_id=qid, kind="histogram", num_answers=len(h.frequencies),
                    num_reports=h.num_reports, epsilon=h.epsilon_nanos / NANOS_PER_EPSILON,
                    implemented_epsilon=h.implemented_epsilon, confidence=h.confidence,
                    mechanism=h.mechanism,
                    false_discovery_rate=h.false_discovery_rate if tested else NAN)
    return answers, question


def _workload(qid, w):
    answers = [dict(question_id=qid, kind="workload", index=j,
                    label=w.labels[j] if j < len(w.labels) else str(j), estimate=a,
                    standard_error=_at(w.standard_errors, j), interval_lower=NAN,
                    interval_upper=NAN, band_lower=_at(w.band_lower, j),
                    band_upper=_at(w.band_upper, j),
                    post_processed=_at(w.consistent_answers, j))
               for j, a in enumerate(w.answers)]
    question = dict(question_id=qid, kind="workload", num_answers=len(w.answers),
                    num_reports=w.num_reports, epsilon=w.epsilon_nanos / NANOS_PER_EPSILON,
                    implemented_epsilon=w.implemented_epsilon, confidence=w.confidence,
                    strategy=w.strategy, workload=w.workload, band_z=w.band_z,
                    gamma2_lower=w.gamma2_lower, gamma2_upper=w.gamma2_upper,
                    best_fixed_strategy=w.best_fixed_strategy,
                    best_fixed_v_max=w.best_fixed_v_max, predicted_v_max=w.predicted_v_max,
                    predicted_v_avg=w.predicted_v_avg)
    return answers, question


_KINDS = {"scalar": _scalar, "histogram": _histogram, "workload": _workload}


def _shuffled(estimate):
    """A shuffled study's central guarantee; NaN and 0 for other studies."""
    if not estimate.HasField("shuffled"):
        return dict(central_epsilon=NAN, central_delta=NAN, num_batches=0, smallest_batch=0)
    g = estimate.shuffled
    return dict(central_epsilon=g.central_epsilon, central_delta=g.delta,
                num_batches=g.num_batches, smallest_batch=g.smallest_batch)


@dataclass
class Estimates:
    """One round's estimates: :attr:`answers` and :attr:`questions` tables.

    Attributes:
        study_id: the study.
        round_id: the round the estimates belong to.
        round_state: e.g. ``"ROUND_OPEN"`` (interim: more reports may come)
            or ``"ROUND_CLOSED_QUORUM"``.
        answers: one row per released value (columns in the module doc).
        questions: one row per question.
        response: the ``GetEstimatesResponse`` itself, for anything else.
    """

    study_id: int
    round_id: int
    round_state: str
    answers: pd.DataFrame
    questions: pd.DataFrame
    response: object

    def _question(self, question_id):
        rows = self.questions[self.questions.question_id == question_id]
        if rows.empty:
            known = ", ".join(self.questions.question_id) or "none"
            raise KeyError(f"no question {question_id!r} in round {self.round_id} "
                           f"of study {self.study_id} (questions: {known})")
        return rows.iloc[0]

    def gamma2(self, question_id):
        """A workload's certified γ₂(W) interval ``(lower, upper)``.

        ``(0.0, 0.0)`` when the planner did not compute it (a strategy the
        question named); raises ``ValueError`` for a question that is not a
        workload, ``KeyError`` for an unknown one.
        """
        row = self._question(question_id)
        if row.kind != "workload":
            raise ValueError(f"question {question_id!r} is a {row.kind}, not a workload: "
                             "only workloads have a γ₂ interval")
        return float(row.gamma2_lower), float(row.gamma2_upper)

    def strategy(self, question_id):
        """A workload's chosen strategy, e.g. ``"hierarchical b=4, OUE"``."""
        row = self._question(question_id)
        if row.kind != "workload":
            raise ValueError(f"question {question_id!r} is a {row.kind} (mechanism "
                             f"{row.mechanism}), not a workload with a strategy")
        return row.strategy


    def discoveries(self, question_id):
        """A RAPPOR question's discovered candidates, most frequent first.

        Rows of :attr:`answers` (label = the string); the expected share of
        strings nobody holds among them is at most the question's
        ``false_discovery_rate``. Raises ``ValueError`` for a question that
        tests no candidates, ``KeyError`` for an unknown one.
        """
        row = self._question(question_id)
        if math.isnan(row.false_discovery_rate):
            raise ValueError(f"question {question_id!r} is a {row.kind} that tests no "
                             "candidates (ask a rappor question)")
        rows = self.answers[(self.answers.question_id == question_id) &
                            (self.answers.discovered == True)]  # noqa: E712
        return rows.sort_values("estimate", ascending=False)


def _enum_name(enum, value):
    """The value's name, or its number for a value newer than these stubs."""
    try:
        return enum.Name(value)
    except ValueError:
        return str(value)


def estimates_from_response(study_id, response):
    """The :class:`Estimates` of a ``GetEstimatesResponse``."""
    answers, questions = [], []
    for estimate in response.estimates:
        kind = estimate.WhichOneof("estimate")
        if kind is None:
            continue  # a kind this package does not know yet: skip, not fail
        rows, question = _KINDS[kind](estimate.question_id, getattr(estimate, kind))
        question.update(_shuffled(estimate))
        answers.extend(rows)
        questions.append(question)
    return Estimates(
        study_id=study_id, round_id=response.round_id,
        round_state=_enum_name(analyst_pb2.RoundState, response.round_state),
        answers=pd.DataFrame(answers, columns=ANSWER_COLUMNS),
        questions=pd.DataFrame(questions, columns=QUESTION_COLUMNS),
        response=response)

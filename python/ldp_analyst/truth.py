"""True answers to compare estimates with, from wherever they were written.

Only a simulation knows the truth. ``ldp-loadtest`` writes it two ways:
``--truth_out FILE.json`` (workload studies; ``{"QUESTION_ID": [numbers]}``,
the file ``ldp results --plot --truth`` reads) and ``--out DIR``'s
``estimates.csv`` (every study; a ``truth`` column beside each released
value). Either is read here into ``{question_id: [true values]}``, the form
the plots take; so is a dict or a DataFrame an analyst built by hand.
"""

import json
from pathlib import Path

import pandas as pd


def _from_frame(frame, source):
    qcol = next((c for c in ("question_id", "question") if c in frame.columns), None)
    if qcol is None or "truth" not in frame.columns:
        raise ValueError(f"{source} needs a question_id (or question) column and a "
                         f"truth column; it has {list(frame.columns)}")
    return {str(q): [float(v) for v in rows["truth"]]
            for q, rows in frame.groupby(qcol, sort=False)}


def _from_json(path):
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"truth file {path} is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise ValueError(f"truth file {path} must map question ids to lists of numbers")
    return {str(q): [float(v) for v in (vs if isinstance(vs, list) else [vs])]
            for q, vs in value.items()}


def load_truth(truth):
    """``{question_id: [true values]}`` from ``truth``.

    ``truth`` may be such a dict (a scalar value stands for a one-element
    list), a DataFrame with ``question_id`` (or ``question``) and ``truth``
    columns in answer order, a path to ldp-loadtest's truth JSON or its
    ``estimates.csv``, or anything with a ``truth`` attribute (a
    :class:`~ldp_analyst.loadtest.LoadtestRun`).
    """
    if hasattr(truth, "truth") and not isinstance(truth, (dict, pd.DataFrame)):
        truth = truth.truth
    if isinstance(truth, dict):
        return {str(q): [float(v) for v in (vs if hasattr(vs, "__len__") else [vs])]
                for q, vs in truth.items()}
    if isinstance(truth, pd.DataFrame):
        return _from_frame(truth, "the truth DataFrame")
    path = Path(truth)
    if not path.is_file():
        raise FileNotFoundError(f"truth file {path} not found")
    if path.suffix.lower() == ".csv":
        return _from_frame(pd.read_csv(path), f"truth file {path}")
    return _from_json(path)

"""Estimates of studies ldp-loadtest filled: tables that hold together and
values within 6 standard errors of the truth the load test knows."""

import numpy as np
import pytest

from ldp_analyst import LoadtestError, load_truth, run_loadtest
from ldp_analyst.results import ANSWER_COLUMNS

Z = 6  # |estimate − truth| ≤ 6 SE: a miss is a bug, not bad luck (p < 1e-8 each)


def _within_se(answers, truth, slack=1e-9):
    errors = np.abs(answers.estimate.to_numpy() - np.asarray(truth))
    return errors <= Z * answers.standard_error.to_numpy() + slack


def test_run_reports_its_study_and_truth(histogram_run, client):
    assert histogram_run.summary["reports_accepted"] == 1000
    assert histogram_run.summary["configuration"]["seed"] == "1"
    assert set(histogram_run.truth) == {"item_histogram", "mean_value"}
    assert sum(histogram_run.truth["item_histogram"]) == pytest.approx(1.0)
    assert client.status(histogram_run.study_id).num_reports == 1000


def test_histogram_and_mean_estimates(histogram_run, client):
    estimates = client.estimates(histogram_run.study_id)
    a = estimates.answers
    assert list(a.columns) == ANSWER_COLUMNS
    assert estimates.round_state == "ROUND_OPEN"  # an hour-long round, no quorum
    hist, mean = a[a.kind == "histogram"], a[a.kind == "scalar"]
    assert list(hist.label) == [f"item={i}" for i in range(16)]
    assert list(mean.question_id) == ["mean_value"]
    assert (a.interval_lower <= a.estimate).all() and (a.estimate <= a.interval_upper).all()
    assert (a.standard_error > 0).all() and a.band_lower.isna().all()
    assert _within_se(hist, histogram_run.truth["item_histogram"]).all()
    assert _within_se(mean, histogram_run.truth["mean_value"]).all()
    q = estimates.questions.set_index("question_id")
    assert q.num_reports.sum() == 1000  # each agent answers one question
    assert (q.epsilon == 1.0).all() and (q.confidence == 0.95).all()
    assert q.loc["mean_value", "mechanism"] == "hybrid"


def test_workload_estimates_band_and_gamma2(workload_run, client):
    estimates = client.estimates(workload_run.study_id)
    a = estimates.answers
    assert list(a.label) == [f"x ≤ {t}" for t in range(16)]
    assert a.interval_lower.isna().all()
    assert (a.band_lower <= a.estimate).all() and (a.estimate <= a.band_upper).all()
    q = estimates.questions.iloc[0]
    # The band is answer ∓ band_z·SE, with Bonferroni's z for 16 queries at 95%.
    np.testing.assert_allclose(a.band_upper - a.estimate, q.band_z * a.standard_error,
                               rtol=1e-9, atol=1e-12)
    assert 2.5 < q.band_z < 3.5
    assert _within_se(a, workload_run.truth["workload"]).all()
    assert workload_run.truth["workload"][-1] == pytest.approx(1.0)  # a CDF ends at 1
    lower, upper = estimates.gamma2("workload")
    assert 1.0 <= lower <= upper <= lower * 1.01  # certified, and tight
    assert estimates.strategy("workload") == q.strategy and q.strategy
    assert q.workload == "prefix N=16"


def test_truth_json_and_estimates_csv_agree(workload_run):
    from_json = load_truth(workload_run.out_dir / "truth.json")["workload"]
    np.testing.assert_allclose(from_json, workload_run.truth["workload"], rtol=1e-12)


def test_loadtest_failures_carry_its_message(client, tmp_path):
    with pytest.raises(LoadtestError, match="--workload must be"):
        run_loadtest(client, agents=10, workload="no_such_workload", out=tmp_path)
    with pytest.raises(LoadtestError, match="not found"):
        run_loadtest(client, binary=str(tmp_path / "ldp-loadtest"))

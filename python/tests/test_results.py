"""GetEstimatesResponse → answers and questions tables (no server needed)."""

import math

import pytest

from ldp_analyst.results import ANSWER_COLUMNS, QUESTION_COLUMNS, estimates_from_response
from ldp_analyst.stubs import analyst_pb2

import synthetic


@pytest.fixture
def estimates():
    return estimates_from_response(3, synthetic.response())


def test_one_row_per_released_value_in_question_order(estimates):
    a = estimates.answers
    assert list(a.columns) == ANSWER_COLUMNS
    assert list(a.question_id) == ["mean_income"] + ["regions"] * 3 + ["age_cdf"] * 3
    assert list(a.kind) == ["scalar"] + ["histogram"] * 3 + ["workload"] * 3
    assert list(a["index"]) == [0, 0, 1, 2, 0, 1, 2]
    assert list(a.label) == ["mean_income", "region=coast", "region=hills", "region=city",
                             "x ≤ 0", "x ≤ 1", "x ≤ 2"]
    assert (estimates.study_id, estimates.round_id) == (3, 7)
    assert estimates.round_state == "ROUND_CLOSED_QUORUM"


def test_intervals_for_scalars_and_histograms_bands_for_workloads(estimates):
    a = estimates.answers.set_index(["question_id", "index"])
    assert a.loc[("mean_income", 0), "interval_lower"] == 57.58
    assert a.loc[("regions", 2), "interval_upper"] == 0.26
    assert a.loc[("age_cdf", 1), "band_upper"] == pytest.approx(0.84)
    assert a.loc[("age_cdf", 2), "standard_error"] == math.inf
    per_kind = estimates.answers.groupby("kind")
    assert per_kind.get_group("workload")[["interval_lower", "interval_upper"]].isna().all().all()
    for kind in ("scalar", "histogram"):
        assert per_kind.get_group(kind)[["band_lower", "band_upper"]].isna().all().all()


def test_post_processed_values_where_asked(estimates):
    a = estimates.answers
    assert list(a[a.question_id == "regions"].post_processed) == [0.5, 0.3, 0.2]
    assert a[a.question_id != "regions"].post_processed.isna().all()


def test_questions_table_has_one_row_each(estimates):
    q = estimates.questions.set_index("question_id")
    assert list(estimates.questions.columns) == QUESTION_COLUMNS
    assert list(q.index) == ["mean_income", "regions", "age_cdf"]
    assert list(q.num_answers) == [1, 3, 3]
    assert list(q.num_reports) == [400, 300, 500]
    assert q.loc["regions", "epsilon"] == 2.0
    assert q.loc["mean_income", "mechanism"] == "hybrid"
    assert q.loc["age_cdf", "band_z"] == 2.4


def test_gamma2_and_strategy_of_a_workload(estimates):
    assert estimates.gamma2("age_cdf") == (1.2, 1.3)
    assert estimates.strategy("age_cdf") == "hierarchical b=2, OUE"


def test_gamma2_of_other_kinds_and_unknown_questions_say_why(estimates):
    with pytest.raises(ValueError, match="histogram, not a workload"):
        estimates.gamma2("regions")
    with pytest.raises(ValueError, match="mechanism hybrid"):
        estimates.strategy("mean_income")
    with pytest.raises(KeyError, match="questions: mean_income, regions, age_cdf"):
        estimates.gamma2("nope")


def test_empty_response_gives_empty_tables_with_columns():
    e = estimates_from_response(1, analyst_pb2.GetEstimatesResponse(round_id=1))
    assert e.answers.empty and list(e.answers.columns) == ANSWER_COLUMNS
    assert e.questions.empty and list(e.questions.columns) == QUESTION_COLUMNS
    assert e.round_state == "ROUND_STATE_UNSPECIFIED"


def test_a_shuffled_question_states_its_central_guarantee():
    response = synthetic.response()
    g = response.estimates[1].shuffled
    g.local_epsilon, g.central_epsilon, g.delta = 5.5, 0.5, 1e-8
    g.num_batches, g.smallest_batch = 3, 1000
    q = estimates_from_response(3, response).questions.set_index("question_id")
    assert q.loc["regions", "central_epsilon"] == 0.5
    assert q.loc["regions", "central_delta"] == 1e-8
    assert (q.loc["regions", "num_batches"], q.loc["regions", "smallest_batch"]) == (3, 1000)
    assert math.isnan(q.loc["mean_income", "central_epsilon"])
    assert q.loc["mean_income", "num_batches"] == 0

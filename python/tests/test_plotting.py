"""Plots: what is drawn, checked on the artists (Agg backend, no server)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import ErrorbarContainer

from ldp_analyst import plot_estimates
from ldp_analyst.results import estimates_from_response

import synthetic


@pytest.fixture
def estimates():
    return estimates_from_response(3, synthetic.response())


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _line(ax, label):
    return next(line for line in ax.get_lines() if line.get_label() == label)


def test_tests_draw_off_screen():
    assert matplotlib.get_backend().lower() == "agg"


def test_one_panel_per_question_with_its_release(estimates):
    fig = plot_estimates(estimates, truth=synthetic.TRUTH)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 3
    assert titles[0].startswith("mean_income: hybrid, n = 400")
    assert titles[2].startswith("age_cdf: hierarchical b=2, OUE, n = 500")
    assert titles[2].endswith("95% simultaneous band")


def test_histogram_errorbars_are_its_intervals(estimates):
    ax = plot_estimates(estimates, question_id="regions").axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1
    segments = bars[0].lines[2][0].get_segments()
    np.testing.assert_allclose([s[:, 1] for s in segments],
                               [[0.4, 0.6], [0.22, 0.38], [0.14, 0.26]])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["region=coast", "region=hills",
                                                            "region=city"]


def test_workload_band_is_shaded_and_truth_drawn(estimates):
    ax = plot_estimates(estimates, question_id="age_cdf", truth=synthetic.TRUTH).axes[0]
    assert any(isinstance(c, PolyCollection) for c in ax.collections)
    np.testing.assert_allclose(_line(ax, "truth").get_ydata(), [0.3, 0.55, 1.0])
    np.testing.assert_allclose(_line(ax, "estimate").get_ydata(), [0.25, 0.6, 1.0])


def test_draws_on_a_given_axis_from_the_answers_table(estimates):
    fig, ax = plt.subplots()
    assert plot_estimates(estimates.answers, question_id="mean_income", ax=ax) is fig
    assert ax.get_title() == "mean_income (scalar)"


def test_questions_without_truth_are_drawn_without(estimates):
    fig = plot_estimates(estimates, truth={"regions": [0.45, 0.35, 0.2]})
    assert [any(l.get_label() == "truth" for l in ax.get_lines()) for ax in fig.axes] == \
        [False, True, False]


def test_mistakes_are_named(estimates):
    with pytest.raises(KeyError, match="no question 'nope'"):
        plot_estimates(estimates, question_id="nope")
    with pytest.raises(ValueError, match="truth for 'regions' has 2 values, the estimate 3"):
        plot_estimates(estimates, truth={"regions": [0.5, 0.5]})
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="question_id"):
        plot_estimates(estimates, ax=ax)

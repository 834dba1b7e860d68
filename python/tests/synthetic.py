"""A GetEstimatesResponse built by hand, with one question of each kind, so
that the table and plot code is checked without a server."""

import math

from ldp_analyst.stubs import analyst_pb2


def response():
    r = analyst_pb2.GetEstimatesResponse(round_id=7, round_state=analyst_pb2.ROUND_CLOSED_QUORUM)
    s = r.estimates.add(question_id="mean_income").scalar
    s.value, s.standard_error, s.num_reports, s.mechanism = 61.5, 2.0, 400, "hybrid"
    s.epsilon_nanos, s.implemented_epsilon = 1_000_000_000, 0.999
    s.interval.lower, s.interval.upper, s.interval.confidence = 57.58, 65.42, 0.95
    h = r.estimates.add(question_id="regions").histogram
    h.frequencies.extend([0.5, 0.3, 0.2])
    h.standard_errors.extend([0.05, 0.04, 0.03])
    h.interval_lower.extend([0.4, 0.22, 0.14])
    h.interval_upper.extend([0.6, 0.38, 0.26])
    h.labels.extend(["region=coast", "region=hills", "region=city"])
    h.confidence, h.num_reports, h.mechanism, h.epsilon_nanos = 0.95, 300, "oue", 2_000_000_000
    h.post_processed.method = "norm_sub"
    h.post_processed.frequencies.extend([0.5, 0.3, 0.2])
    w = r.estimates.add(question_id="age_cdf").workload
    w.answers.extend([0.25, 0.6, 1.0])
    w.standard_errors.extend([0.1, 0.1, math.inf])
    w.band_z = 2.4
    w.band_lower.extend([0.25 - 0.24, 0.6 - 0.24, -math.inf])
    w.band_upper.extend([0.25 + 0.24, 0.6 + 0.24, math.inf])
    w.labels.extend(["x ≤ 0", "x ≤ 1", "x ≤ 2"])
    w.confidence, w.num_reports, w.strategy = 0.95, 500, "hierarchical b=2, OUE"
    w.workload, w.gamma2_lower, w.gamma2_upper = "prefix N=3", 1.2, 1.3
    return r


TRUTH = {"mean_income": 60.0, "regions": [0.45, 0.35, 0.2], "age_cdf": [0.3, 0.55, 1.0]}

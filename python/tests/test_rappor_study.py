"""A RAPPOR question from Python: created from a dict, answered by device
agents (the C library) holding strings, and read back as discoveries.

300 agents hold "apple" or "pear" (half each) in a 64-bit field; the study
tests 10,000 candidates (those two and 9,998 decoys), past the dense
decode's 1,024, so the server selects by Lasso and refits. At ε = 4 a share
of 0.5 is many standard errors (about 0.05 at n = 300), so both are found;
at q = 0.01 the expected number of false discoveries is at most 0.02, so
more than two would be a failure of the decode (Pr < 2e-6 if they were
independent Poisson)."""

from ldp_analyst import Client
from server_process import running_server, wait_until_serving
from test_device_agent import run_devices

DECOYS = [f"d{i}" for i in range(9998)]
STRINGS = {
    "display_name": "pytest: which fruit",
    "epsilon_cap_nanos": "4000000000",
    "mode": "NONINTERACTIVE",
    "confidence": 0.95,
    "round_duration_seconds": 3600,
    "schema": {"fields": [{"name": "fruit", "bit_vector_field": {"bit_length": 64}}]},
    "questions": [{
        "question_id": "fruit",
        "rappor": {"field": "fruit", "candidates": ["apple", "pear"] + DECOYS,
                   "false_discovery_rate": 0.01},
    }],
}


def test_a_rappor_study_from_python_finds_the_held_strings(build_dir, tmp_path):
    (tmp_path / "server").mkdir()
    with running_server(build_dir, tmp_path / "server") as server:
        wait_until_serving(server.address, server.token_file)
        with Client(server.address, server.token_file) as client:
            study = client.create_study(STRINGS)
            asked = study.spec.questions[0].rappor
            assert asked.rappor.hash_seed != 0  # the server chose one
            records = [{"fruit": {"utf8": "apple"}}, {"fruit": {"utf8": "pear"}}]
            # Devices whose owners allow this study its ε = 4.
            devices = run_devices(server, tmp_path, agents=300, cycles=1,
                                  records=records,
                                  caps={"max_epsilon_per_study_nanos": 4_000_000_000,
                                        "period_cap_nanos": 4_000_000_000})
            estimates = client.estimates(study.study_id)
    assert sum(d["cycles"][0]["accepted"] for d in devices) == 300
    question = estimates.questions.set_index("question_id").loc["fruit"]
    assert question.num_answers == 10000
    assert question.false_discovery_rate == 0.01
    assert question.mechanism == "rappor"
    found = estimates.discoveries("fruit")
    assert {"apple", "pear"} <= set(found.label)
    assert len(set(found.label) - {"apple", "pear"}) <= 2
    answers = estimates.answers[estimates.answers.question_id == "fruit"]
    assert answers.p_value.between(0, 1).all()
    assert list(answers.label[:2]) == ["apple", "pear"]

"""Every AnalystService call through Client, against a real ldp-server."""

import json

import pandas as pd

from ldp_analyst import Client
from ldp_analyst.client import BUDGET_COLUMNS, STUDY_COLUMNS
from ldp_analyst.stubs import analyst_pb2

from study_specs import COUNTING, MASKED_PARITY, REGIONS_TEXTPROTO


def test_create_from_dict(client):
    study = client.create_study(COUNTING)
    assert study.study_id > 0
    assert study.spec.display_name == COUNTING["display_name"]
    assert study.spec.questions[0].question_id == "smoker_share"
    assert study.status.state == analyst_pb2.STUDY_ACTIVE
    assert len(study.status.round_ids) == 1


def test_create_from_json_file_and_textproto(client, tmp_path):
    path = tmp_path / "counting.json"
    path.write_text(json.dumps(dict(COUNTING, display_name="pytest: from JSON")))
    from_json = client.create_study(path)
    from_text = client.create_study(REGIONS_TEXTPROTO)
    assert from_json.spec.display_name == "pytest: from JSON"
    assert from_text.spec.confidence == 0.9
    assert from_text.study_id != from_json.study_id


def test_request_id_makes_create_idempotent(client):
    first = client.create_study(COUNTING, request_id="pytest-idempotent")
    again = client.create_study(COUNTING, request_id="pytest-idempotent")
    assert again.study_id == first.study_id


def test_list_studies_reads_every_page_newest_first(client):
    created = [client.create_study(COUNTING).study_id for _ in range(3)]
    studies = client.list_studies(page_size=2)
    assert list(studies.columns) == STUDY_COLUMNS
    ids = list(studies.study_id)
    assert ids == sorted(ids, reverse=True)
    assert set(created) <= set(ids)
    row = studies.set_index("study_id").loc[created[0]]
    assert (row.display_name, row["mode"], row.state) == (
        COUNTING["display_name"], "NONINTERACTIVE", "STUDY_ACTIVE")
    assert row.epsilon_cap == 1.0 and row.num_rounds == 1
    assert isinstance(row.create_time, pd.Timestamp)


def test_status_and_round_of_a_new_study(client):
    study = client.create_study(REGIONS_TEXTPROTO)
    status = client.status(study.study_id)
    assert status.state == analyst_pb2.STUDY_ACTIVE
    assert (status.num_reports, status.max_spent_nanos) == (0, 0)
    assert client.study(study.study_id).spec == study.spec
    round_ = client.round(study.study_id)
    assert round_.round_id == status.round_ids[0]
    assert round_.state == analyst_pb2.ROUND_OPEN
    assert [q.question_id for q in round_.questions] == ["region_histogram"]


def test_estimates_of_a_study_without_reports(client):
    study = client.create_study(REGIONS_TEXTPROTO)
    estimates = client.estimates(study.study_id)
    assert estimates.round_state == "ROUND_OPEN"
    assert list(estimates.answers.label) == ["region=coast", "region=hills", "region=city"]
    assert (estimates.answers.kind == "histogram").all()
    assert estimates.questions.num_reports.tolist() == [0]


def test_start_round_walks_an_interactive_study_to_its_end(client):
    study = client.create_study(MASKED_PARITY)  # a textproto file: two program rounds
    assert study.spec.mode == analyst_pb2.INTERACTIVE
    second = client.start_round(study.study_id)
    assert second.state == analyst_pb2.ROUND_OPEN
    assert second.round_id != study.status.round_ids[0]
    assert client.round(study.study_id, study.status.round_ids[0]).state == \
        analyst_pb2.ROUND_CLOSED_EARLY
    last = client.start_round(study.study_id)  # the program is done: its round closes
    assert (last.round_id, last.state) == (second.round_id, analyst_pb2.ROUND_CLOSED_EARLY)
    status = client.status(study.study_id)
    assert status.state == analyst_pb2.STUDY_CLOSED
    assert status.program_result.done
    assert list(status.round_ids) == [study.status.round_ids[0], second.round_id]
    # A closed study's estimates stay readable.
    assert client.estimates(study.study_id).round_id == second.round_id


def test_budget_view_of_a_load_test_agent(client, histogram_run):
    # Agent ids count from 1 on a fresh database, and the first agents
    # enrolled are some load test's (this fixture ensures one ran), each
    # charged its study's whole cap (one question at the full ε).
    ledger = client.budget(1)
    assert list(ledger.columns) == BUDGET_COLUMNS
    assert len(ledger) == 1
    entry = ledger.iloc[0]
    assert 0 < entry.spent_epsilon <= entry.cap_epsilon
    assert entry.spent_nanos == round(entry.spent_epsilon * 1e9)
    studies = client.list_studies().set_index("study_id")
    assert studies.loc[entry.study_id, "display_name"].startswith("ldp-loadtest")
    only = client.budget(1, study_id=int(entry.study_id))
    assert only.equals(ledger)


def test_client_reads_defaults_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("LDP_SERVER", server.address)
    monkeypatch.chdir(server.directory)  # where ldp.db.analyst_token is
    with Client() as c:
        assert c.server == server.address
        assert isinstance(c.list_studies(), pd.DataFrame)

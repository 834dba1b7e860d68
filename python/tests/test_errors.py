"""Refusals arrive as LdpError with the server's status code and message."""

import socket

import grpc
import pytest

from ldp_analyst import Client, LdpError, SpecError

from study_specs import COUNTING, MASKED_PARITY


def test_wrong_token_is_unauthenticated(server, tmp_path):
    wrong = tmp_path / "wrong_token"
    wrong.write_text("not-the-analyst-token-at-all\n")
    with Client(server.address, wrong) as c, pytest.raises(LdpError) as raised:
        c.list_studies()
    assert raised.value.code == grpc.StatusCode.UNAUTHENTICATED
    assert "analyst token" in raised.value.message
    assert raised.value.method == "ListStudies"
    assert "check token_file" in str(raised.value)


def test_token_file_problems_are_caught_before_any_call(server, tmp_path):
    with pytest.raises(FileNotFoundError, match="analyst_token"):
        Client(server.address, tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="is empty"):
        Client(server.address, empty)


def test_bad_spec_is_invalid_argument_naming_the_field(client):
    with pytest.raises(LdpError) as raised:
        client.create_study(dict(COUNTING, epsilon_cap_nanos="0"))
    assert raised.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "epsilon_cap_nanos" in raised.value.message


def test_question_on_an_unknown_field_is_invalid_argument(client):
    spec = dict(COUNTING, questions=[dict(COUNTING["questions"][0], statistical_query={
        "root": {"field": "vegan"}, "output_range": {"lower": 0, "upper": 1}})])
    with pytest.raises(LdpError) as raised:
        client.create_study(spec)
    assert raised.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "vegan" in raised.value.message


def test_unparseable_spec_never_reaches_the_server(client):
    with pytest.raises(SpecError, match="no_such_field"):
        client.create_study({"no_such_field": 1})


def test_round_on_a_finished_study_is_failed_precondition(client):
    study = client.create_study(COUNTING)
    with pytest.raises(LdpError) as raised:  # NONINTERACTIVE: exactly one round
        client.start_round(study.study_id)
    assert raised.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "NONINTERACTIVE" in raised.value.message


def test_round_on_a_closed_interactive_study_is_failed_precondition(client):
    study = client.create_study(MASKED_PARITY)
    client.start_round(study.study_id)
    client.start_round(study.study_id)  # closes the last round: the study is finished
    with pytest.raises(LdpError) as raised:
        client.start_round(study.study_id)
    assert raised.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "is finished" in raised.value.message


def test_unknown_study_and_agent_are_not_found(client):
    for call in (lambda: client.estimates(10**12), lambda: client.status(10**12),
                 lambda: client.budget(10**12)):
        with pytest.raises(LdpError) as raised:
            call()
        assert raised.value.code == grpc.StatusCode.NOT_FOUND


def test_nothing_listening_is_unavailable(server):
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Client(f"127.0.0.1:{port}", server.token_file, timeout=2) as c, \
            pytest.raises(LdpError) as raised:
        c.list_studies()
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
    assert "is ldp-server running" in str(raised.value)


def test_plaintext_to_another_host_is_refused_before_any_call(tmp_path):
    token = tmp_path / "token"
    token.write_text("secret\n")
    for server in ("10.1.2.3:50051", "ldp.example.org:443", "[2001:db8::1]:50051"):
        with pytest.raises(ValueError, match="plaintext"):
            Client(server=server, token_file=token)
    for server in ("127.0.0.1:50051", "localhost:50051", "[::1]:50051",
                   "127.1.2.3:9"):
        Client(server=server, token_file=token).close()

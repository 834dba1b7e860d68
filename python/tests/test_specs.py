"""Study specs from dicts, JSON and textproto (no server needed)."""

import json

import pytest

from ldp_analyst import SpecError, study_spec
from ldp_analyst.stubs import CHECKOUT, analyst_pb2

from study_specs import COUNTING, REGIONS_TEXTPROTO


def test_dict_uses_protobuf_json_mapping():
    spec = study_spec(COUNTING)
    assert spec.epsilon_cap_nanos == 1_000_000_000
    assert spec.mode == analyst_pb2.NONINTERACTIVE
    assert spec.questions[0].statistical_query.root.field == "smoker"
    assert spec.questions[0].randomizer.HasField("duchi")


def test_camel_case_names_mean_the_same_fields():
    camel = {"displayName": "x", "epsilonCapNanos": 7, "mode": "INTERACTIVE"}
    spec = study_spec(camel)
    assert (spec.display_name, spec.epsilon_cap_nanos, spec.mode) == ("x", 7,
                                                                      analyst_pb2.INTERACTIVE)


def test_json_file_text_and_dict_agree(tmp_path):
    path = tmp_path / "counting.json"
    path.write_text(json.dumps(COUNTING))
    assert study_spec(path) == study_spec(COUNTING)
    assert study_spec(str(path)) == study_spec(COUNTING)
    assert study_spec(json.dumps(COUNTING)) == study_spec(COUNTING)


def test_textproto_text_and_file(tmp_path):
    spec = study_spec(REGIONS_TEXTPROTO)
    assert list(spec.schema.fields[0].categorical_field.categories) == ["coast", "hills", "city"]
    path = tmp_path / "regions.textproto"
    path.write_text(REGIONS_TEXTPROTO)
    assert study_spec(path) == spec


def test_every_example_study_parses():
    examples = sorted((CHECKOUT / "deploy" / "examples").glob("*.textproto"))
    assert examples, "deploy/examples/*.textproto not found"
    for path in examples:
        assert study_spec(path).display_name, path


def test_a_spec_message_is_passed_through():
    spec = analyst_pb2.StudySpec(display_name="as is")
    assert study_spec(spec) is spec


@pytest.mark.parametrize("bad, words", [
    ({"display_name": "x", "no_such_field": 1}, ["the spec dict", "no_such_field"]),
    ({"mode": "SOMETIMES"}, ["the spec dict", "SOMETIMES"]),
    ("display_name: 'x' bogus: 1", ["the spec text", "bogus"]),
    ("{not json", ["the spec text", "not valid JSON"]),
    ("[1, 2]", ["the spec text", "textproto"]),
    ("missing_study.textproto", ["missing_study.textproto", "not found"]),
    (42, ["int"]),
])
def test_unreadable_specs_name_source_and_problem(bad, words):
    with pytest.raises(SpecError) as raised:
        study_spec(bad)
    for word in words:
        assert word in str(raised.value)


def test_json_file_holding_a_list_is_refused(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[]")
    with pytest.raises(SpecError, match="JSON object"):
        study_spec(path)

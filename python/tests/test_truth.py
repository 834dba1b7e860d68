"""Truth in every form ldp-loadtest writes or an analyst builds (no server)."""

import json

import pandas as pd
import pytest

from ldp_analyst import load_truth


def test_dict_with_scalars_and_sequences():
    assert load_truth({"m": 0.5, "h": (0.1, 0.9)}) == {"m": [0.5], "h": [0.1, 0.9]}


def test_truth_json_as_ldp_loadtest_writes_it(tmp_path):
    path = tmp_path / "truth.json"
    path.write_text('{"workload": [0.3135, 0.48099999999999998, 1]}\n')
    assert load_truth(path) == {"workload": [0.3135, 0.481, 1.0]}


def test_estimates_csv_as_ldp_loadtest_writes_it(tmp_path):
    path = tmp_path / "estimates.csv"
    path.write_text("question,label,truth,estimate,standard_error,lower,upper,z,covered\n"
                    "item_histogram,item=0,0.3,0.36,0.06,0.24,0.48,0.6,1\n"
                    'item_histogram,"a,b",0.7,0.07,0.05,-0.03,0.18,-1.3,1\n'
                    "mean_value,mean value,0.22,0.25,0.03,0.19,0.32,0.8,1\n")
    assert load_truth(str(path)) == {"item_histogram": [0.3, 0.7], "mean_value": [0.22]}


def test_dataframe_with_question_id_column():
    frame = pd.DataFrame({"question_id": ["a", "a", "b"], "truth": [1, 2, 3]})
    assert load_truth(frame) == {"a": [1.0, 2.0], "b": [3.0]}


def test_object_with_a_truth_attribute():
    class Run:
        truth = {"q": [1.0]}
    assert load_truth(Run()) == {"q": [1.0]}


def test_problems_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.json"):
        load_truth(tmp_path / "nowhere.json")
    with pytest.raises(ValueError, match="truth column"):
        load_truth(pd.DataFrame({"question_id": ["a"], "value": [1]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(ValueError, match="map question ids"):
        load_truth(bad)

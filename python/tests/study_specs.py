"""Small study specs the tests create, in the forms an analyst writes them."""

from ldp_analyst.stubs import CHECKOUT

# One counting query at ε = 1 (deploy/examples/counting_study.textproto), as
# a dict in protobuf's JSON mapping: enums by name, 64-bit integers as strings.
COUNTING = {
    "display_name": "pytest: one counting query",
    "epsilon_cap_nanos": "1000000000",
    "mode": "NONINTERACTIVE",
    "confidence": 0.95,
    "round_duration_seconds": 3600,
    "schema": {"fields": [{"name": "smoker", "bool_field": {}}]},
    "questions": [{
        "question_id": "smoker_share",
        "statistical_query": {"root": {"field": "smoker"},
                              "output_range": {"lower": 0, "upper": 1}},
        "randomizer": {"duchi": {}},
    }],
}

# A histogram over a categorical field, as textproto text.
REGIONS_TEXTPROTO = """
# comments are allowed, as in deploy/examples/
display_name: "pytest: regions"
epsilon_cap_nanos: 2000000000
mode: NONINTERACTIVE
confidence: 0.9
schema {
  fields { name: "region" categorical_field { categories: ["coast", "hills", "city"] } }
}
questions {
  question_id: "region_histogram"
  histogram { encoding { field { field: "region" } } }
}
"""

# An INTERACTIVE study whose analyst program asks two rounds.
MASKED_PARITY = CHECKOUT / "deploy" / "examples" / "masked_parity_study.textproto"

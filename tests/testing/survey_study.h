// A small survey study shared by tests that need a realistic
// noninteractive spec: age, smoking and region of each agent (regions "a" to
// "h"), two statistical queries (mean income with the hybrid mechanism,
// smoker share with Duchi) and a region × age-bucket histogram with OUE;
// ε = 2 per agent. In ldp.v1.StudySpec text format.
#ifndef LDP_TESTS_TESTING_SURVEY_STUDY_H_
#define LDP_TESTS_TESTING_SURVEY_STUDY_H_

namespace ldp::testing {

inline constexpr char kSurveyStudyText[] = R"pb(
  display_name: "survey"
  epsilon_cap_nanos: 2000000000
  mode: NONINTERACTIVE
  confidence: 0.95
  round_duration_seconds: 3600
  schema {
    fields { name: "age" int_field { lower: 18 upper: 89 } }
    fields { name: "smoker" bool_field {} }
    fields {
      name: "region"
      categorical_field { categories: [ "a", "b", "c", "d", "e", "f", "g", "h" ] }
    }
    fields { name: "income" real_field { lower: 0 upper: 200 } }
  }
  questions {
    question_id: "mean_income"
    statistical_query {
      root { field: "income" }
      output_range { lower: 0 upper: 200 }
    }
    randomizer { hybrid {} }
  }
  questions {
    question_id: "smoker_share"
    statistical_query {
      root { field: "smoker" }
      output_range { lower: 0 upper: 1 }
    }
    randomizer { duchi {} }
  }
  questions {
    question_id: "region_by_age"
    histogram {
      encoding {
        product {
          fields { field: "region" }
          fields { field: "age" num_buckets: 8 }
        }
      }
    }
    randomizer { oue {} }
  }
)pb";

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_SURVEY_STUDY_H_

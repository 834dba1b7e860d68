// A one-question study shared by the integration tests that need a small,
// valid histogram study (abuse, metrics): four colors, GRR, ε = 1 per
// agent, one hour.
#ifndef LDP_TESTS_INTEGRATION_COLOR_STUDY_H_
#define LDP_TESTS_INTEGRATION_COLOR_STUDY_H_

#include <string>

#include "google/protobuf/text_format.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp::testing {

inline constexpr char kColorStudyText[] = R"pb(
  epsilon_cap_nanos: 1000000000
  mode: NONINTERACTIVE
  confidence: 0.95
  round_duration_seconds: 3600
  schema {
    fields { name: "color" categorical_field { categories: [ "r", "g", "b", "y" ] } }
  }
  questions {
    question_id: "colors"
    histogram { encoding { field { field: "color" } } }
    randomizer { grr {} }
  }
)pb";

inline v1::StudySpec ColorStudy(const std::string& display_name) {
  v1::StudySpec spec;
  google::protobuf::TextFormat::ParseFromString(kColorStudyText, &spec);
  spec.set_display_name(display_name);
  return spec;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_COLOR_STUDY_H_

// The integration tests' smallest study: E[x] for one real field x in
// [0, upper], one question, ε = 1 per agent, one hour per round.
#ifndef LDP_TESTS_INTEGRATION_MEAN_STUDY_H_
#define LDP_TESTS_INTEGRATION_MEAN_STUDY_H_

#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp::testing {

// `mechanism`: the RandomizerSpec field name, e.g. "piecewise" or "duchi".
inline v1::StudySpec MeanStudySpec(std::string_view display_name, double upper,
                                   std::string_view mechanism) {
  v1::StudySpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrFormat(R"pb(
        display_name: "%s"
        epsilon_cap_nanos: 1000000000
        mode: NONINTERACTIVE
        confidence: 0.95
        round_duration_seconds: 3600
        schema { fields { name: "x" real_field { lower: 0 upper: %g } } }
        questions {
          question_id: "mean_x"
          statistical_query {
            root { field: "x" }
            output_range { lower: 0 upper: %g }
          }
          randomizer { %s {} }
        }
      )pb",
                      display_name, upper, upper, mechanism),
      &spec));
  return spec;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_MEAN_STUDY_H_

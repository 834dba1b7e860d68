// Tasks for the C ABI's tests: GRR histograms of a categorical "color"
// field, wrapped in the GetTasksResponse bytes a server would send.
#ifndef LDP_TESTS_CLIENT_CORE_COLOR_TASKS_H_
#define LDP_TESTS_CLIENT_CORE_COLOR_TASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp::testing {

inline constexpr int64_t kHalfEpsilonNanos = 500'000'000;

// A GRR histogram of "color" with `k` categories (a distinct question for
// each k), charging ε = 0.5.
inline v1::Task ColorTask(uint64_t study, uint64_t task, int k) {
  std::string categories;
  for (int i = 0; i < k; ++i) {
    absl::StrAppend(&categories, " categories: \"c", i, "\"");
  }
  const std::string text = absl::StrCat(
      "study_id: ", study, " round_id: 1 task_id: ", task,
      " epsilon_nanos: ", kHalfEpsilonNanos,
      " schema { fields { name: \"color\" categorical_field {", categories,
      " } } } encoding { field { field: \"color\" } }"
      " randomizer { grr {} epsilon_nanos: ",
      kHalfEpsilonNanos, " domain_size: ", k, " }");
  v1::Task t;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &t)) << text;
  return t;
}

// The serialized GetTasksResponse holding `tasks`.
inline std::string PollBytes(const std::vector<v1::Task>& tasks) {
  v1::GetTasksResponse response;
  for (const v1::Task& t : tasks) *response.add_tasks() = t;
  return response.SerializeAsString();
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_CLIENT_CORE_COLOR_TASKS_H_

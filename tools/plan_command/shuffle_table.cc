// The local / shuffled / central table; see the header.
#include "tools/plan_command/shuffle_table.h"

#include <cmath>
#include <cstdio>

#include "common/base/status_macros.h"
#include "common/tasks/task.h"

namespace ldp {
namespace {

// The same study in the local model: no shuffler, every agent's whole
// budget the central target, each question's ε the planner's again.
StudySpec LocalTwin(const StudySpec& spec) {
  StudySpec local = spec;
  local.shuffle.reset();
  local.epsilon_cap_nanos = static_cast<int64_t>(
      std::floor(spec.shuffle->target_epsilon * kNanosPerEpsilon));
  for (Question& q : local.questions) q.epsilon_nanos = 0;
  return local;
}

}  // namespace

absl::Status PrintShuffleComparison(const StudySpec& spec,
                                    const StudyForecast& shuffled,
                                    const ForecastOptions& options) {
  const ShuffleSpec& shuffle = *spec.shuffle;
  std::printf(
      "\nshuffled: every batch of >= %lld reports is (%.4g, %.3g)-DP "
      "against the server alone; each report is epsilon0-LDP against a "
      "server colluding with the shuffler\n",
      static_cast<long long>(shuffle.min_batch), shuffle.target_epsilon,
      shuffle.delta);
  if (options.num_agents <= 0) {
    std::printf("(give --agents=N for the errors side by side)\n");
    return absl::OkStatus();
  }
  ForecastOptions local_options = options;
  local_options.plan = nullptr;
  ASSIGN_OR_RETURN(const StudyForecast local,
                   ForecastStudy(LocalTwin(spec), local_options));
  std::printf("%-16s %9s %12s %9s %12s %12s %10s\n", "question", "eps",
              "local ±", "eps0", "shuffled ±", "central ±", "MSE gain");
  for (size_t i = 0; i < shuffled.questions.size(); ++i) {
    const QuestionForecast& s = shuffled.questions[i];
    const QuestionForecast& l = local.questions[i];
    const double ratio = l.local.half_width / s.local.half_width;
    std::printf("%-16s %9.4g %12.5g %9.4g %12.5g %12.5g %9.4gx\n",
                s.question_id.c_str(), l.local.epsilon, l.local.half_width,
                s.local.epsilon, s.local.half_width, l.central.half_width,
                ratio * ratio);
  }
  return absl::OkStatus();
}

}  // namespace ldp

// The agent's caps; see the header.
#include "client/core/agent_budget.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/core/state_lines.h"

namespace ldp {
namespace {

StudyBudget StudyAfterCaps(const AgentState& state, const Charge& charge) {
  const auto it = state.studies.find(charge.study_id);
  StudyBudget budget = it != state.studies.end()
                           ? it->second
                           : StudyBudget{charge.own_study_cap, 0, charge.now};
  int64_t cap = std::min(budget.cap_nanos, charge.own_study_cap);
  if (charge.announced_cap > 0) cap = std::min(cap, charge.announced_cap);
  budget.cap_nanos = std::max(cap, budget.spent_nanos);
  return budget;
}

absl::Status Exceeds(const Charge& charge, int64_t remaining,
                     absl::string_view which, int64_t cap) {
  return absl::FailedPreconditionError(
      absl::StrCat("it charges ", EpsilonText(charge.nanos),
                   " epsilon but only ", EpsilonText(remaining), " of ", which,
                   " ", EpsilonText(cap), " remains"));
}

}  // namespace

absl::Status CheckCharge(const AgentState& state, const Charge& charge) {
  const StudyBudget study = StudyAfterCaps(state, charge);
  if (charge.nanos > study.cap_nanos - study.spent_nanos) {
    return Exceeds(charge, study.cap_nanos - study.spent_nanos,
                   "the study's cap", study.cap_nanos);
  }
  const AgentCaps& caps = state.caps;
  if (caps.lifetime_nanos != kUnlimitedNanos &&
      charge.nanos > caps.lifetime_nanos - state.lifetime_spent_nanos) {
    return Exceeds(charge, caps.lifetime_nanos - state.lifetime_spent_nanos,
                   "the agent's lifetime cap", caps.lifetime_nanos);
  }
  if (caps.period_nanos != kUnlimitedNanos) {
    const int64_t spent = state.SpentSince(charge.now - caps.period_seconds);
    if (charge.nanos > caps.period_nanos - spent) {
      return Exceeds(
          charge, caps.period_nanos - spent,
          absl::StrCat("the agent's cap per ", caps.period_seconds, " s"),
          caps.period_nanos);
    }
  }
  return absl::OkStatus();
}

int64_t BookCharge(AgentState& state, const Charge& charge) {
  StudyBudget study = StudyAfterCaps(state, charge);
  study.spent_nanos += charge.nanos;
  study.last_used = charge.now;
  int64_t grown = 0;
  if (auto it = state.studies.find(charge.study_id);
      it != state.studies.end()) {
    grown -= StudyLineSize(it->first, it->second);
  }
  grown += StudyLineSize(charge.study_id, study);
  state.studies[charge.study_id] = study;
  // Lifetime digits may grow too; a few bytes of slack cover that.
  state.lifetime_spent_nanos += charge.nanos;
  const SpendEntry spend{charge.now, charge.nanos};
  grown += SpendLineSize(spend) + 1;
  state.spends.push_back(spend);
  return grown;
}

}  // namespace ldp

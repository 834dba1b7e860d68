// One upload transaction's statistics; see the header.
#include "server/rounds/batch_statistics.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "common/tasks/task_id.h"
#include "server/rounds/round_states.h"

namespace ldp {
namespace {

// Ids name deltas, not people: they need to be unique, not secret. A
// repeat among 2^63 is refused by the database (its primary key) and the
// transaction fails.
absl::StatusOr<uint64_t> NewDeltaId() {
  ASSIGN_OR_RETURN(const uint64_t word, RandomWord());
  return word >> 1 | 1;  // in [1, 2^63)
}

}  // namespace

BatchStatistics::Part& BatchStatistics::PartOf(
    const std::shared_ptr<RoundRuntime>& round, uint64_t agent_id) {
  // A batch's reports come grouped by round: the last part is the usual one.
  for (auto it = parts_.rbegin(); it != parts_.rend(); ++it) {
    if (it->round == round) return *it;
  }
  Part& part = parts_.emplace_back();
  part.round = round;
  part.agent_id = agent_id;
  part.questions = EmptyAccumulators(*round);
  return part;
}

absl::Status BatchStatistics::Add(const std::shared_ptr<RoundRuntime>& round,
                                  int q, uint64_t agent_id,
                                  const ReportPayload& payload) {
  Part& part = PartOf(round, agent_id);
  absl::Status added = part.questions[q].Add(payload);
  if (added.ok()) {
    part.task_ids.push_back(PackTaskId({.round_id = round->round_id(),
                                        .agent_id = agent_id,
                                        .question = static_cast<uint32_t>(q)}));
    return added;
  }
  // Admission validated the payload with the same mechanism: a bug.
  return absl::InternalError(
      absl::StrCat("a report admitted to round ", round->round_id(),
                   " cannot be counted: ", added.message()));
}

absl::StatusOr<std::vector<DeltaRow>> BatchStatistics::Deltas() {
  std::vector<DeltaRow> rows;
  rows.reserve(parts_.size());
  for (Part& part : parts_) {
    ASSIGN_OR_RETURN(part.delta_id, NewDeltaId());
    std::sort(part.task_ids.begin(), part.task_ids.end());
    rows.push_back(
        {.delta_id = part.delta_id,
         .round_id = part.round->round_id(),
         .agent_id = part.agent_id,
         .statistics = EncodeAccumulators(part.questions, part.task_ids)});
  }
  return rows;
}

absl::Status BatchStatistics::MergeIntoRounds() {
  for (Part& part : parts_) {
    // A sum no store keeps is offered by this server alone: nothing to
    // count it twice, so it takes no place among the merged delta ids.
    if (part.delta_id == 0) {
      RETURN_IF_ERROR(part.round->MergeBatch(part.questions));
    } else {
      RETURN_IF_ERROR(
          part.round->MergeDelta(part.delta_id, part.questions).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace ldp

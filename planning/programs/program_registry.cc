// The table of analyst programs. A program joins by adding one line here.
#include "planning/programs/program_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "planning/programs/heavy_hitters.h"
#include "planning/programs/logistic_regression.h"
#include "planning/programs/masked_parity.h"
#include "planning/programs/sequence_fragments.h"
#include "planning/programs/threshold_learner.h"
#include "planning/programs/tree_hist.h"

namespace ldp {
namespace {

using Factory = absl::StatusOr<std::unique_ptr<AnalystProgram>> (*)(
    const ProgramSpec&, const ProgramContext&);

struct Entry {
  const char* name;
  Factory create;
};

constexpr Entry kPrograms[] = {
    {"heavy_hitters", &CreateHeavyHittersProgram},
    {"logistic_regression", &CreateLogisticRegressionProgram},
    {"masked_parity", &CreateMaskedParityProgram},
    {"masked_parity_noninteractive", &CreateNoninteractiveMaskedParityProgram},
    {"sequence_fragments", &CreateSequenceFragmentsProgram},
    {"threshold_learner", &CreateThresholdLearnerProgram},
    {"treehist", &CreateTreeHistProgram},
};

}  // namespace

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateAnalystProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  for (const Entry& entry : kPrograms) {
    if (spec.name == entry.name) return entry.create(spec, context);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown analyst program \"", spec.name,
                   "\"; known: ", absl::StrJoin(AnalystProgramNames(), ", ")));
}

std::vector<std::string> AnalystProgramNames() {
  std::vector<std::string> names;
  for (const Entry& entry : kPrograms) names.push_back(entry.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ldp

// Analyst programs by name, as a study file names them.
#ifndef LDP_PLANNING_PROGRAMS_PROGRAM_REGISTRY_H_
#define LDP_PLANNING_PROGRAMS_PROGRAM_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

// InvalidArgument for an unknown name (listing the known ones), bad
// parameters, or a schema the program cannot work with.
absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateAnalystProgram(
    const ProgramSpec& spec, const ProgramContext& context);

// Every registered name, sorted.
std::vector<std::string> AnalystProgramNames();

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_PROGRAM_REGISTRY_H_

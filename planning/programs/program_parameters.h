// Typed access to an analyst program's string parameters, with errors that
// name the program, the parameter and what it accepts, and a final check
// that catches misspelt names instead of silently using defaults.
#ifndef LDP_PLANNING_PROGRAMS_PROGRAM_PARAMETERS_H_
#define LDP_PLANNING_PROGRAMS_PROGRAM_PARAMETERS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ldp {

class ProgramParameters {
 public:
  ProgramParameters(std::string program,
                    std::map<std::string, std::string> parameters)
      : program_(std::move(program)), parameters_(std::move(parameters)) {}

  // The parameter as an integer in [min, max]; `fallback` when absent.
  absl::StatusOr<int64_t> Int(std::string_view name, int64_t fallback,
                              int64_t min, int64_t max);
  // A finite real in [min, max]; `fallback` when absent.
  absl::StatusOr<double> Real(std::string_view name, double fallback,
                              double min, double max);
  absl::StatusOr<std::string> String(std::string_view name,
                                     std::string fallback);

  // InvalidArgument naming every parameter no getter asked for.
  absl::Status CheckAllUsed() const;

  const std::string& program() const { return program_; }

 private:
  const std::string* Find(std::string_view name);

  std::string program_;
  std::map<std::string, std::string> parameters_;
  std::set<std::string, std::less<>> used_;
};

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_PROGRAM_PARAMETERS_H_

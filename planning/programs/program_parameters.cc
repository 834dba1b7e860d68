// Parameter parsing for analyst programs; see the header.
#include "planning/programs/program_parameters.h"

#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ldp {

const std::string* ProgramParameters::Find(std::string_view name) {
  used_.insert(std::string(name));
  const auto it = parameters_.find(std::string(name));
  return it == parameters_.end() ? nullptr : &it->second;
}

absl::StatusOr<int64_t> ProgramParameters::Int(std::string_view name,
                                               int64_t fallback, int64_t min,
                                               int64_t max) {
  const std::string* text = Find(name);
  if (text == nullptr) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "program %s: parameter %s must be an integer in [%d, %d], got \"%s\"",
        program_, name, min, max, *text));
  }
  return value;
}

absl::StatusOr<double> ProgramParameters::Real(std::string_view name,
                                               double fallback, double min,
                                               double max) {
  const std::string* text = Find(name);
  if (text == nullptr) return fallback;
  double value = 0;
  if (!absl::SimpleAtod(*text, &value) || !std::isfinite(value) ||
      value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "program %s: parameter %s must be a number in [%g, %g], got \"%s\"",
        program_, name, min, max, *text));
  }
  return value;
}

absl::StatusOr<std::string> ProgramParameters::String(std::string_view name,
                                                      std::string fallback) {
  const std::string* text = Find(name);
  return text == nullptr ? fallback : *text;
}

absl::Status ProgramParameters::CheckAllUsed() const {
  std::vector<std::string> unknown;
  for (const auto& [name, value] : parameters_) {
    if (!used_.contains(name)) unknown.push_back(name);
  }
  if (unknown.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "program ", program_, " has no parameter(s) ",
      absl::StrJoin(unknown, ", "), "; known: ", absl::StrJoin(used_, ", ")));
}

}  // namespace ldp

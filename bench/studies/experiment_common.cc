// ExperimentMain, CsvOutput and markdown headers; see the header.
#include "bench/studies/experiment_common.h"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"

namespace ldp {

int ExperimentMain(int argc, char** argv, const char* usage,
                   absl::FunctionRef<int()> run) {
  absl::SetProgramUsageMessage(usage);
  absl::ParseCommandLine(argc, argv);
  return run();
}

CsvOutput::~CsvOutput() {
  if (file_ != nullptr) std::fclose(file_);
}

bool CsvOutput::Open(const std::string& path, const char* header) {
  if (path.empty()) return true;
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) return false;
  std::fputs(header, file_);
  return true;
}

void CsvOutput::Write(const char* format, ...) {
  if (file_ == nullptr) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(file_, format, args);
  va_end(args);
  std::fflush(file_);
}

void CsvOutput::Flush() {
  if (file_ != nullptr) std::fflush(file_);
}

void PrintMarkdownHeader(std::initializer_list<std::string_view> columns) {
  std::string out = "|";
  for (std::string_view column : columns) {
    out.append(" ").append(column).append(" |");
  }
  out += "\n|";
  for (size_t i = 0; i < columns.size(); ++i) out += "---|";
  out += "\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace ldp

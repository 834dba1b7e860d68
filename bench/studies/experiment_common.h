// What the experiment binaries do alike: parse the command line under a
// usage message, write an optional CSV of results whose rows reach the disk
// at once, and print markdown table headers.
#ifndef LDP_BENCH_STUDIES_EXPERIMENT_COMMON_H_
#define LDP_BENCH_STUDIES_EXPERIMENT_COMMON_H_

#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace ldp {

// The whole main() of an experiment: sets `usage`, parses the flags and
// returns run()'s exit code.
int ExperimentMain(int argc, char** argv, const char* usage,
                   absl::FunctionRef<int()> run);

// A CSV file of results, or nothing when no path was given. Every row is
// flushed as it is written, so an experiment stopped after hours keeps what
// it measured.
class CsvOutput {
 public:
  CsvOutput() = default;
  CsvOutput(const CsvOutput&) = delete;
  CsvOutput& operator=(const CsvOutput&) = delete;
  ~CsvOutput();

  // Creates `path` and writes `header` (a whole line) to it; an empty path
  // means no file. False, with errno set, when the file cannot be created:
  // the caller reports it in its own words.
  bool Open(const std::string& path, const char* header);

  // One printf-style line; nothing without a file.
  void Write(const char* format, ...) __attribute__((format(printf, 2, 3)));

  // The open file, or nullptr: for rows written with absl::FPrintF.
  std::FILE* file() const { return file_; }
  // Flushes after a row written through file().
  void Flush();

 private:
  std::FILE* file_ = nullptr;
};

// Prints "| a | b |\n|---|---|\n" to stdout.
void PrintMarkdownHeader(std::initializer_list<std::string_view> columns);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_EXPERIMENT_COMMON_H_

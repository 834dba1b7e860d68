// ldp-loadtest's --out files: the timeline's per-second buckets, a summary
// that parses back as JSON with the run's figures, CSV rows for every
// released value (quoted where needed), and the SVG plots.
#include "tools/loadtest_core/loadtest_output.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ThroughputTimeline, CountsPerWholeSecond) {
  const absl::Time start = absl::FromUnixSeconds(1000);
  ThroughputTimeline timeline(start);
  timeline.Record(start + absl::Milliseconds(100), 3);
  timeline.Record(start + absl::Milliseconds(999), 2);
  timeline.Record(start + absl::Milliseconds(2500), 7);
  timeline.Record(start - absl::Seconds(1), 1);  // clock skew: second 0
  EXPECT_EQ(timeline.PerSecond(), (std::vector<int64_t>{6, 0, 7}));
}

TEST(LoadtestOutput, WritesSummaryCsvAndPlots) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "loadtest_out" / "nested";
  std::filesystem::remove_all(dir);
  const LoadtestSummary summary{.mode = "sessions",
                                .configuration = {{"agents", "100"}},
                                .agents = 100,
                                .reports_accepted = 180,
                                .reports_rejected = 2,
                                .seconds = 2,
                                .uploads = 100,
                                .p50 = absl::Milliseconds(3),
                                .p90 = absl::Milliseconds(5),
                                .p99 = absl::Milliseconds(9),
                                .max = absl::Milliseconds(12),
                                .errors = {{"ack INVALID_ARGUMENT", 2}}};
  const std::vector<EstimateSeries> estimates = {
      {.question = "item_histogram",
       .title = "histogram",
       .values = {{.label = "a,b",
                   .truth = 0.5,
                   .estimate = 0.52,
                   .standard_error = 0.01,
                   .interval = {0.50, 0.54},
                   .z = 2,
                   .covered = false},
                  {.label = "c",
                   .truth = 0.5,
                   .estimate = 0.48,
                   .standard_error = 0.01,
                   .interval = {0.46, 0.50},
                   .z = -2,
                   .covered = true}}},
      {.question = "mean value/x",
       .title = "mean",
       .values = {{.label = "mean",
                   .truth = 0.3,
                   .estimate = 0.31,
                   .standard_error = 0.02,
                   .interval = {0.27, 0.35},
                   .z = 0.5,
                   .covered = true}}}};
  ASSERT_OK(WriteLoadtestOutput(dir.string(), summary, {90, 90}, estimates));

  const nlohmann::json json = nlohmann::json::parse(Read(dir / "summary.json"));
  EXPECT_EQ(json["reports_accepted"], 180);
  EXPECT_DOUBLE_EQ(json["reports_per_second"].get<double>(), 90);
  EXPECT_DOUBLE_EQ(json["ack_latency_seconds"]["p99"].get<double>(), 0.009);
  EXPECT_EQ(json["errors"]["ack INVALID_ARGUMENT"], 2);
  EXPECT_EQ(json["configuration"]["agents"], "100");

  EXPECT_EQ(Read(dir / "throughput.csv"), "second,reports\n0,90\n1,90\n");
  const std::string values = Read(dir / "estimates.csv");
  EXPECT_THAT(values,
              StartsWith("question,label,truth,estimate,standard_error,"));
  EXPECT_THAT(values, HasSubstr("item_histogram,\"a,b\",0.5,0.52"));
  EXPECT_EQ(std::count(values.begin(), values.end(), '\n'), 4);  // header + 3

  EXPECT_THAT(Read(dir / "throughput.svg"), HasSubstr("reports/s"));
  EXPECT_THAT(Read(dir / "item_histogram.svg"), StartsWith("<svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "mean_value_x.svg"));
}

TEST(LoadtestOutput, ReportsADirectoryItCannotCreate) {
  const std::filesystem::path file =
      std::filesystem::path(::testing::TempDir()) / "loadtest_out_file";
  std::ofstream(file) << "not a directory";
  const absl::Status status =
      WriteLoadtestOutput((file / "sub").string(), LoadtestSummary{}, {}, {});
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(status.message()), HasSubstr("--out"));
}

}  // namespace
}  // namespace ldp

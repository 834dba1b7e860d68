// ldp-loadtest's report on stdout: counts, throughput and acknowledgement
// latency; then the server's estimates beside the truth over the agents
// whose report was acknowledged (each error in standard errors, a
// workload's answers against its simultaneous band); and with several
// replicas, that they all give the same estimates. The same numbers go to
// --out's files through loadtest_output.h.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_REPORT_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_REPORT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/loadtest/loadtest_sessions.h"
#include "tools/loadtest_core/loadtest_output.h"
#include "tools/loadtest_core/population_source.h"

namespace ldp {

struct EstimateReportOptions {
  // Rows printed per histogram or workload (--top).
  int top = 10;
  // With a workload: write the true answers here as JSON (--truth_out).
  std::string truth_out{};
};

struct RunReportOptions {
  EstimateReportOptions estimates{};
  // --out: the directory for the run's files; empty = none.
  std::string out_dir{};
  // A shuffled study: how long to wait for the shuffler's batches (0: no
  // estimates, see WaitForShuffler).
  int shuffle_wait_seconds = 0;
  // summary.json's configuration: flag names and values.
  std::map<std::string, std::string> flag_values{};
};

// "Created study ...": the study just created, the population it asks
// (--distribution `distribution`), --epsilon `epsilon`, and for a shuffled
// study its shuffler and target.
void PrintStudyCreated(const Shared& shared, const PopulationOptions& options,
                       const std::string& distribution, double epsilon);

// Sessions or bulk: counts, failures, errors, throughput, ack latency.
void PrintThroughput(const Shared& shared, absl::Duration elapsed);

// The run as --out's summary.json records it; `configuration` maps flag
// names to their values.
LoadtestSummary Summary(const Shared& shared, absl::Duration elapsed,
                        std::map<std::string, std::string> configuration);

// Fetches the study's estimates and prints each beside its truth; adds one
// series per question to `series` for the --out files.
absl::Status PrintEstimates(const AnalystClient& analyst, const Shared& shared,
                            const EstimateReportOptions& options,
                            std::vector<EstimateSeries>& series);

// After the agents: the estimates beside the truth (for a shuffled study
// once the server has counted the shuffler's batches), that the replicas
// agree, and the --out files. FailedPrecondition if no report was accepted.
absl::Status ReportRun(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    const Shared& shared, absl::Duration elapsed,
    const ThroughputTimeline& timeline, const RunReportOptions& options);

// One analyst client per --server replica; InvalidArgument for none.
absl::StatusOr<std::vector<std::unique_ptr<AnalystClient>>> ConnectReplicas(
    const std::vector<std::string>& servers, const LoadtestConfig& config,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials);

// Replicas after the first learn of a new study from their database within
// their follow interval; asking each for it makes them catch up now, so no
// agent is sent there before its replica has the study's tasks.
absl::Status WaitForStudyOnReplicas(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    uint64_t study_id);

// Every replica must give the same estimates (they all read one database).
absl::Status CheckReplicasAgree(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    uint64_t study_id);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_REPORT_H_

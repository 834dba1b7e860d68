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

namespace ldp {

struct EstimateReportOptions {
  // Rows printed per histogram or workload (--top).
  int top = 10;
  // With a workload: write the true answers here as JSON (--truth_out).
  std::string truth_out{};
};

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

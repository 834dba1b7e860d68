// ldp-loadtest --shuffler: what a shuffled study adds to a run. The study
// gets the central target and a cap the planner's ε0 fits in; the agents
// get channels to the shuffler. The shuffler acknowledges a sealed report
// when it is durable there, but the server counts it only once the
// shuffler releases a whole batch (at a threshold in [min, min +
// ceil(0.1·min)] per question, drawn by the shuffler), so the load test
// waits for the server's count to settle before it reads the estimates,
// and prints each estimate's central guarantee beside its local ε0.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_SHUFFLE_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_SHUFFLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "proto/ldp/v1/types.pb.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/loadtest/loadtest_sessions.h"
#include "tools/loadtest/loadtest_study.h"

namespace ldp {

// ldp-loadtest's --shuffler flags, as read.
struct ShuffleChoice {
  std::string shuffler{};  // empty: a local study
  std::string ca_file{};
  double target_epsilon = 0;  // --epsilon
  double delta = 0;
  int64_t min_batch = 0;
  int wait_seconds = 0;
  bool callback_sessions = false;  // --in_flight > 0
};

// Makes config's study shuffled (nothing without a shuffler): the target
// from `choice`, and epsilon_nanos, the study's and the simulated agents'
// cap, kShuffledStudyCapNanos. InvalidArgument, naming the flag, for
// values the server would refuse or a driver that cannot submit.
absl::Status SetShuffle(const ShuffleChoice& choice, LoadtestConfig& config);

// One line under "Created study": the shuffler and the target.
void PrintShuffledStudy(const std::string& shuffler,
                        const LoadtestConfig& config);

// The credentials for --shuffler `address`: TLS to `ca_file`'s CA, or
// plaintext on loopback only (a ticket names its agent, so plaintext off
// the machine would show which agent answered which question).
// InvalidArgument otherwise, or for a shuffler at --server's address.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ShufflerCredentials(
    const std::string& address, const std::string& ca_file,
    const std::vector<std::string>& servers);

// MakeStubs, with --shuffler's channels over ShufflerCredentials when the
// study is shuffled.
absl::Status OpenChannels(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const std::string& shuffler_ca_file, Shared& shared);

struct ShuffledWaitOptions {
  // Reports the shuffler acknowledged.
  int64_t submitted = 0;
  // The study's min_batch and question count: up to one batch threshold
  // per question may stay in the shuffler, short of a full batch.
  int64_t min_batch = 0;
  int num_questions = 1;
  // Give up after this long (then print what the server has).
  absl::Duration timeout = absl::Minutes(5);
  // The count has settled once it has not grown for this long.
  absl::Duration settle = absl::Seconds(3);
  absl::Duration poll_interval = absl::Milliseconds(250);
};

// The most reports the shuffler may still hold once every full batch has
// left: one threshold's worth less one per question, at its default
// --extra_max_fraction of 0.1.
int64_t MaxHeldByShuffler(int64_t min_batch, int num_questions);

// Polls the study until its report count stops growing for `settle` and
// is at least submitted − MaxHeldByShuffler, or `timeout` passes; prints
// what it waited for on stdout and returns the server's count.
// FailedPrecondition, saying why, if the server counts no report at all.
absl::StatusOr<int64_t> WaitForShuffledReports(
    const AnalystClient& analyst, uint64_t study_id,
    const ShuffledWaitOptions& options);

// For a shuffled run: WaitForShuffledReports for up to `wait_seconds`;
// false, after saying so, when it is 0 (then no estimates are read).
absl::StatusOr<bool> WaitForShuffler(const AnalystClient& analyst,
                                     const Shared& shared, int wait_seconds);

// "  shuffled: (ε, δ)-DP against the server alone from N batches, smallest
// M; each report ε0-LDP", for an estimate's guarantee.
void PrintShuffledGuarantee(const v1::ShuffledGuarantee& guarantee);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_SHUFFLE_H_

// Waiting for the shuffler's batches, and their guarantee; see the header.
#include "tools/loadtest/loadtest_shuffle.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/agent_client/agent_client.h"
#include "common/base/host_address.h"
#include "common/base/status_macros.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {
namespace {

absl::StatusOr<int64_t> ServerCount(const AnalystClient& analyst,
                                    uint64_t study_id) {
  v1::GetStudyRequest request;
  request.set_study_id(study_id);
  ASSIGN_OR_RETURN(const v1::Study study, analyst.GetStudy(request));
  return static_cast<int64_t>(study.status().num_reports());
}

// The server's count once it has settled, and when it last grew (from the
// start of the wait).
struct Settled {
  int64_t count = 0;
  absl::Duration last_growth = absl::ZeroDuration();
};

// Polls until the count is at least `expected` and has not grown for
// options.settle, or options.timeout passes.
absl::StatusOr<Settled> PollUntilSettled(const AnalystClient& analyst,
                                         uint64_t study_id, int64_t expected,
                                         const ShuffledWaitOptions& options) {
  const absl::Time start = absl::Now();
  Settled settled{.count = -1};
  absl::Time grew = start;
  for (;;) {
    ASSIGN_OR_RETURN(const int64_t count, ServerCount(analyst, study_id));
    const absl::Time now = absl::Now();
    if (count != settled.count) {
      // The first poll sets the baseline; only later growth is a batch
      // arriving during the wait.
      if (settled.count >= 0) grew = now;
      settled.count = count;
    }
    if (count >= expected && now - grew >= options.settle) break;
    if (now - start >= options.timeout) break;
    absl::SleepFor(options.poll_interval);
  }
  settled.last_growth = grew - start;
  return settled;
}

}  // namespace

absl::Status SetShuffle(const ShuffleChoice& choice, LoadtestConfig& config) {
  if (choice.shuffler.empty()) {
    if (choice.ca_file.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "--shuffler_ca_file needs --shuffler (the shuffler's address)");
  }
  if (choice.callback_sessions) {
    return absl::InvalidArgumentError(
        "--shuffler works with --mode=bulk or with --threads session "
        "workers (each a real AgentClient with a shuffler); the --in_flight "
        "callback driver cannot submit sealed reports");
  }
  if (!(choice.delta > 0 && choice.delta < 1) ||
      choice.min_batch < kMinShuffleBatch ||
      choice.min_batch > kMaxShuffleBatch ||
      choice.target_epsilon > kMaxShuffleTargetEpsilon ||
      choice.wait_seconds < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "with --shuffler: --shuffle_delta must be in (0, 1), "
        "--shuffle_min_batch at least ",
        kMinShuffleBatch, ", --epsilon (the central target) at most ",
        kMaxShuffleTargetEpsilon, " and --shuffle_wait_seconds >= 0"));
  }
  config.shuffle = ShuffleSpec{.target_epsilon = choice.target_epsilon,
                               .delta = choice.delta,
                               .min_batch = choice.min_batch};
  config.epsilon_nanos = kShuffledStudyCapNanos;
  return absl::OkStatus();
}

void PrintShuffledStudy(const std::string& shuffler,
                        const LoadtestConfig& config) {
  std::printf(
      "Shuffled through %s: (%g, %g)-DP against the server alone from "
      "batches of >= %lld; each report at the planner's epsilon0 (cap %g)\n",
      shuffler.c_str(), config.shuffle->target_epsilon, config.shuffle->delta,
      static_cast<long long>(config.shuffle->min_batch),
      static_cast<double>(config.epsilon_nanos) / kNanosPerEpsilon);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ShufflerCredentials(
    const std::string& address, const std::string& ca_file,
    const std::vector<std::string>& servers) {
  if (std::find(servers.begin(), servers.end(), address) != servers.end()) {
    return absl::InvalidArgumentError(
        "--shuffler names a --server: a shuffler only hides who reported from "
        "a server it is not");
  }
  if (!ca_file.empty())
    return ChannelCredentialsFromFiles({.ca_file = ca_file});
  const size_t colon = address.rfind(':');
  if (!IsLoopback(colon == std::string::npos ? address
                                             : address.substr(0, colon))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shuffler=", address,
                     " is not on loopback: give --shuffler_ca_file (the CA its "
                     "certificate chains to)"));
  }
  return grpc::InsecureChannelCredentials();
}

absl::Status OpenChannels(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const std::string& shuffler_ca_file, Shared& shared) {
  std::shared_ptr<grpc::ChannelCredentials> shuffler_credentials;
  if (shared.config.shuffle.has_value()) {
    ASSIGN_OR_RETURN(shuffler_credentials,
                     ShufflerCredentials(shared.run.shuffler, shuffler_ca_file,
                                         shared.run.servers));
  }
  MakeStubs(credentials, shuffler_credentials, shared);
  return absl::OkStatus();
}

int64_t MaxHeldByShuffler(int64_t min_batch, int num_questions) {
  // ceil(0.1·min) as the shuffler computes it, in integers.
  const int64_t threshold_max = min_batch + (min_batch + 9) / 10;
  return num_questions * (threshold_max - 1);
}

absl::StatusOr<int64_t> WaitForShuffledReports(
    const AnalystClient& analyst, uint64_t study_id,
    const ShuffledWaitOptions& options) {
  const int64_t expected = std::max<int64_t>(
      1, options.submitted -
             MaxHeldByShuffler(options.min_batch, options.num_questions));
  std::printf(
      "\nWaiting up to %s for the shuffler's batches: the server counts a "
      "report once its batch is released (at least %lld of %lld expected)\n",
      absl::FormatDuration(options.timeout).c_str(),
      static_cast<long long>(expected),
      static_cast<long long>(options.submitted));
  std::fflush(stdout);
  ASSIGN_OR_RETURN(const Settled settled,
                   PollUntilSettled(analyst, study_id, expected, options));
  if (settled.count == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the server counted no report in ",
        absl::FormatDuration(options.timeout),
        ": the shuffler releases a question's reports only in batches of at "
        "least min_batch (",
        options.min_batch,
        "), or at the round's deadline less its margin; run more agents, a "
        "smaller --shuffle_min_batch, or check the shuffler's log"));
  }
  std::printf(
      "  the server counts %lld of the %lld reports the shuffler took; the "
      "last of them %s after the last submit%s\n",
      static_cast<long long>(settled.count),
      static_cast<long long>(options.submitted),
      absl::FormatDuration(settled.last_growth).c_str(),
      settled.count < expected ? " (gave up waiting for the rest)" : "");
  return settled.count;
}

absl::StatusOr<bool> WaitForShuffler(const AnalystClient& analyst,
                                     const Shared& shared, int wait_seconds) {
  if (wait_seconds == 0) {
    std::printf(
        "\nNot waiting for the shuffler's batches (--shuffle_wait_seconds=0): "
        "`ldp results %llu` shows the estimates once they reach the server.\n",
        static_cast<unsigned long long>(shared.study_id));
    return false;
  }
  RETURN_IF_ERROR(
      WaitForShuffledReports(
          analyst, shared.study_id,
          {.submitted = shared.totals.accepted,
           .min_batch = shared.config.shuffle->min_batch,
           .num_questions = shared.config.workload.has_value() ? 1 : 2,
           .timeout = absl::Seconds(wait_seconds)})
          .status());
  return true;
}

void PrintShuffledGuarantee(const v1::ShuffledGuarantee& g) {
  std::printf(
      "  shuffled: (%.4g, %.3g)-DP against the server alone from %llu "
      "batches, smallest %llu; each report %.4g-LDP\n",
      g.central_epsilon(), g.delta(),
      static_cast<unsigned long long>(g.num_batches()),
      static_cast<unsigned long long>(g.smallest_batch()), g.local_epsilon());
}

}  // namespace ldp

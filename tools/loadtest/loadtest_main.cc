// ldp-loadtest: drives ldp-server with N simulated agents, each a real agent
// session through the client library (Agent + AgentClient, state in memory)
// or, with --mode=bulk, batches of Agents over relay streams (RelayClient),
// showing progress on stderr, then prints the server's estimates beside the
// true population values, the error of each in standard errors, ingest
// throughput, the p50/p90/p99/max latency of report acknowledgements and
// errors by status code; --out DIR writes the same as files and plots
// (loadtest_output.h).
//
// Flow: create one noninteractive study (a histogram of `item` and the mean
// of `value`, see population_source.h; or with --workload one workload
// question over `item`, or for marginals and parities over the bits of
// `item` as bool fields) through AnalystService; run the
// sessions (enroll, poll, answer, upload) on a fixed pool of worker threads
// sharing a few channels, or --in_flight at a time on gRPC's callback API;
// fetch the estimates. The truth each estimate is
// compared with is computed over the agents whose report for that question
// was acknowledged, which is exactly the population the estimate describes.
// With --shuffler the study is shuffled: the agents seal their reports for
// an ldp-shuffler, and the estimates are read once the server has counted
// its batches (loadtest_shuffle).
// The flags live here and are read once into LoadtestConfig,
// LoadtestRunOptions and RunReportOptions; the work is in
// loadtest_study (the study), loadtest_sessions (the agents) and
// loadtest_report (what is printed).
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/core/atomic_file.h"
#include "client/tls_flags/tls_flags.h"
#include "common/base/clock.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/tasks/study_spec.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/loadtest/loadtest_report.h"
#include "tools/loadtest/loadtest_sessions.h"
#include "tools/loadtest/loadtest_shuffle.h"
#include "tools/loadtest/loadtest_study.h"
#include "tools/loadtest_core/loadtest_output.h"
#include "tools/loadtest_core/population_source.h"
#include "tools/loadtest_core/progress_meter.h"

ABSL_FLAG(std::string, server, "localhost:50051",
          "ldp-server address (host:port), or several replicas on one "
          "PostgreSQL database, comma-separated: the study is created on the "
          "first, estimates are read from each (they must agree), and the "
          "channels (bulk: streams) take the replicas in turn.");
ABSL_FLAG(std::string, analyst_token_file, "",
          "File holding the analyst token (to create the study and read "
          "estimates). Required.");
ABSL_FLAG(std::string, enrollment_token, "", "Token the agents enroll with.");
ABSL_FLAG(std::string, mode, "sessions",
          "sessions: every agent enrolls, polls and uploads on its own calls "
          "(AgentService), --threads at a time. bulk: agents are enrolled, "
          "polled and uploaded --batch at a time over --streams relay "
          "streams (RelayService; the server needs --relay_service), for raw "
          "ingest throughput. Both run every report through a real Agent.");
ABSL_FLAG(int64_t, agents, 1000, "Number of simulated agents (>= 1).");
ABSL_FLAG(int, threads, 8, "Worker threads running agent sessions (>= 1).");
ABSL_FLAG(int, streams, 4,
          "--mode=bulk: concurrent relay streams, each with its own worker "
          "thread and one batch in flight (>= 1).");
ABSL_FLAG(double, rate, 0,
          "Agents started per second, at most, over all workers (to measure "
          "latency below peak, e.g. at 80% of a previous run's rate); 0 = as "
          "fast as the server answers.");
ABSL_FLAG(int, batch, 1000,
          "--mode=bulk: agents per EnrollBatch/GetTasksBatch call and reports "
          "per upload message (1 to 1000).");
ABSL_FLAG(int, channels, 2, "gRPC channels shared by the workers (>= 1).");
ABSL_FLAG(int, agent_attempts, 8,
          "Tries (>= 1, the first included) per call of each agent with "
          "--mode=sessions and --threads (ldp-agent's own default), and per "
          "relay enrollment with --mode=bulk; "
          "UNAVAILABLE and other transient answers are tried again after a "
          "backoff that doubles from 0.1 s up to 30 s. More rides out a "
          "longer outage (say of one shard).");
ABSL_FLAG(int, in_flight, 0,
          "--mode=sessions: 0 runs --threads blocking workers, each agent "
          "a real AgentClient (with its retries). N > 0 runs N sessions at "
          "a time on gRPC's callback API instead (the same three calls per "
          "agent and the same Agent answering, no retries), so a waiting "
          "session holds no thread; --threads is then unused.");
ABSL_FLAG(std::string, distribution, "zipf",
          "Item distribution: uniform, zipf, gaussian, mixture (see "
          "--mixture), masked_parity (see --parity_mask) or csv.");
ABSL_FLAG(std::string, mixture, "zipf:0.7,uniform:0.3",
          "With --distribution=mixture: weighted components, e.g. "
          "'zipf(s=1.3):0.5,gaussian(mean=100,sd=8):0.3,uniform:0.2' (kinds "
          "uniform, zipf, gaussian; weights are normalized; unset parameters "
          "come from --zipf and --gaussian_*).");
ABSL_FLAG(uint32_t, parity_mask, 0,
          "With --distribution=masked_parity (--domain = 2^d): the item's "
          "first d-1 bits (fields bit0..) are uniform features x and its last "
          "bit the label parity(x & mask) flipped with probability "
          "--parity_noise; the mask's binary digits line up with bit0.. . "
          "0 = drawn from --seed (printed).");
ABSL_FLAG(double, parity_noise, 0.1,
          "With --distribution=masked_parity: label noise, in [0, 0.5).");
ABSL_FLAG(std::string, csv, "",
          "With --distribution=csv: file with one item per line (optional "
          "header 'item'); agent i takes row i mod rows.");
ABSL_FLAG(uint32_t, domain, 16, "Number of items N (2 to 2^20).");
ABSL_FLAG(double, zipf, 1.1, "Zipf exponent (>= 0).");
ABSL_FLAG(double, gaussian_mean, -1,
          "Gaussian mean in item units; negative = the domain's middle.");
ABSL_FLAG(double, gaussian_stddev, -1,
          "Gaussian standard deviation in items; negative = N/6.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the synthetic population.");
ABSL_FLAG(double, epsilon, 1.0, "Per-agent privacy budget of the study (> 0).");
ABSL_FLAG(double, confidence, 0.95, "Confidence of every interval, in (0, 1).");
ABSL_FLAG(int, round_seconds, 3600, "Round duration of the study (>= 1).");
ABSL_FLAG(int64_t, quorum, 0,
          "Close the study's round once every question has this many "
          "reports (0: at its deadline only; >= 0).");
ABSL_FLAG(int, top, 10, "Histogram rows to print (the most frequent items).");
ABSL_FLAG(std::string, workload, "",
          "Instead of the histogram and mean study, ask one workload question "
          "over the population's items: prefix (the CDF), all_range, "
          "histogram, marginals or parities (these two over the log2(N) bits "
          "of the item as bool fields bit0..; --domain a power of two, at "
          "most 4096). Prints how many answers fall inside the band.");
ABSL_FLAG(int, workload_order, 2,
          "k of --workload=marginals (k-way) or parities (weights 1..k).");
ABSL_FLAG(std::string, strategy, "",
          "With --workload: identity, hierarchical, haar, fourier, matrix, "
          "factorization, or (marginals with --workload_order=1) "
          "attribute_sampling, sampling_fake_data (the server picks the "
          "RS+FD form), sampling_fake_data_oue_z or sampling_fake_data_oue_r; "
          "empty = the server's planner chooses.");
ABSL_FLAG(uint32_t, rappor_candidates, 0,
          "Instead of the histogram and mean study, ask one RAPPOR question: "
          "agent i holds the string 'string-<item>' in a 128-bit field, and "
          "the server tests this many candidates (the --domain strings, then "
          "decoys nobody holds; --domain to 100000). Prints the discoveries, "
          "the realized false-discovery proportion and the recall.");
ABSL_FLAG(double, rappor_fdr, 0.05,
          "With --rappor_candidates: the false-discovery rate q, in (0, 1).");
ABSL_FLAG(std::string, out, "",
          "If set, a directory for the run's report as files: summary.json, "
          "throughput.csv/.svg, estimates.csv and one estimate-vs-truth SVG "
          "per question.");
ABSL_FLAG(std::string, progress, "auto",
          "Progress on stderr: 'bar' (redrawn in place), 'lines' (every 5 s), "
          "'none', or 'auto' (bar on a terminal, lines otherwise).");
ABSL_FLAG(std::string, shuffler, "",
          "HOST:PORT of an ldp-shuffler in front of --server: the study is "
          "then shuffled, (--epsilon, --shuffle_delta)-DP against the server "
          "alone, and its cap and the agents' are 10 so that the planner's "
          "local epsilon0 fits (the largest meeting the target at "
          "--shuffle_min_batch, at most 10). Sealed reports go to the "
          "shuffler. The server needs SQLite, TLS, --tls_client_ca_file and "
          "--trusted_shufflers. Not with --in_flight.");
ABSL_FLAG(std::string, shuffler_ca_file, "",
          "CA (PEM) of --shuffler's certificate; unset: plaintext, loopback "
          "only.");
ABSL_FLAG(double, shuffle_delta, 1e-8, "--shuffler: the target's delta.");
ABSL_FLAG(int64_t, shuffle_min_batch, 1000,
          "--shuffler: the study's min_batch (>= 100); up to ~1.1x as many "
          "reports per question may wait in the shuffler for a full batch.");
ABSL_FLAG(int, shuffle_wait_seconds, 300,
          "--shuffler: wait up to this long for the server to count the "
          "shuffler's batches; 0 = no wait and no estimates.");
ABSL_FLAG(std::string, truth_out, "",
          "With --workload: write the true answers (over the agents whose "
          "report was acknowledged) to this JSON file, for `ldp results "
          "--plot --truth`.");

namespace ldp {
namespace {

absl::StatusOr<PopulationOptions> PopulationFromFlags() {
  ASSIGN_OR_RETURN(const PopulationKind kind,
                   ParsePopulationKind(absl::GetFlag(FLAGS_distribution)));
  PopulationOptions options{.kind = kind,
                            .num_agents = absl::GetFlag(FLAGS_agents),
                            .domain_size = absl::GetFlag(FLAGS_domain),
                            .zipf_exponent = absl::GetFlag(FLAGS_zipf),
                            .seed = absl::GetFlag(FLAGS_seed),
                            .parity_noise = absl::GetFlag(FLAGS_parity_noise),
                            .parity_mask = absl::GetFlag(FLAGS_parity_mask)};
  if (kind == PopulationKind::kMixture) {
    ASSIGN_OR_RETURN(options.components,
                     ParseMixture(absl::GetFlag(FLAGS_mixture)));
  }
  if (absl::GetFlag(FLAGS_gaussian_mean) >= 0) {
    options.gaussian_mean = absl::GetFlag(FLAGS_gaussian_mean);
  }
  if (absl::GetFlag(FLAGS_gaussian_stddev) >= 0) {
    options.gaussian_stddev = absl::GetFlag(FLAGS_gaussian_stddev);
  }
  if (kind == PopulationKind::kCsv) {
    ASSIGN_OR_RETURN(std::optional<std::string> text,
                     ReadFileIfExists(absl::GetFlag(FLAGS_csv)));
    if (!text.has_value()) {
      return absl::NotFoundError(absl::StrCat(
          "--csv file '", absl::GetFlag(FLAGS_csv), "' not found"));
    }
    options.csv_text = *std::move(text);
    options.csv_source = absl::GetFlag(FLAGS_csv);
  }
  return options;
}

// --agent_attempts, --threads, --channels, --streams, --round_seconds,
// --mode, --rate, --batch.
absl::Status CheckRunFlags() {
  if (absl::GetFlag(FLAGS_agent_attempts) < 1) {
    return absl::InvalidArgumentError("--agent_attempts must be >= 1");
  }
  if (absl::GetFlag(FLAGS_threads) < 1 || absl::GetFlag(FLAGS_channels) < 1 ||
      absl::GetFlag(FLAGS_streams) < 1 ||
      absl::GetFlag(FLAGS_round_seconds) < 1) {
    return absl::InvalidArgumentError(
        "--threads, --channels, --streams and --round_seconds must be >= 1");
  }
  if (const std::string mode = absl::GetFlag(FLAGS_mode);
      mode != "sessions" && mode != "bulk") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode must be sessions or bulk, got '", mode, "'"));
  }
  if (const int in_flight = absl::GetFlag(FLAGS_in_flight);
      in_flight < 0 || in_flight > 100000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--in_flight must be 0 (blocking --threads) or 1 to 100000 "
        "sessions at a time, got ",
        in_flight));
  }
  if (absl::GetFlag(FLAGS_in_flight) > 0 &&
      absl::GetFlag(FLAGS_mode) == "bulk") {
    return absl::InvalidArgumentError(
        "--in_flight is for --mode=sessions; --mode=bulk uses --streams");
  }
  if (!(absl::GetFlag(FLAGS_rate) >= 0) || absl::GetFlag(FLAGS_rate) > 1e9) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--rate must be 0 (no limit) or a positive number of agents per "
        "second, got ",
        absl::GetFlag(FLAGS_rate)));
  }
  if (absl::GetFlag(FLAGS_batch) < 1 || absl::GetFlag(FLAGS_batch) > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--batch must be 1 to 1000 (the server's limit per call), got ",
        absl::GetFlag(FLAGS_batch)));
  }
  return absl::OkStatus();
}

absl::StatusOr<LoadtestConfig> ConfigFromFlags() {
  LoadtestConfig config{
      .enrollment_token = absl::GetFlag(FLAGS_enrollment_token),
      .confidence = absl::GetFlag(FLAGS_confidence),
      .round_duration = absl::Seconds(absl::GetFlag(FLAGS_round_seconds)),
      .quorum = absl::GetFlag(FLAGS_quorum)};
  if (config.quorum < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--quorum must be >= 0, got ", config.quorum));
  }
  const double epsilon = absl::GetFlag(FLAGS_epsilon);
  if (!(epsilon > 0) || epsilon > 1e6) {
    return absl::InvalidArgumentError(
        absl::StrCat("--epsilon must be in (0, 1e6], got ", epsilon));
  }
  config.epsilon_nanos = static_cast<int64_t>(epsilon * kNanosPerEpsilon + 0.5);
  RETURN_IF_ERROR(ValidateConfidence(config.confidence));
  RETURN_IF_ERROR(CheckRunFlags());
  RETURN_IF_ERROR(
      SetShuffle({.shuffler = absl::GetFlag(FLAGS_shuffler),
                  .ca_file = absl::GetFlag(FLAGS_shuffler_ca_file),
                  .target_epsilon = epsilon,
                  .delta = absl::GetFlag(FLAGS_shuffle_delta),
                  .min_batch = absl::GetFlag(FLAGS_shuffle_min_batch),
                  .wait_seconds = absl::GetFlag(FLAGS_shuffle_wait_seconds),
                  .callback_sessions = absl::GetFlag(FLAGS_in_flight) > 0},
                 config));
  ASSIGN_OR_RETURN(std::optional<std::string> token,
                   ReadFileIfExists(absl::GetFlag(FLAGS_analyst_token_file)));
  if (!token.has_value() || absl::StripAsciiWhitespace(*token).empty()) {
    return absl::InvalidArgumentError(
        "--analyst_token_file must name a non-empty file");
  }
  config.analyst_token = std::string(absl::StripAsciiWhitespace(*token));
  RETURN_IF_ERROR(SetWorkload(absl::GetFlag(FLAGS_workload),
                              absl::GetFlag(FLAGS_domain),
                              absl::GetFlag(FLAGS_workload_order),
                              absl::GetFlag(FLAGS_strategy), config));
  if (const uint32_t candidates = absl::GetFlag(FLAGS_rappor_candidates);
      candidates > 0) {
    if (config.workload.has_value() || config.shuffle.has_value()) {
      return absl::InvalidArgumentError(
          "--rappor_candidates asks its own study: not with --workload or "
          "--shuffler");
    }
    ASSIGN_OR_RETURN(config.rappor,
                     MakeRapporRun(candidates, absl::GetFlag(FLAGS_domain),
                                   absl::GetFlag(FLAGS_rappor_fdr)));
  }
  return config;
}

// --server's replicas, in order.
std::vector<std::string> Servers() {
  return absl::StrSplit(absl::GetFlag(FLAGS_server), ',', absl::SkipEmpty());
}

LoadtestRunOptions RunOptionsFromFlags() {
  return {.bulk = absl::GetFlag(FLAGS_mode) == "bulk",
          .threads = absl::GetFlag(FLAGS_threads),
          .channels = absl::GetFlag(FLAGS_channels),
          .agent_attempts = absl::GetFlag(FLAGS_agent_attempts),
          .in_flight = absl::GetFlag(FLAGS_in_flight),
          .streams = absl::GetFlag(FLAGS_streams),
          .batch = absl::GetFlag(FLAGS_batch),
          .rate = absl::GetFlag(FLAGS_rate),
          .servers = Servers(),
          .shuffler = absl::GetFlag(FLAGS_shuffler)};
}

// The flags summary.json records, with their values.
std::map<std::string, std::string> FlagValues() {
  std::map<std::string, std::string> values;
  for (const char* flag : {"server",
                           "mode",
                           "agents",
                           "rate",
                           "threads",
                           "channels",
                           "agent_attempts",
                           "in_flight",
                           "streams",
                           "batch",
                           "distribution",
                           "domain",
                           "zipf",
                           "epsilon",
                           "seed",
                           "workload",
                           "strategy",
                           "shuffler",
                           "shuffle_delta",
                           "shuffle_min_batch",
                           "rappor_candidates",
                           "rappor_fdr"}) {
    if (const absl::CommandLineFlag* f = absl::FindCommandLineFlag(flag)) {
      values[flag] = f->CurrentValue();
    }
  }
  return values;
}

// --progress: whether to draw a bar (true) or print lines (false).
absl::StatusOr<bool> ProgressBarWanted() {
  const std::string mode = absl::GetFlag(FLAGS_progress);
  if (mode == "bar") return true;
  if (mode == "lines" || mode == "none") return false;
  if (mode == "auto") return isatty(fileno(stderr)) != 0;
  return absl::InvalidArgumentError(absl::StrCat(
      "--progress must be auto, bar, lines or none, got '", mode, "'"));
}

absl::Status Run() {
  ASSIGN_OR_RETURN(const LoadtestConfig config, ConfigFromFlags());
  ASSIGN_OR_RETURN(const PopulationOptions options, PopulationFromFlags());
  ASSIGN_OR_RETURN(auto population, PopulationSource::Create(options));
  ASSIGN_OR_RETURN(const StudySpec spec, MakeStudySpec(*population, config));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                   ChannelCredentialsFromFlags());
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<AnalystClient>> replicas,
                   ConnectReplicas(Servers(), config, credentials));
  const LoadtestRunOptions run = RunOptionsFromFlags();
  Shared shared{.config = config,
                .run = run,
                .population = *population,
                .totals = Totals(population->domain_size())};
  RETURN_IF_ERROR(
      OpenChannels(credentials, absl::GetFlag(FLAGS_shuffler_ca_file), shared));
  ASSIGN_OR_RETURN(shared.study_id, CreateStudy(*replicas.front(), spec));
  PrintStudyCreated(shared, options, absl::GetFlag(FLAGS_distribution),
                    absl::GetFlag(FLAGS_epsilon));
  RETURN_IF_ERROR(WaitForStudyOnReplicas(replicas, shared.study_id));
  ASSIGN_OR_RETURN(const bool bar, ProgressBarWanted());
  std::optional<ProgressMeter> progress;
  if (absl::GetFlag(FLAGS_progress) != "none") {
    progress.emplace(
        ProgressOptions{.total = population->num_agents(), .terminal = bar},
        RealClock::Get(), stderr);
    shared.progress = &*progress;
  }
  ThroughputTimeline timeline(absl::Now());
  shared.timeline = &timeline;
  const absl::Duration elapsed = RunSessions(shared);
  if (progress.has_value()) progress->Finish();
  PrintThroughput(shared, elapsed);
  return ReportRun(
      replicas, shared, elapsed, timeline,
      {.estimates = {.top = absl::GetFlag(FLAGS_top),
                     .truth_out = absl::GetFlag(FLAGS_truth_out)},
       .out_dir = absl::GetFlag(FLAGS_out),
       .shuffle_wait_seconds = absl::GetFlag(FLAGS_shuffle_wait_seconds),
       .flag_values = FlagValues()});
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Load-tests ldp-server with simulated agents (real agent sessions over "
      "gRPC) and prints estimates beside the true population values.\n"
      "Usage: ldp-loadtest --server=HOST:PORT --analyst_token_file=FILE "
      "[--enrollment_token=T] [--agents=N] [--mode=sessions|bulk] "
      "[--threads=T | --in_flight=N] [--streams=S --batch=B] "
      "[--rate=AGENTS_PER_S] "
      "[--distribution=uniform|zipf|gaussian|mixture|masked_parity|csv] "
      "[--domain=N] [--epsilon=E] "
      "[--workload=prefix|all_range|histogram|marginals|parities "
      "[--workload_order=K] [--strategy=KIND] [--truth_out=FILE.json]] "
      "[--shuffler=HOST:PORT [--shuffler_ca_file=PEM] [--shuffle_delta=D] "
      "[--shuffle_min_batch=N] [--shuffle_wait_seconds=S]] "
      "[--out=DIR] [--progress=auto|bar|lines|none]");
  ldp::ShowOnlyFlagsFromWithTls("loadtest_main");
  absl::ParseCommandLine(argc, argv);
  // As in ldp-server: Debian's Abseil checks every mutex acquisition for
  // lock-order cycles, 3% of this client's CPU in sessions mode (perf, 20,000
  // sessions); its lock order is fixed by design.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  if (const absl::Status status = ldp::Run(); !status.ok()) {
    std::fprintf(stderr, "ldp-loadtest: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}

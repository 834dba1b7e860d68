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
// sharing a few channels; fetch the estimates. The truth each estimate is
// compared with is computed over the agents whose report for that question
// was acknowledged, which is exactly the population the estimate describes.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "client/agent.h"
#include "client/agent_client.h"
#include "client/atomic_file.h"
#include "client/relay_client.h"
#include "client/tls_flags.h"
#include "common/clock.h"
#include "common/confidence_interval.h"
#include "common/secure_random.h"
#include "common/status_macros.h"
#include "common/study_spec.h"
#include "common/workload/workload.h"
#include "grpcpp/create_channel.h"
#include "proto/convert/estimate_convert.h"
#include "proto/convert/study_convert.h"
#include "proto/ldp/v1/analyst_service.pb.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "tools/analyst_client.h"
#include "tools/estimate_comparison.h"
#include "tools/latency_stats.h"
#include "tools/loadtest_output.h"
#include "tools/population_source.h"
#include "tools/progress_meter.h"

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
          "With --workload: identity, hierarchical, haar, fourier, matrix or "
          "factorization; empty = the server's planner chooses.");
ABSL_FLAG(std::string, out, "",
          "If set, a directory for the run's report as files: summary.json, "
          "throughput.csv/.svg, estimates.csv and one estimate-vs-truth SVG "
          "per question.");
ABSL_FLAG(std::string, progress, "auto",
          "Progress on stderr: 'bar' (redrawn in place), 'lines' (every 5 s), "
          "'none', or 'auto' (bar on a terminal, lines otherwise).");
ABSL_FLAG(std::string, truth_out, "",
          "With --workload: write the true answers (over the agents whose "
          "report was acknowledged) to this JSON file, for `ldp results "
          "--plot --truth`.");

namespace ldp {
namespace {

constexpr char kHistogramId[] = "item_histogram";
constexpr char kMeanId[] = "mean_value";
constexpr char kWorkloadId[] = "workload";

struct Config {
  std::string analyst_token{};
  std::string enrollment_token{};
  int64_t epsilon_nanos = 0;
  double confidence = 0.95;
  // --workload: the workload asked (sized), its strategy choice, and for
  // bit workloads the number of bool fields the item is split into.
  std::optional<WorkloadSpec> workload{};
  std::optional<StrategyChoice> strategy{};
  uint32_t num_bits = 0;
};

// What the workers add up; merged under a mutex at the end of each worker.
struct Totals {
  explicit Totals(uint32_t domain)
      : histogram_truth(domain), mean_truth(domain), workload_truth(domain) {}
  int64_t sessions = 0, enroll_failures = 0, poll_failures = 0, tasks = 0;
  int64_t refusals = 0, accepted = 0, rejected = 0, upload_failures = 0;
  PopulationTruth histogram_truth, mean_truth, workload_truth;
  std::string first_error;
  // "enroll UNAVAILABLE", "ack INVALID_ARGUMENT", ... → count.
  std::map<std::string, int64_t> errors;

  // A failed call or a rejected report: `where` is enroll, poll, answer,
  // upload or ack.
  void Error(absl::string_view where, const absl::Status& status) {
    if (first_error.empty()) first_error = absl::StrCat(where, ": ", status.ToString());
    ++errors[absl::StrCat(where, " ", absl::StatusCodeToString(status.code()))];
  }
  void Merge(const Totals& o) {
    sessions += o.sessions;
    enroll_failures += o.enroll_failures;
    poll_failures += o.poll_failures;
    tasks += o.tasks;
    refusals += o.refusals;
    accepted += o.accepted;
    rejected += o.rejected;
    upload_failures += o.upload_failures;
    histogram_truth.Merge(o.histogram_truth);
    mean_truth.Merge(o.mean_truth);
    workload_truth.Merge(o.workload_truth);
    if (first_error.empty()) first_error = o.first_error;
    for (const auto& [what, count] : o.errors) errors[what] += count;
  }
};

struct Shared {
  const Config& config;
  const PopulationSource& population;
  uint64_t study_id = 0;
  Totals totals;
  std::vector<std::shared_ptr<v1::AgentService::StubInterface>> stubs{};
  std::vector<std::shared_ptr<v1::RelayService::StubInterface>> relay_stubs{};
  std::atomic<int64_t> next_agent{0};
  // --rate: agent i starts no earlier than start + i / rate.
  double rate = 0;
  absl::Time start = absl::Now();
  LatencyStats ack_latency{};
  std::mutex mutex{};
  ProgressMeter* progress = nullptr;
  ThroughputTimeline* timeline = nullptr;
};

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
    ASSIGN_OR_RETURN(options.components, ParseMixture(absl::GetFlag(FLAGS_mixture)));
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
      return absl::NotFoundError(absl::StrCat("--csv file '", absl::GetFlag(FLAGS_csv),
                                              "' not found"));
    }
    options.csv_text = *std::move(text);
  }
  return options;
}

absl::StatusOr<std::optional<StrategyChoice>> StrategyFromFlags() {
  const std::string name = absl::GetFlag(FLAGS_strategy);
  if (name.empty()) return std::nullopt;
  for (StrategyKind kind :
       {StrategyKind::kIdentity, StrategyKind::kHierarchical, StrategyKind::kHaar,
        StrategyKind::kFourier, StrategyKind::kMatrix,
        StrategyKind::kFactorization}) {
    if (StrategyKindName(kind) == name) return StrategyChoice{.kind = kind};
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--strategy must be identity, hierarchical, haar, fourier, matrix or "
      "factorization (or empty), got '", name, "'"));
}

// The workload --workload asks, sized for --domain.
absl::Status WorkloadFromFlags(Config& config) {
  const std::string name = absl::GetFlag(FLAGS_workload);
  if (name.empty()) return absl::OkStatus();
  const uint32_t n = absl::GetFlag(FLAGS_domain);
  const std::pair<const char*, WorkloadKind> kinds[] = {
      {"prefix", WorkloadKind::kPrefix},       {"all_range", WorkloadKind::kAllRange},
      {"histogram", WorkloadKind::kHistogram}, {"marginals", WorkloadKind::kMarginals},
      {"parities", WorkloadKind::kParities}};
  std::optional<WorkloadKind> kind;
  for (const auto& [kind_name, k] : kinds) {
    if (name == kind_name) kind = k;
  }
  if (!kind.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--workload must be prefix, all_range, histogram, marginals or "
        "parities, got '", name, "'"));
  }
  WorkloadSpec spec{.kind = *kind};
  if (*kind == WorkloadKind::kMarginals || *kind == WorkloadKind::kParities) {
    while ((uint64_t{1} << config.num_bits) < n) ++config.num_bits;
    if ((uint64_t{1} << config.num_bits) != n || config.num_bits > 12) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--workload=", name, " splits the item into bits: --domain must be "
          "a power of two from 2 to 4096, got ", n));
    }
    spec.num_bits = config.num_bits;
    spec.order = static_cast<uint32_t>(absl::GetFlag(FLAGS_workload_order));
  } else {
    spec.domain_size = n;
  }
  RETURN_IF_ERROR(Workload::Create(spec).status());
  config.workload = std::move(spec);
  ASSIGN_OR_RETURN(config.strategy, StrategyFromFlags());
  return absl::OkStatus();
}

absl::StatusOr<Config> ConfigFromFlags() {
  Config config{.enrollment_token = absl::GetFlag(FLAGS_enrollment_token),
                .confidence = absl::GetFlag(FLAGS_confidence)};
  const double epsilon = absl::GetFlag(FLAGS_epsilon);
  if (!(epsilon > 0) || epsilon > 1e6) {
    return absl::InvalidArgumentError(absl::StrCat("--epsilon must be in (0, 1e6], got ", epsilon));
  }
  config.epsilon_nanos = static_cast<int64_t>(epsilon * kNanosPerEpsilon + 0.5);
  RETURN_IF_ERROR(ValidateConfidence(config.confidence));
  if (absl::GetFlag(FLAGS_threads) < 1 || absl::GetFlag(FLAGS_channels) < 1 ||
      absl::GetFlag(FLAGS_streams) < 1 || absl::GetFlag(FLAGS_round_seconds) < 1) {
    return absl::InvalidArgumentError(
        "--threads, --channels, --streams and --round_seconds must be >= 1");
  }
  if (const std::string mode = absl::GetFlag(FLAGS_mode);
      mode != "sessions" && mode != "bulk") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode must be sessions or bulk, got '", mode, "'"));
  }
  if (!(absl::GetFlag(FLAGS_rate) >= 0) || absl::GetFlag(FLAGS_rate) > 1e9) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--rate must be 0 (no limit) or a positive number of agents per "
        "second, got ", absl::GetFlag(FLAGS_rate)));
  }
  if (absl::GetFlag(FLAGS_batch) < 1 || absl::GetFlag(FLAGS_batch) > 1000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--batch must be 1 to 1000 (the server's limit per call), got ",
        absl::GetFlag(FLAGS_batch)));
  }
  ASSIGN_OR_RETURN(std::optional<std::string> token,
                   ReadFileIfExists(absl::GetFlag(FLAGS_analyst_token_file)));
  if (!token.has_value() || absl::StripAsciiWhitespace(*token).empty()) {
    return absl::InvalidArgumentError("--analyst_token_file must name a non-empty file");
  }
  config.analyst_token = std::string(absl::StripAsciiWhitespace(*token));
  RETURN_IF_ERROR(WorkloadFromFlags(config));
  return config;
}

// Bit workloads read the item as num_bits bool fields, the first field its
// most significant bit (the product encoding's order).
RecordSchema BitSchema(uint32_t num_bits) {
  std::vector<FieldSpec> fields;
  for (uint32_t i = 0; i < num_bits; ++i) {
    fields.push_back(FieldSpec::Bool(absl::StrCat("bit", i)));
  }
  return *RecordSchema::Create(std::move(fields));
}

Record BitRecord(uint32_t item, uint32_t num_bits) {
  Record record;
  for (uint32_t i = 0; i < num_bits; ++i) {
    record.values[absl::StrCat("bit", i)] =
        static_cast<bool>((item >> (num_bits - 1 - i)) & 1);
  }
  return record;
}

absl::StatusOr<StudySpec> MakeWorkloadStudySpec(const PopulationSource& population,
                                                const Config& config) {
  const bool bits = config.num_bits > 0;
  const RecordSchema schema = bits ? BitSchema(config.num_bits) : population.schema();
  DomainEncodingSpec encoding_spec = FieldEncoding{.field = "item"};
  if (bits) {
    ProductEncoding product;
    for (uint32_t i = 0; i < config.num_bits; ++i) {
      product.fields.push_back({.field = absl::StrCat("bit", i)});
    }
    encoding_spec = std::move(product);
  }
  ASSIGN_OR_RETURN(DomainEncoding encoding, DomainEncoding::Create(encoding_spec, schema));
  return StudySpec{
      .display_name = absl::StrCat("ldp-loadtest: ", absl::GetFlag(FLAGS_workload),
                                   " workload, ", population.num_agents(), " agents"),
      .schema = schema,
      .epsilon_cap_nanos = config.epsilon_nanos,
      .mode = StudyMode::kNoninteractive,
      .questions = {Question{.id = kWorkloadId,
                             .kind = WorkloadQuestion{.encoding = std::move(encoding),
                                                      .workload = *config.workload,
                                                      .strategy = config.strategy}}},
      .confidence = config.confidence,
      .round_duration = absl::Seconds(absl::GetFlag(FLAGS_round_seconds))};
}

absl::StatusOr<StudySpec> MakeStudySpec(const PopulationSource& population,
                                        const Config& config) {
  if (config.workload.has_value()) return MakeWorkloadStudySpec(population, config);
  const RecordSchema& schema = population.schema();
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   DomainEncoding::Create(FieldEncoding{.field = "item"}, schema));
  ASSIGN_OR_RETURN(Query mean, Query::Create(expr::Field("value"), {0, 1}, schema));
  return StudySpec{
      .display_name = absl::StrCat("ldp-loadtest: ", population.num_agents(), " agents"),
      .schema = schema,
      .epsilon_cap_nanos = config.epsilon_nanos,
      .mode = StudyMode::kNoninteractive,
      .questions = {Question{.id = kHistogramId,
                             .kind = HistogramQuestion{.encoding = std::move(encoding),
                                                       .oracle = std::nullopt,
                                                       .post_processing = std::nullopt}},
                    Question{.id = kMeanId,
                             .kind = StatisticalQueryQuestion{
                                 .query = std::move(mean),
                                 .mechanism = RealMechanismKind::kHybrid}}},
      .confidence = config.confidence,
      .round_duration = absl::Seconds(absl::GetFlag(FLAGS_round_seconds))};
}

absl::StatusOr<uint64_t> CreateStudy(const AnalystClient& analyst,
                                     const StudySpec& spec) {
  v1::CreateStudyRequest request;
  ToProto(spec, request.mutable_spec());
  ASSIGN_OR_RETURN(const v1::Study study, analyst.CreateStudy(request));
  return study.study_id();
}

// Lets the agent answer this study's tasks (it saves before anything is sent).
void AnswerTasks(Agent& agent, const TaskBatch& batch, uint64_t study_id,
                 Totals& totals) {
  totals.refusals += static_cast<int64_t>(batch.malformed.size());
  for (const AgentTask& task : batch.tasks) {
    if (task.task.study_id != study_id) continue;  // another study's
    ++totals.tasks;
    if (auto answer = agent.Answer(task); !answer.ok()) {
      ++totals.refusals;
      totals.Error("answer", answer.status());
    }
  }
}

// Counts one report's ack; an accepted report adds agent `index` to the
// truth of its question. Returns 1 if accepted.
int64_t Tally(const absl::Status& ack, const ReportPayload& payload, int64_t index,
              const Shared& shared, Totals& totals) {
  if (!ack.ok()) {
    ++totals.rejected;
    totals.Error("ack", ack);
    return 0;
  }
  ++totals.accepted;
  const uint32_t item = shared.population.ItemOf(index);
  PopulationTruth& truth =
      std::holds_alternative<WorkloadReport>(payload)    ? totals.workload_truth
      : std::holds_alternative<FrequencyReport>(payload) ? totals.histogram_truth
                                                         : totals.mean_truth;
  truth.Add(item, shared.population.ValueOf(item));
  return 1;
}

// Waits until agent `index` may start (--rate).
void Pace(int64_t index, const Shared& shared) {
  if (shared.rate <= 0) return;
  const absl::Time due =
      shared.start + absl::Seconds(static_cast<double>(index) / shared.rate);
  const absl::Duration wait = due - absl::Now();
  if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
}

// The simulated agent `index`: its record, an in-memory state store.
absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(int64_t index, const Shared& shared,
                                                 SecureRandom& random) {
  const Config& config = shared.config;
  return Agent::Create(
      {.record = config.num_bits > 0
                     ? BitRecord(shared.population.ItemOf(index), config.num_bits)
                     : shared.population.RecordOf(index),
       .max_epsilon_per_study_nanos = config.epsilon_nanos,
       // A simulated agent lives for this one study: its caps are the
       // study's charge, so it refuses anything beyond it like a device.
       .caps = {.lifetime_nanos = config.epsilon_nanos,
                .period_nanos = config.epsilon_nanos}},
      std::make_unique<MemoryAgentStateStore>(), random);
}

void RunSession(int64_t index, AgentClient& client, SecureRandom& random,
                Shared& shared, Totals& totals) {
  ++totals.sessions;
  if (auto enrolled = client.Enroll(shared.config.enrollment_token); !enrolled.ok()) {
    ++totals.enroll_failures;
    return totals.Error("enroll", enrolled.status());
  }
  auto agent = MakeAgent(index, shared, random);
  auto batch = client.GetTasks();
  if (!agent.ok() || !batch.ok()) {
    ++totals.poll_failures;
    return totals.Error("poll", !agent.ok() ? agent.status() : batch.status());
  }
  AnswerTasks(**agent, *batch, shared.study_id, totals);
  const std::vector<TaskReport> pending = (*agent)->PendingReports();
  if (pending.empty()) return;
  const absl::Time start = absl::Now();
  auto acks = client.Upload(pending);
  shared.ack_latency.Record(absl::Now() - start);
  if (!acks.ok()) {
    ++totals.upload_failures;
    return totals.Error("upload", acks.status());
  }
  int64_t accepted_here = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    accepted_here += Tally((*acks)[i], pending[i].payload, index, shared, totals);
  }
  if (shared.timeline != nullptr) shared.timeline->Record(absl::Now(), accepted_here);
}

void Worker(int worker, Shared& shared) {
  Totals totals(shared.population.domain_size());
  auto random = SecureRandom::Create();
  if (!random.ok()) {
    totals.Error("setup", random.status());
  } else {
    auto stub = shared.stubs[worker % shared.stubs.size()];
    for (int64_t i = shared.next_agent++; i < shared.population.num_agents();
         i = shared.next_agent++) {
      auto client = AgentClient::Create({}, stub, **random);
      if (!client.ok()) {
        totals.Error("setup", client.status());
        break;
      }
      Pace(i, shared);
      RunSession(i, **client, **random, shared, totals);
      if (shared.progress != nullptr) shared.progress->Add(1);
    }
  }
  std::lock_guard<std::mutex> lock(shared.mutex);
  shared.totals.Merge(totals);
}

// One relay stream's share of --mode=bulk: claims --batch agents at a time,
// enrolls them in one call, polls their tasks in one call, lets each Agent
// answer, and uploads the reports --batch per message on its stream.
class BulkWorker {
 public:
  BulkWorker(int worker, Shared& shared)
      : shared_(shared),
        totals_(shared.population.domain_size()),
        relay_(shared.relay_stubs[worker % shared.relay_stubs.size()],
               absl::Seconds(60)),
        batch_(absl::GetFlag(FLAGS_batch)) {}

  void Run() {
    auto random = SecureRandom::Create();
    if (!random.ok()) return Merge(random.status());
    stream_ = relay_.OpenUploadStream();
    const int64_t n = shared_.population.num_agents();
    for (int64_t first = shared_.next_agent.fetch_add(batch_); first < n;
         first = shared_.next_agent.fetch_add(batch_)) {
      const int count = static_cast<int>(std::min<int64_t>(batch_, n - first));
      Pace(first, shared_);
      if (!RunBatch(first, count, **random)) break;
      if (shared_.progress != nullptr) shared_.progress->Add(count);
    }
    if (absl::Status closed = stream_->Close(); !closed.ok()) {
      totals_.Error("upload", closed);
    }
    Merge(absl::OkStatus());
  }

 private:
  void Merge(const absl::Status& setup) {
    if (!setup.ok()) totals_.Error("setup", setup);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.totals.Merge(totals_);
  }

  // False when no later batch can do better (no relay API on the server).
  bool RunBatch(int64_t first, int count, SecureRandom& random) {
    totals_.sessions += count;
    auto agents = relay_.EnrollBatch(shared_.config.enrollment_token, count);
    if (!agents.ok()) {
      totals_.enroll_failures += count;
      totals_.Error("enroll", agents.status());
      return !absl::IsUnimplemented(agents.status());
    }
    std::vector<const RelayedAgent*> polled;
    for (const RelayedAgent& agent : *agents) polled.push_back(&agent);
    auto batches = relay_.GetTasksBatch(polled);
    if (!batches.ok()) {
      totals_.poll_failures += count;
      totals_.Error("poll", batches.status());
      return true;
    }
    std::vector<RelayedTaskReport> reports;
    std::vector<int64_t> owner;  // agent index of each report
    for (int k = 0; k < count; ++k) {
      auto agent = MakeAgent(first + k, shared_, random);
      const absl::StatusOr<TaskBatch>& tasks = (*batches)[k];
      if (!agent.ok() || !tasks.ok()) {
        ++totals_.poll_failures;
        totals_.Error("poll", !agent.ok() ? agent.status() : tasks.status());
        continue;
      }
      AnswerTasks(**agent, *tasks, shared_.study_id, totals_);
      for (TaskReport& report : (*agent)->PendingReports()) {
        reports.push_back({.agent = &(*agents)[k], .report = std::move(report)});
        owner.push_back(first + k);
      }
    }
    for (size_t begin = 0; begin < reports.size(); begin += batch_) {
      const size_t end = std::min(reports.size(), begin + batch_);
      Upload(absl::MakeConstSpan(reports).subspan(begin, end - begin),
             absl::MakeConstSpan(owner).subspan(begin, end - begin));
    }
    return true;
  }

  void Upload(absl::Span<const RelayedTaskReport> chunk,
              absl::Span<const int64_t> owner) {
    const absl::Time start = absl::Now();
    auto acks = stream_->Send(chunk);
    shared_.ack_latency.Record(absl::Now() - start);
    if (!acks.ok()) {
      totals_.upload_failures += static_cast<int64_t>(chunk.size());
      totals_.Error("upload", acks.status());
      stream_ = relay_.OpenUploadStream();  // the old one is finished
      return;
    }
    int64_t accepted = 0;
    for (size_t i = 0; i < chunk.size(); ++i) {
      accepted += Tally((*acks)[i], chunk[i].report.payload, owner[i], shared_, totals_);
    }
    if (shared_.timeline != nullptr) shared_.timeline->Record(absl::Now(), accepted);
  }

  Shared& shared_;
  Totals totals_;
  RelayClient relay_;
  const int batch_;
  std::unique_ptr<RelayClient::UploadStream> stream_;
};

// --server's replicas, in order.
std::vector<std::string> Servers() {
  return absl::StrSplit(absl::GetFlag(FLAGS_server), ',', absl::SkipEmpty());
}

// --channels channels (bulk: one per stream), each with its own connection.
void MakeStubs(const std::shared_ptr<grpc::ChannelCredentials>& credentials,
               bool bulk, Shared& shared) {
  const int channels =
      bulk ? absl::GetFlag(FLAGS_streams) : absl::GetFlag(FLAGS_channels);
  for (int c = 0; c < channels; ++c) {
    grpc::ChannelArguments arguments;
    // A distinct argument gives each channel its own connection.
    arguments.SetInt("ldp.loadtest_channel", c);
    const std::vector<std::string> servers = Servers();
    auto channel = grpc::CreateCustomChannel(servers[c % servers.size()],
                                             credentials, arguments);
    shared.stubs.push_back(v1::AgentService::NewStub(channel));
    shared.relay_stubs.push_back(v1::RelayService::NewStub(channel));
  }
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

// Runs every session (or every bulk batch); returns the wall time they took.
absl::Duration RunSessions(Shared& shared, bool bulk) {
  const absl::Time start = absl::Now();
  shared.start = start;
  shared.rate = absl::GetFlag(FLAGS_rate);
  std::vector<std::thread> workers;
  if (bulk) {
    for (int w = 0; w < absl::GetFlag(FLAGS_streams); ++w) {
      workers.emplace_back([w, &shared] { BulkWorker(w, shared).Run(); });
    }
  }
  for (int w = 0; !bulk && w < absl::GetFlag(FLAGS_threads); ++w) {
    workers.emplace_back(Worker, w, std::ref(shared));
  }
  for (std::thread& worker : workers) worker.join();
  return absl::Now() - start;
}

void PrintThroughput(const Shared& shared, absl::Duration elapsed) {
  const Totals& t = shared.totals;
  const double seconds = absl::ToDoubleSeconds(elapsed);
  if (absl::GetFlag(FLAGS_mode) == "bulk") {
    std::printf("Bulk: %lld agents in %.2f s (%d relay streams, %d per batch)\n",
                static_cast<long long>(t.sessions), seconds,
                absl::GetFlag(FLAGS_streams), absl::GetFlag(FLAGS_batch));
  } else {
    std::printf("Sessions: %lld agents in %.2f s (%d threads, %d channels)\n",
                static_cast<long long>(t.sessions), seconds,
                absl::GetFlag(FLAGS_threads), absl::GetFlag(FLAGS_channels));
  }
  std::printf("  tasks %lld, refused %lld, reports accepted %lld, rejected %lld\n",
              static_cast<long long>(t.tasks), static_cast<long long>(t.refusals),
              static_cast<long long>(t.accepted), static_cast<long long>(t.rejected));
  std::printf("  failures: enroll %lld, poll %lld, upload %lld\n",
              static_cast<long long>(t.enroll_failures),
              static_cast<long long>(t.poll_failures),
              static_cast<long long>(t.upload_failures));
  for (const auto& [what, count] : t.errors) {
    std::printf("  errors %-34s %lld\n", what.c_str(), static_cast<long long>(count));
  }
  if (!t.first_error.empty()) std::printf("  first error: %s\n", t.first_error.c_str());
  std::printf("  throughput: %.0f reports/s (incl. enroll and poll)\n",
              seconds > 0 ? t.accepted / seconds : 0.0);
  std::printf("  ack latency per upload message: p50 %s, p90 %s, p99 %s, max %s over %lld uploads\n",
              absl::FormatDuration(shared.ack_latency.Quantile(0.5)).c_str(),
              absl::FormatDuration(shared.ack_latency.Quantile(0.9)).c_str(),
              absl::FormatDuration(shared.ack_latency.Quantile(0.99)).c_str(),
              absl::FormatDuration(shared.ack_latency.Quantile(1.0)).c_str(),
              static_cast<long long>(shared.ack_latency.count()));
}

LoadtestSummary Summary(const Shared& shared, absl::Duration elapsed) {
  const Totals& t = shared.totals;
  LoadtestSummary s{.mode = absl::GetFlag(FLAGS_mode),
                    .agents = t.sessions,
                    .reports_accepted = t.accepted,
                    .reports_rejected = t.rejected,
                    .seconds = absl::ToDoubleSeconds(elapsed),
                    .uploads = shared.ack_latency.count(),
                    .p50 = shared.ack_latency.Quantile(0.5),
                    .p90 = shared.ack_latency.Quantile(0.9),
                    .p99 = shared.ack_latency.Quantile(0.99),
                    .max = shared.ack_latency.Quantile(1.0),
                    .errors = t.errors};
  for (const char* flag : {"server", "mode", "agents", "rate", "threads", "channels",
                           "streams", "batch", "distribution",
                           "domain", "zipf", "epsilon", "seed", "workload", "strategy"}) {
    if (const absl::CommandLineFlag* f = absl::FindCommandLineFlag(flag)) {
      s.configuration[flag] = f->CurrentValue();
    }
  }
  return s;
}

// W·h over the agents whose workload report was acknowledged.
absl::StatusOr<std::vector<double>> WorkloadTruth(const Shared& shared) {
  ASSIGN_OR_RETURN(const Workload workload, Workload::Create(*shared.config.workload));
  const std::vector<double> h = shared.totals.workload_truth.Frequencies();
  const Eigen::VectorXd answers =
      workload.Answer(Eigen::Map<const Eigen::VectorXd>(h.data(), h.size()));
  return std::vector<double>(answers.data(), answers.data() + answers.size());
}

absl::Status WriteTruth(const std::string& path, const std::vector<double>& truth) {
  std::string json = absl::StrCat("{\"", kWorkloadId, "\": [");
  for (size_t j = 0; j < truth.size(); ++j) {
    absl::StrAppendFormat(&json, "%s%.17g", j == 0 ? "" : ", ", truth[j]);
  }
  absl::StrAppend(&json, "]}\n");
  return WriteFileAtomically(path, json);
}

absl::Status PrintWorkloadEstimate(const std::string& id, const WorkloadRelease& w,
                                   const Shared& shared,
                                   std::vector<EstimateSeries>& series) {
  ASSIGN_OR_RETURN(const std::vector<double> truth, WorkloadTruth(shared));
  const WorkloadAnswer& a = w.answer;
  if (a.answers.size() != truth.size()) {
    return absl::InternalError(absl::StrCat("the server answered ", a.answers.size(),
                                            " queries, the workload has ", truth.size()));
  }
  int covered = 0;
  double max_abs_z = 0, max_error = 0;
  EstimateSeries& out = series.emplace_back(EstimateSeries{
      .question = id,
      .title = absl::StrCat(id, ": ", w.workload),
      .subtitle = absl::StrFormat("%s, n = %d, epsilon %.4g, %g%% simultaneous band",
                                  w.strategy, a.num_reports, a.epsilon, a.confidence * 100),
      .simultaneous_band = true});
  for (size_t j = 0; j < truth.size(); ++j) {
    const double error = a.answers[j] - truth[j];
    const double half = a.band_z * a.standard_errors[j];
    out.values.push_back(
        {.label = j < w.labels.size() ? w.labels[j] : absl::StrCat("q", j),
         .truth = truth[j],
         .estimate = a.answers[j],
         .standard_error = a.standard_errors[j],
         .interval = {.lower = a.answers[j] - half, .upper = a.answers[j] + half},
         .z = a.standard_errors[j] > 0 ? error / a.standard_errors[j] : 0,
         .covered = std::abs(error) <= half});
    covered += std::abs(error) <= half;
    max_error = std::max(max_error, std::abs(error));
    if (a.standard_errors[j] > 0) {
      max_abs_z = std::max(max_abs_z, std::abs(error) / a.standard_errors[j]);
    }
  }
  std::printf("\n%s: %s, strategy %s, n = %lld, epsilon %.4g\n", id.c_str(),
              w.workload.c_str(), w.strategy.c_str(),
              static_cast<long long>(a.num_reports), a.epsilon);
  std::printf("  predicted per-user variance: v_max %.4g, v_avg %.4g\n",
              w.predicted_v_max, w.predicted_v_avg);
  if (!w.best_fixed_strategy.empty()) {
    std::printf("  best fixed strategy: %s, v_max %.4g\n",
                w.best_fixed_strategy.c_str(), w.best_fixed_v_max);
  }
  if (w.gamma2_upper > 0) {
    std::printf("  gamma2(W) certified in [%.6g, %.6g]\n", w.gamma2_lower,
                w.gamma2_upper);
  }
  std::printf("  %d of %zu answers inside the simultaneous %g%% band "
              "(+- %.3g se); max |error| %.4g, max |z| %.3g\n",
              covered, truth.size(), a.confidence * 100, a.band_z, max_error,
              max_abs_z);
  const size_t rows = std::min<size_t>(truth.size(), absl::GetFlag(FLAGS_top));
  std::printf("  %-26s %10s %10s %10s\n", "query", "truth", "estimate", "se");
  for (size_t j = 0; j < rows; ++j) {
    std::printf("  %-26s %10.5f %10.5f %10.4g\n",
                j < w.labels.size() ? w.labels[j].c_str() : absl::StrCat("q", j).c_str(),
                truth[j], a.answers[j], a.standard_errors[j]);
  }
  if (rows < truth.size()) std::printf("  ... %zu more\n", truth.size() - rows);
  if (const std::string path = absl::GetFlag(FLAGS_truth_out); !path.empty()) {
    RETURN_IF_ERROR(WriteTruth(path, truth));
    std::printf("  true answers written to %s (ldp results %llu --plot=FILE.svg "
                "--truth=%s)\n",
                path.c_str(), static_cast<unsigned long long>(shared.study_id),
                path.c_str());
  }
  return absl::OkStatus();
}

absl::Status PrintEstimate(const NamedEstimate& named, const Shared& shared,
                           std::vector<EstimateSeries>& series) {
  const Totals& t = shared.totals;
  if (const auto* w = std::get_if<WorkloadRelease>(&named.estimate)) {
    return PrintWorkloadEstimate(named.question_id, *w, shared, series);
  }
  if (const auto* h = std::get_if<HistogramRelease>(&named.estimate)) {
    ASSIGN_OR_RETURN(HistogramComparison comparison,
                     CompareHistogram(h->estimate, t.histogram_truth.Frequencies(),
                                      h->labels, h->confidence));
    std::printf("\n%s: histogram of item, %s, n = %lld, epsilon %.4g\n",
                named.question_id.c_str(), h->mechanism.c_str(),
                static_cast<long long>(h->estimate.num_reports), h->estimate.epsilon);
    std::printf("%s", FormatHistogramComparison(comparison, absl::GetFlag(FLAGS_top)).c_str());
    series.push_back({.question = named.question_id,
                      .title = absl::StrCat(named.question_id, ": histogram of item"),
                      .subtitle = absl::StrFormat(
                          "%s, n = %d, epsilon %.4g, %g%% interval per item",
                          h->mechanism, h->estimate.num_reports, h->estimate.epsilon,
                          h->confidence * 100),
                      .values = comparison.items});
    return absl::OkStatus();
  }
  const auto& s = std::get<ScalarRelease>(named.estimate);
  std::printf("\n%s: mean of value, %s, n = %lld, epsilon %.4g (population mean %.6f)\n",
              named.question_id.c_str(), s.mechanism.c_str(),
              static_cast<long long>(s.estimate.num_reports), s.estimate.epsilon,
              shared.population.Truth().MeanValue());
  const ComparedValue mean = CompareScalar(s.estimate, t.mean_truth.MeanValue(), "mean value");
  std::printf("%s", FormatScalarComparison(mean).c_str());
  series.push_back({.question = named.question_id,
                    .title = absl::StrCat(named.question_id, ": mean of value"),
                    .subtitle = absl::StrFormat("%s, n = %d, epsilon %.4g", s.mechanism,
                                                s.estimate.num_reports, s.estimate.epsilon),
                    .values = {mean}});
  return absl::OkStatus();
}

absl::Status PrintEstimates(const AnalystClient& analyst, const Shared& shared,
                            std::vector<EstimateSeries>& series) {
  v1::GetEstimatesRequest request;
  request.set_study_id(shared.study_id);
  ASSIGN_OR_RETURN(const v1::GetEstimatesResponse response,
                   analyst.GetEstimates(request));
  if (shared.config.workload.has_value()) {
    std::printf("\nThe study's answers (truth = the agents whose report was "
                "acknowledged):\n");
  }
  if (!shared.config.workload.has_value()) {
    std::printf("\nEstimates of study %llu (truth = the agents whose report was "
                "acknowledged):\n", static_cast<unsigned long long>(shared.study_id));
  }
  for (const v1::QuestionEstimate& proto : response.estimates()) {
    ASSIGN_OR_RETURN(NamedEstimate named, QuestionEstimateFromProto(proto));
    RETURN_IF_ERROR(PrintEstimate(named, shared, series));
  }
  return absl::OkStatus();
}

// Replicas after the first learn of a new study from their database within
// their follow interval; asking each for it makes them catch up now, so no
// agent is sent there before its replica has the study's tasks.
absl::Status WaitForStudyOnReplicas(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    const Shared& shared) {
  for (size_t r = 1; r < replicas.size(); ++r) {
    v1::GetStudyRequest request;
    request.set_study_id(shared.study_id);
    const absl::Status status = replicas[r]->GetStudy(request).status();
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("replica ", replicas[r]->server(),
                                                      " does not have study ",
                                                      shared.study_id, ": ",
                                                      status.message()));
    }
  }
  return absl::OkStatus();
}

// Every replica must give the same estimates (they all read one database).
absl::Status CheckReplicasAgree(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    const Shared& shared) {
  std::string first;
  for (size_t r = 0; r < replicas.size(); ++r) {
    v1::GetEstimatesRequest request;
    request.set_study_id(shared.study_id);
    ASSIGN_OR_RETURN(const v1::GetEstimatesResponse response,
                     replicas[r]->GetEstimates(request));
    std::string bytes;
    response.SerializeToString(&bytes);
    if (r == 0) {
      first = std::move(bytes);
    } else if (bytes != first) {
      return absl::InternalError(absl::StrCat("replica ", replicas[r]->server(),
                                              " gives other estimates than ",
                                              replicas[0]->server()));
    }
  }
  if (replicas.size() > 1) {
    std::printf("\nAll %zu replicas give the same estimates.\n", replicas.size());
  }
  return absl::OkStatus();
}

absl::Status Run() {
  ASSIGN_OR_RETURN(const Config config, ConfigFromFlags());
  ASSIGN_OR_RETURN(const PopulationOptions options, PopulationFromFlags());
  ASSIGN_OR_RETURN(auto population, PopulationSource::Create(options));
  ASSIGN_OR_RETURN(const StudySpec spec, MakeStudySpec(*population, config));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                   ChannelCredentialsFromFlags());
  if (Servers().empty()) return absl::InvalidArgumentError("--server is empty");
  std::vector<std::unique_ptr<AnalystClient>> replicas;
  for (const std::string& server : Servers()) {
    replicas.push_back(AnalystClient::Connect(
        {.server = server,
         .bearer_token = config.analyst_token,
         .credentials = credentials,
         .timeout = absl::Seconds(60),
         // Planning an optimized workload strategy at CreateStudy can take
         // minutes the first time.
         .create_study_timeout = absl::Minutes(15)}));
  }
  const AnalystClient& analyst = *replicas.front();
  Shared shared{.config = config,
                .population = *population,
                .totals = Totals(population->domain_size())};
  ASSIGN_OR_RETURN(shared.study_id, CreateStudy(analyst, spec));
  std::printf("Created study %llu%s: %lld agents, %s items over [0, %u), epsilon %g\n",
              static_cast<unsigned long long>(shared.study_id),
              config.workload.has_value()
                  ? absl::StrCat(" (", absl::GetFlag(FLAGS_workload), " workload)").c_str()
                  : "",
              static_cast<long long>(population->num_agents()),
              absl::GetFlag(FLAGS_distribution).c_str(), population->domain_size(),
              absl::GetFlag(FLAGS_epsilon));
  if (options.kind == PopulationKind::kMaskedParity) {
    std::printf("Masked parity: label = parity(x & 0x%x) flipped with probability %g\n",
                population->parity_mask(), options.parity_noise);
  }
  RETURN_IF_ERROR(WaitForStudyOnReplicas(replicas, shared));
  const bool bulk = absl::GetFlag(FLAGS_mode) == "bulk";
  MakeStubs(credentials, bulk, shared);
  ASSIGN_OR_RETURN(const bool bar, ProgressBarWanted());
  std::optional<ProgressMeter> progress;
  if (absl::GetFlag(FLAGS_progress) != "none") {
    progress.emplace(ProgressOptions{.total = population->num_agents(), .terminal = bar},
                     RealClock::Get(), stderr);
    shared.progress = &*progress;
  }
  ThroughputTimeline timeline(absl::Now());
  shared.timeline = &timeline;
  const absl::Duration elapsed = RunSessions(shared, bulk);
  if (progress.has_value()) progress->Finish();
  PrintThroughput(shared, elapsed);
  if (shared.totals.accepted == 0) {
    // Nothing to estimate; say why instead of printing empty estimates.
    return absl::FailedPreconditionError(absl::StrCat(
        "no report was accepted",
        shared.totals.first_error.empty()
            ? std::string()
            : absl::StrCat(" (first error: ", shared.totals.first_error, ")")));
  }
  std::vector<EstimateSeries> series;
  RETURN_IF_ERROR(PrintEstimates(analyst, shared, series));
  RETURN_IF_ERROR(CheckReplicasAgree(replicas, shared));
  if (const std::string dir = absl::GetFlag(FLAGS_out); !dir.empty()) {
    RETURN_IF_ERROR(WriteLoadtestOutput(dir, Summary(shared, elapsed),
                                        timeline.PerSecond(), series));
    std::printf("\nReport written to %s/ (summary.json, throughput.csv/.svg, "
                "estimates.csv, one SVG per question)\n", dir.c_str());
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Load-tests ldp-server with simulated agents (real agent sessions over "
      "gRPC) and prints estimates beside the true population values.\n"
      "Usage: ldp-loadtest --server=HOST:PORT --analyst_token_file=FILE "
      "[--enrollment_token=T] [--agents=N] [--mode=sessions|bulk] "
      "[--threads=T] [--streams=S --batch=B] [--rate=AGENTS_PER_S] "
      "[--distribution=uniform|zipf|gaussian|mixture|masked_parity|csv] [--domain=N] [--epsilon=E] "
      "[--workload=prefix|all_range|histogram|marginals|parities "
      "[--workload_order=K] [--strategy=KIND] [--truth_out=FILE.json]] "
      "[--out=DIR] [--progress=auto|bar|lines|none]");
  ldp::ShowOnlyFlagsFromWithTls("loadtest_main");
  absl::ParseCommandLine(argc, argv);
  if (const absl::Status status = ldp::Run(); !status.ok()) {
    std::fprintf(stderr, "ldp-loadtest: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}

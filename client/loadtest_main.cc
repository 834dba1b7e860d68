// ldp-loadtest: drives ldp-server with N simulated agents, each a real agent
// session through the client library (Agent + AgentClient, state in memory),
// then prints the server's estimates beside the true population values,
// the error of each in standard errors, ingest throughput and the p50/p99
// latency of report acknowledgements.
//
// Flow: create one noninteractive study (a histogram of `item` and the mean
// of `value`, see population_source.h) through AnalystService; run the
// sessions (enroll, poll, answer, upload) on a fixed pool of worker threads
// sharing a few channels; fetch the estimates. The truth each estimate is
// compared with is computed over the agents whose report for that question
// was acknowledged, which is exactly the population the estimate describes.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/agent.h"
#include "client/agent_client.h"
#include "client/atomic_file.h"
#include "client/estimate_comparison.h"
#include "client/latency_stats.h"
#include "client/population_source.h"
#include "common/confidence_interval.h"
#include "common/flags_usage.h"
#include "common/secure_random.h"
#include "common/status_macros.h"
#include "common/study_spec.h"
#include "grpcpp/create_channel.h"
#include "proto/convert/estimate_convert.h"
#include "proto/convert/grpc_status.h"
#include "proto/convert/study_convert.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"

ABSL_FLAG(std::string, server, "localhost:50051", "ldp-server address (host:port).");
ABSL_FLAG(std::string, analyst_token_file, "",
          "File holding the analyst token (to create the study and read "
          "estimates). Required.");
ABSL_FLAG(std::string, enrollment_token, "", "Token the agents enroll with.");
ABSL_FLAG(int64_t, agents, 1000, "Number of simulated agents (>= 1).");
ABSL_FLAG(int, threads, 8, "Worker threads running agent sessions (>= 1).");
ABSL_FLAG(int, channels, 2, "gRPC channels shared by the workers (>= 1).");
ABSL_FLAG(std::string, tls_ca_file, "",
          "PEM CA certificate(s) to verify a TLS server; empty (and no "
          "--tls_cert_file) = plaintext.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM client certificate the simulated agents present to a server "
          "that requires mutual TLS (with --tls_key_file).");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key of --tls_cert_file.");
ABSL_FLAG(std::string, distribution, "zipf",
          "Item distribution: uniform, zipf, gaussian or csv.");
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

namespace ldp {
namespace {

constexpr char kHistogramId[] = "item_histogram";
constexpr char kMeanId[] = "mean_value";

struct Config {
  std::string analyst_token{};
  std::string enrollment_token{};
  int64_t epsilon_nanos = 0;
  double confidence = 0.95;
};

// What the workers add up; merged under a mutex at the end of each worker.
struct Totals {
  explicit Totals(uint32_t domain) : histogram_truth(domain), mean_truth(domain) {}
  int64_t sessions = 0, enroll_failures = 0, poll_failures = 0, tasks = 0;
  int64_t refusals = 0, accepted = 0, rejected = 0, upload_failures = 0;
  PopulationTruth histogram_truth, mean_truth;
  std::string first_error;

  void Error(const absl::Status& status) {
    if (first_error.empty()) first_error = status.ToString();
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
    if (first_error.empty()) first_error = o.first_error;
  }
};

struct Shared {
  const Config& config;
  const PopulationSource& population;
  uint64_t study_id = 0;
  Totals totals;
  std::vector<std::shared_ptr<v1::AgentService::StubInterface>> stubs{};
  std::atomic<int64_t> next_agent{0};
  LatencyStats ack_latency{};
  std::mutex mutex{};
};

absl::StatusOr<PopulationOptions> PopulationFromFlags() {
  ASSIGN_OR_RETURN(const PopulationKind kind,
                   ParsePopulationKind(absl::GetFlag(FLAGS_distribution)));
  PopulationOptions options{.kind = kind,
                            .num_agents = absl::GetFlag(FLAGS_agents),
                            .domain_size = absl::GetFlag(FLAGS_domain),
                            .zipf_exponent = absl::GetFlag(FLAGS_zipf),
                            .seed = absl::GetFlag(FLAGS_seed)};
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
      absl::GetFlag(FLAGS_round_seconds) < 1) {
    return absl::InvalidArgumentError("--threads, --channels and --round_seconds must be >= 1");
  }
  ASSIGN_OR_RETURN(std::optional<std::string> token,
                   ReadFileIfExists(absl::GetFlag(FLAGS_analyst_token_file)));
  if (!token.has_value() || absl::StripAsciiWhitespace(*token).empty()) {
    return absl::InvalidArgumentError("--analyst_token_file must name a non-empty file");
  }
  config.analyst_token = std::string(absl::StripAsciiWhitespace(*token));
  return config;
}

absl::StatusOr<StudySpec> MakeStudySpec(const PopulationSource& population,
                                        const Config& config) {
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

std::unique_ptr<grpc::ClientContext> AnalystContext(const Config& config) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  context->AddMetadata("authorization", absl::StrCat("Bearer ", config.analyst_token));
  return context;
}

absl::StatusOr<uint64_t> CreateStudy(v1::AnalystService::Stub& analyst,
                                     const StudySpec& spec, const Config& config) {
  v1::CreateStudyRequest request;
  ToProto(spec, request.mutable_spec());
  v1::Study study;
  auto context = AnalystContext(config);
  RETURN_IF_ERROR(FromGrpcStatus(analyst.CreateStudy(context.get(), request, &study)));
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
      totals.Error(answer.status());
    }
  }
}

void RunSession(int64_t index, AgentClient& client, SecureRandom& random,
                Shared& shared, Totals& totals) {
  ++totals.sessions;
  if (auto enrolled = client.Enroll(shared.config.enrollment_token); !enrolled.ok()) {
    ++totals.enroll_failures;
    return totals.Error(enrolled.status());
  }
  auto agent = Agent::Create({.record = shared.population.RecordOf(index),
                              .max_epsilon_per_study_nanos = shared.config.epsilon_nanos},
                             std::make_unique<MemoryAgentStateStore>(), random);
  auto batch = client.GetTasks();
  if (!agent.ok() || !batch.ok()) {
    ++totals.poll_failures;
    return totals.Error(!agent.ok() ? agent.status() : batch.status());
  }
  AnswerTasks(**agent, *batch, shared.study_id, totals);
  const std::vector<TaskReport> pending = (*agent)->PendingReports();
  if (pending.empty()) return;
  const absl::Time start = absl::Now();
  auto acks = client.Upload(pending);
  shared.ack_latency.Record(absl::Now() - start);
  if (!acks.ok()) {
    ++totals.upload_failures;
    return totals.Error(acks.status());
  }
  const uint32_t item = shared.population.ItemOf(index);
  const double value = shared.population.ValueOf(item);
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!(*acks)[i].ok()) {
      ++totals.rejected;
      totals.Error((*acks)[i]);
      continue;
    }
    ++totals.accepted;
    const bool histogram = std::holds_alternative<FrequencyReport>(pending[i].payload);
    (histogram ? totals.histogram_truth : totals.mean_truth).Add(item, value);
  }
}

void Worker(int worker, Shared& shared) {
  Totals totals(shared.population.domain_size());
  auto random = SecureRandom::Create();
  if (!random.ok()) {
    totals.Error(random.status());
  } else {
    auto stub = shared.stubs[worker % shared.stubs.size()];
    for (int64_t i = shared.next_agent++; i < shared.population.num_agents();
         i = shared.next_agent++) {
      auto client = AgentClient::Create({}, stub, **random);
      if (!client.ok()) {
        totals.Error(client.status());
        break;
      }
      RunSession(i, **client, **random, shared, totals);
    }
  }
  std::lock_guard<std::mutex> lock(shared.mutex);
  shared.totals.Merge(totals);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials() {
  return ChannelCredentialsFromFiles({.ca_file = absl::GetFlag(FLAGS_tls_ca_file),
                                      .cert_file = absl::GetFlag(FLAGS_tls_cert_file),
                                      .key_file = absl::GetFlag(FLAGS_tls_key_file)});
}

std::vector<std::shared_ptr<v1::AgentService::StubInterface>> MakeStubs(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  std::vector<std::shared_ptr<v1::AgentService::StubInterface>> stubs;
  for (int c = 0; c < absl::GetFlag(FLAGS_channels); ++c) {
    grpc::ChannelArguments arguments;
    // A distinct argument gives each channel its own connection.
    arguments.SetInt("ldp.loadtest_channel", c);
    stubs.push_back(v1::AgentService::NewStub(grpc::CreateCustomChannel(
        absl::GetFlag(FLAGS_server), credentials, arguments)));
  }
  return stubs;
}

// Runs every session; returns the wall time they took.
absl::Duration RunSessions(Shared& shared) {
  const absl::Time start = absl::Now();
  std::vector<std::thread> workers;
  for (int w = 0; w < absl::GetFlag(FLAGS_threads); ++w) {
    workers.emplace_back(Worker, w, std::ref(shared));
  }
  for (std::thread& worker : workers) worker.join();
  return absl::Now() - start;
}

void PrintThroughput(const Shared& shared, absl::Duration elapsed) {
  const Totals& t = shared.totals;
  const double seconds = absl::ToDoubleSeconds(elapsed);
  std::printf("Sessions: %lld agents in %.2f s (%d threads, %d channels)\n",
              static_cast<long long>(t.sessions), seconds,
              absl::GetFlag(FLAGS_threads), absl::GetFlag(FLAGS_channels));
  std::printf("  tasks %lld, refused %lld, reports accepted %lld, rejected %lld\n",
              static_cast<long long>(t.tasks), static_cast<long long>(t.refusals),
              static_cast<long long>(t.accepted), static_cast<long long>(t.rejected));
  std::printf("  failures: enroll %lld, poll %lld, upload %lld\n",
              static_cast<long long>(t.enroll_failures),
              static_cast<long long>(t.poll_failures),
              static_cast<long long>(t.upload_failures));
  if (!t.first_error.empty()) std::printf("  first error: %s\n", t.first_error.c_str());
  std::printf("  throughput: %.0f reports/s (sessions incl. enroll and poll)\n",
              seconds > 0 ? t.accepted / seconds : 0.0);
  std::printf("  ack latency per upload: p50 %s, p99 %s over %lld uploads\n",
              absl::FormatDuration(shared.ack_latency.Quantile(0.5)).c_str(),
              absl::FormatDuration(shared.ack_latency.Quantile(0.99)).c_str(),
              static_cast<long long>(shared.ack_latency.count()));
}

absl::Status PrintEstimate(const NamedEstimate& named, const Shared& shared) {
  const Totals& t = shared.totals;
  if (const auto* h = std::get_if<HistogramRelease>(&named.estimate)) {
    ASSIGN_OR_RETURN(HistogramComparison comparison,
                     CompareHistogram(h->estimate, t.histogram_truth.Frequencies(),
                                      h->labels, h->confidence));
    std::printf("\n%s: histogram of item, %s, n = %lld, epsilon %.4g\n",
                named.question_id.c_str(), h->mechanism.c_str(),
                static_cast<long long>(h->estimate.num_reports), h->estimate.epsilon);
    std::printf("%s", FormatHistogramComparison(comparison, absl::GetFlag(FLAGS_top)).c_str());
    return absl::OkStatus();
  }
  const auto& s = std::get<ScalarRelease>(named.estimate);
  std::printf("\n%s: mean of value, %s, n = %lld, epsilon %.4g (population mean %.6f)\n",
              named.question_id.c_str(), s.mechanism.c_str(),
              static_cast<long long>(s.estimate.num_reports), s.estimate.epsilon,
              shared.population.Truth().MeanValue());
  std::printf("%s", FormatScalarComparison(
                        CompareScalar(s.estimate, t.mean_truth.MeanValue(), "mean value"))
                        .c_str());
  return absl::OkStatus();
}

absl::Status PrintEstimates(v1::AnalystService::Stub& analyst, const Shared& shared) {
  v1::GetEstimatesRequest request;
  request.set_study_id(shared.study_id);
  v1::GetEstimatesResponse response;
  auto context = AnalystContext(shared.config);
  RETURN_IF_ERROR(FromGrpcStatus(analyst.GetEstimates(context.get(), request, &response)));
  std::printf("\nEstimates of study %llu (truth = the agents whose report was "
              "acknowledged):\n", static_cast<unsigned long long>(shared.study_id));
  for (const v1::QuestionEstimate& proto : response.estimates()) {
    ASSIGN_OR_RETURN(NamedEstimate named, QuestionEstimateFromProto(proto));
    RETURN_IF_ERROR(PrintEstimate(named, shared));
  }
  return absl::OkStatus();
}

absl::Status Run() {
  ASSIGN_OR_RETURN(const Config config, ConfigFromFlags());
  ASSIGN_OR_RETURN(const PopulationOptions options, PopulationFromFlags());
  ASSIGN_OR_RETURN(auto population, PopulationSource::Create(options));
  ASSIGN_OR_RETURN(const StudySpec spec, MakeStudySpec(*population, config));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials, Credentials());
  auto analyst = v1::AnalystService::NewStub(
      grpc::CreateChannel(absl::GetFlag(FLAGS_server), credentials));
  Shared shared{.config = config,
                .population = *population,
                .totals = Totals(population->domain_size())};
  ASSIGN_OR_RETURN(shared.study_id, CreateStudy(*analyst, spec, config));
  std::printf("Created study %llu: %lld agents, %s items over [0, %u), epsilon %g\n",
              static_cast<unsigned long long>(shared.study_id),
              static_cast<long long>(population->num_agents()),
              absl::GetFlag(FLAGS_distribution).c_str(), population->domain_size(),
              absl::GetFlag(FLAGS_epsilon));
  shared.stubs = MakeStubs(credentials);
  const absl::Duration elapsed = RunSessions(shared);
  PrintThroughput(shared, elapsed);
  return PrintEstimates(*analyst, shared);
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Load-tests ldp-server with simulated agents (real agent sessions over "
      "gRPC) and prints estimates beside the true population values.\n"
      "Usage: ldp-loadtest --server=HOST:PORT --analyst_token_file=FILE "
      "[--enrollment_token=T] [--agents=N] [--threads=T] "
      "[--distribution=uniform|zipf|gaussian|csv] [--domain=N] [--epsilon=E]");
  ldp::ShowOnlyFlagsFrom("loadtest_main");
  absl::ParseCommandLine(argc, argv);
  if (const absl::Status status = ldp::Run(); !status.ok()) {
    std::fprintf(stderr, "ldp-loadtest: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}

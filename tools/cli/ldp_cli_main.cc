// ldp: the analyst's command line for a running ldp-server.
//
//   ldp study create FILE      create a study from a textproto or JSON spec
//   ldp study status ID        state, plan and progress of a study
//   ldp study list             studies, newest first
//   ldp results ID [--json]    estimates with their intervals; workload
//                              answers with their simultaneous band, and
//                              --plot=FILE.svg [--truth=FILE.json] to draw
//                              them
//   ldp budget AGENT           what the server has charged an agent
//   ldp plan FILE ...          a forecast, in process: no server needed
//   ldp page                   the live study page, a read-only web page of
//                              every study as it fills

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "client/tls_flags/tls_flags.h"
#include "common/base/file_text.h"
#include "common/base/shutdown_signals.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/security/credentials.h"
#include "proto/convert/study_file.h"
#include "proto/ldp/v1/analyst_service.pb.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/cli/estimate_printing.h"
#include "tools/loadtest_core/workload_plot.h"
#include "tools/plan_command/gamma2_text.h"
#include "tools/plan_command/plan_command.h"
#include "tools/study_page/estimate_plots.h"
#include "tools/study_page/page_command.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "ldp-server address.");
ABSL_FLAG(std::string, token_file, "ldp.db.analyst_token",
          "File holding the analyst token (ldp-server writes "
          "<db>.analyst_token).");
ABSL_FLAG(bool, json, false, "Print results as JSON instead of a table.");
ABSL_FLAG(uint64_t, round, 0, "Round of `results` (0 = the latest).");
ABSL_FLAG(int, top, 20,
          "Histogram rows printed by `results` (largest first; 0 = all).");
ABSL_FLAG(int, workload_rows, 20,
          "Workload answers printed by `results`: the first and last half of "
          "this many, in query order (0 = all; --json prints all).");
ABSL_FLAG(std::string, plot, "",
          "With `results`: write an SVG plot of a workload question's "
          "answers with their simultaneous band to this file.");
ABSL_FLAG(std::string, truth, "",
          "With --plot: a JSON file {\"QUESTION_ID\": [true answers...]} "
          "(ldp-loadtest --truth_out writes one) drawn as a second line.");
ABSL_FLAG(std::string, question, "",
          "With --plot: the workload question to draw (default: the first).");
ABSL_FLAG(uint64_t, study, 0, "Restrict `budget` to one study (0 = all).");
ABSL_FLAG(std::string, request_id, "",
          "Idempotency key for `study create`: a retry with the same key "
          "returns the first study instead of creating another.");
ABSL_FLAG(int, timeout_seconds, 30, "Deadline of each call.");
// `ldp plan` (tools/plan_command/plan_command.h).
ABSL_FLAG(int64_t, agents, 0,
          "ldp plan: agents the study will reach; print the error at this n "
          "(0 = only the agents needed for --target_error).");
ABSL_FLAG(double, target_error, 0,
          "ldp plan: τ > 0, print the agents needed for every estimate to be "
          "within τ (answers as fractions, or in a query's own units).");
ABSL_FLAG(double, confidence, 0,
          "ldp plan: 1 − β of every half-width and of --target_error (0 = the "
          "study's).");
ABSL_FLAG(bool, simulate, false,
          "ldp plan: also run the study --runs times on a synthetic population "
          "of --agents agents, in process, and print predicted vs observed "
          "error.");
ABSL_FLAG(int, runs, 200, "ldp plan: runs of --simulate.");
ABSL_FLAG(uint64_t, seed, 1,
          "ldp plan: seed of --simulate's population and coins.");
ABSL_FLAG(std::string, strategy_cache_dir, "",
          "ldp plan: where optimized workload strategies are cached (share it "
          "with ldp-server's, <db>.strategies, to plan each workload once).");
// `ldp page` (tools/study_page/page_command.h).
ABSL_FLAG(std::string, page_host, "127.0.0.1",
          "ldp page: address to listen on. Plaintext only on loopback; "
          "anywhere else give --page_cert_file and --page_key_file.");
ABSL_FLAG(int, page_port, 8080, "ldp page: port (0 = any free port).");
ABSL_FLAG(std::string, page_cert_file, "",
          "ldp page: PEM certificate (chain) to serve the page over HTTPS; "
          "required when ldp-server is reached over TLS.");
ABSL_FLAG(std::string, page_key_file, "",
          "ldp page: PEM private key of --page_cert_file.");
ABSL_FLAG(std::string, page_port_file, "",
          "ldp page: write the port here once listening (for --page_port=0).");
ABSL_FLAG(double, refresh_seconds, 2,
          "ldp page: how often the page polls ldp-server (one ListStudies, "
          "and per study one GetRound and, when its reports changed, one "
          "GetEstimates).");
ABSL_FLAG(int, max_studies, 20,
          "ldp page: the newest this many studies are shown.");
ABSL_FLAG(int, optimizer_minutes, 10,
          "ldp plan: time limit of each workload strategy optimization.");

namespace ldp {
namespace {

constexpr char kUsage[] =
    "The analyst's command line for ldp-server.\n"
    "Usage:\n"
    "  ldp study create FILE     create a study from an ldp.v1.StudySpec in\n"
    "                            text format (.textproto/.txtpb/.pbtxt) or "
    "JSON\n"
    "  ldp study status ID       state, plan and progress of a study\n"
    "  ldp study list            studies, newest first\n"
    "  ldp study advance ID      INTERACTIVE studies: close the open round "
    "now\n"
    "                            and open the one the analyst program asks "
    "next\n"
    "  ldp results ID [--json] [--round=R] [--top=K] [--workload_rows=K]\n"
    "                            [--plot=FILE.svg [--truth=FILE.json]\n"
    "                            [--question=QID]]\n"
    "  ldp budget AGENT [--study=S]\n"
    "  ldp plan FILE [--agents=N] [--target_error=TAU] [--confidence=P]\n"
    "                [--simulate [--runs=R] [--seed=S]]\n"
    "                            forecast a study without a server: error at\n"
    "                            n agents or agents needed for a target "
    "error,\n"
    "                            per question, beside the central-model\n"
    "                            baseline; --simulate checks it in process\n"
    "  ldp page [--page_host=127.0.0.1] [--page_port=8080]\n"
    "           [--page_cert_file=PEM --page_key_file=PEM]\n"
    "                            serve the live study page: every study's "
    "state,\n"
    "                            reports against quorum over time, epsilon\n"
    "                            charged and estimates as charts, refreshed\n"
    "                            while it runs; the browser asks for the\n"
    "                            analyst token\n"
    "Common flags: --server=HOST:PORT --token_file=PATH [--tls_ca_file=PEM]";

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp: %s\n", status.ToString().c_str());
  return status.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
}

// The analyst's client from --server, --token_file, --tls_* and
// --timeout_seconds.
absl::StatusOr<std::unique_ptr<AnalystClient>> ConnectFromFlags() {
  absl::StatusOr<std::string> token =
      ReadFileText(absl::GetFlag(FLAGS_token_file), "--token_file");
  if (!token.ok()) {
    return absl::NotFoundError(absl::StrCat(
        token.status().message(),
        "; pass --token_file (ldp-server writes <db>.analyst_token)"));
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ChannelCredentialsFromFlags();
  if (!credentials.ok()) return credentials.status();
  const absl::Duration timeout =
      absl::Seconds(absl::GetFlag(FLAGS_timeout_seconds));
  return AnalystClient::Connect(
      {.server = absl::GetFlag(FLAGS_server),
       .bearer_token = std::string(absl::StripAsciiWhitespace(*token)),
       .credentials = *std::move(credentials),
       .timeout = timeout,
       .create_study_timeout = timeout,
       // `ldp results` prints whole workload estimates; accept 256 MB.
       .max_receive_message_bytes = 256 << 20});
}

absl::StatusOr<uint64_t> ParseId(const std::vector<char*>& args, size_t i,
                                 const char* what) {
  uint64_t id = 0;
  if (args.size() <= i || !absl::SimpleAtoi(args[i], &id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, "\n", kUsage));
  }
  return id;
}

void PrintRound(const v1::Round& round) {
  std::printf("round %llu: %s\n",
              static_cast<unsigned long long>(round.round_id()),
              v1::RoundState_Name(round.state()).c_str());
  if (!round.name().empty()) {
    std::printf("  program round \"%s\": agents in [%g, %g)\n",
                round.name().c_str(), round.slice_begin(), round.slice_end());
  }
  if (!round.split_strategy().empty()) {
    std::printf("  plan: %s — %s\n", round.split_strategy().c_str(),
                round.plan_explanation().c_str());
  }
  for (const auto& progress : round.progress()) {
    std::printf("  %-24s %10llu reports\n", progress.question_id().c_str(),
                static_cast<unsigned long long>(progress.num_reports()));
  }
}

absl::Status StudyStatus(const AnalystClient& analyst, uint64_t id) {
  v1::GetStudyRequest request;
  request.set_study_id(id);
  auto study = analyst.GetStudy(request);
  if (!study.ok()) return study.status();
  const auto& status = study->status();
  std::printf(
      "study %llu \"%s\": %s, %llu agents charged, %llu reports, "
      "largest spend %.4g of cap %.4g epsilon\n",
      static_cast<unsigned long long>(study->study_id()),
      study->spec().display_name().c_str(),
      v1::StudyState_Name(status.state()).c_str(),
      static_cast<unsigned long long>(status.num_agents()),
      static_cast<unsigned long long>(status.num_reports()),
      status.max_spent_nanos() * 1e-9,
      study->spec().epsilon_cap_nanos() * 1e-9);
  for (uint64_t round_id : status.round_ids()) {
    v1::GetRoundRequest round_request;
    round_request.set_study_id(id);
    round_request.set_round_id(round_id);
    auto round = analyst.GetRound(round_request);
    if (!round.ok()) return round.status();
    PrintRound(*round);
  }
  if (status.has_program_result()) {
    const v1::ProgramResult& result = status.program_result();
    std::printf("program %s %s: %s\n", study->spec().program().name().c_str(),
                result.done() ? "result" : "so far", result.summary().c_str());
    for (const v1::ProgramValue& value : result.values()) {
      if (value.has_interval()) {
        std::printf("  %-24s %12.6g  [%.6g, %.6g] at %g%%\n",
                    value.name().c_str(), value.value(),
                    value.interval().lower(), value.interval().upper(),
                    100 * value.interval().confidence());
      } else {
        std::printf("  %-24s %12.6g\n", value.name().c_str(), value.value());
      }
    }
  }
  return absl::OkStatus();
}

// The truth file: {"QUESTION_ID": [numbers...], ...}.
absl::StatusOr<std::vector<double>> ReadTruth(const std::string& path,
                                              const std::string& question_id) {
  absl::StatusOr<std::string> text = ReadFileText(path, "--truth");
  if (!text.ok()) return text.status();
  google::protobuf::Struct truth;
  if (!google::protobuf::util::JsonStringToMessage(*text, &truth).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not a JSON object {\"QUESTION_ID\": [numbers...]}"));
  }
  const auto it = truth.fields().find(question_id);
  if (it == truth.fields().end() || !it->second.has_list_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " has no array of true answers for question \"",
                     question_id, "\""));
  }
  std::vector<double> values;
  for (const google::protobuf::Value& v : it->second.list_value().values()) {
    if (!v.has_number_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": the true answers of \"", question_id, "\" must be numbers"));
    }
    values.push_back(v.number_value());
  }
  return values;
}

absl::Status WritePlot(const v1::GetEstimatesResponse& estimates) {
  const std::string wanted = absl::GetFlag(FLAGS_question);
  const v1::QuestionEstimate* chosen = nullptr;
  for (const auto& q : estimates.estimates()) {
    if (q.has_workload() && (wanted.empty() || q.question_id() == wanted)) {
      chosen = &q;
      break;
    }
  }
  if (chosen == nullptr) {
    return absl::InvalidArgumentError(
        wanted.empty()
            ? std::string("--plot: the round has no workload question")
            : absl::StrCat("--plot: no workload question \"", wanted, "\""));
  }
  WorkloadPlot plot =
      WorkloadEstimatePlot(chosen->question_id(), chosen->workload());
  if (const std::string path = absl::GetFlag(FLAGS_truth); !path.empty()) {
    absl::StatusOr<std::vector<double>> truth =
        ReadTruth(path, chosen->question_id());
    if (!truth.ok()) return truth.status();
    if (truth->size() != plot.estimates.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " has ", truth->size(), " true answers for \"",
                       chosen->question_id(), "\" but the workload has ",
                       plot.estimates.size()));
    }
    plot.truth = *std::move(truth);
  }
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(plot);
  if (!svg.ok()) return svg.status();
  const std::string out = absl::GetFlag(FLAGS_plot);
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file << *svg;
  file.close();
  if (!file) return absl::UnavailableError(absl::StrCat("cannot write ", out));
  std::fprintf(stderr, "ldp: wrote %s (%s, %zu answers%s)\n", out.c_str(),
               chosen->question_id().c_str(), plot.estimates.size(),
               plot.truth.empty() ? "" : ", with the truth");
  return absl::OkStatus();
}

absl::Status Results(const AnalystClient& analyst, uint64_t id) {
  v1::GetEstimatesRequest request;
  request.set_study_id(id);
  request.set_round_id(absl::GetFlag(FLAGS_round));
  auto estimates = analyst.GetEstimates(request);
  if (!estimates.ok()) return estimates.status();
  if (!absl::GetFlag(FLAGS_plot).empty()) {
    if (absl::Status s = WritePlot(*estimates); !s.ok()) return s;
  }
  if (absl::GetFlag(FLAGS_json)) {
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    (void)google::protobuf::util::MessageToJsonString(*estimates, &json,
                                                      options);
    std::printf("%s\n", json.c_str());
    return absl::OkStatus();
  }
  std::printf("study %llu round %llu (%s)\n",
              static_cast<unsigned long long>(id),
              static_cast<unsigned long long>(estimates->round_id()),
              v1::RoundState_Name(estimates->round_state()).c_str());
  for (const auto& q : estimates->estimates()) {
    if (q.has_scalar()) PrintScalar(q.question_id(), q.scalar());
    if (q.has_histogram())
      PrintHistogram(q.question_id(), q.histogram(), absl::GetFlag(FLAGS_top));
    if (q.has_workload()) {
      PrintWorkload(q.question_id(), q.workload(),
                    absl::GetFlag(FLAGS_workload_rows));
    }
    if (q.has_shuffled()) PrintShuffled(q.shuffled());
  }
  return absl::OkStatus();
}

// `ldp plan STUDY_FILE`, from the plan flags.
absl::Status Plan(const std::vector<char*>& args) {
  if (args.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("ldp plan expects exactly one STUDY_FILE\n", kUsage));
  }
  return RunPlanCommand(
      args[2], {.agents = absl::GetFlag(FLAGS_agents),
                .target_error = absl::GetFlag(FLAGS_target_error),
                .confidence = absl::GetFlag(FLAGS_confidence),
                .simulate = absl::GetFlag(FLAGS_simulate),
                .runs = absl::GetFlag(FLAGS_runs),
                .seed = absl::GetFlag(FLAGS_seed),
                .strategy_cache_dir = absl::GetFlag(FLAGS_strategy_cache_dir),
                .optimizer_time_limit =
                    absl::Minutes(absl::GetFlag(FLAGS_optimizer_minutes))});
}

// `ldp page`, from the page flags. The stop signals are routed to the
// main thread before the channel starts any thread; main waits for them.
absl::Status Page() {
  const sigset_t signals = BlockShutdownSignals();
  const ClientTlsFiles tls = TlsFilesFromFlags();
  const PageCommandOptions options{
      .host = absl::GetFlag(FLAGS_page_host),
      .port = absl::GetFlag(FLAGS_page_port),
      .tls_cert_file = absl::GetFlag(FLAGS_page_cert_file),
      .tls_key_file = absl::GetFlag(FLAGS_page_key_file),
      .server_uses_tls = !tls.ca_file.empty() || !tls.cert_file.empty(),
      .port_file = absl::GetFlag(FLAGS_page_port_file),
      .refresh = absl::Seconds(absl::GetFlag(FLAGS_refresh_seconds)),
      .max_studies = absl::GetFlag(FLAGS_max_studies)};
  if (absl::Status valid = ValidatePageOptions(options); !valid.ok())
    return valid;
  auto analyst = ConnectFromFlags();
  if (!analyst.ok()) return analyst.status();
  return RunPageCommand(**analyst, (*analyst)->bearer_token(), options,
                        signals);
}

absl::Status Run(const std::vector<char*>& args) {
  if (args.size() < 2) return absl::InvalidArgumentError(kUsage);
  const std::string command = args[1];
  const std::string sub = args.size() > 2 ? args[2] : "";
  if (command == "plan") return Plan(args);
  if (command == "page") {
    if (args.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("ldp page takes no arguments\n", kUsage));
    }
    return Page();
  }
  auto analyst = ConnectFromFlags();
  if (!analyst.ok()) return analyst.status();
  if (command == "study" && sub == "create") {
    if (args.size() < 4)
      return absl::InvalidArgumentError(
          absl::StrCat("expected FILE\n", kUsage));
    auto spec = ReadStudySpecFile(args[3]);
    if (!spec.ok()) return spec.status();
    v1::CreateStudyRequest request;
    *request.mutable_spec() = *spec;
    request.set_request_id(absl::GetFlag(FLAGS_request_id));
    auto study = (*analyst)->CreateStudy(request);
    if (!study.ok()) return study.status();
    std::printf("created study %llu\n",
                static_cast<unsigned long long>(study->study_id()));
    return StudyStatus(**analyst, study->study_id());
  }
  if (command == "study" && sub == "status") {
    auto id = ParseId(args, 3, "a study ID");
    if (!id.ok()) return id.status();
    return StudyStatus(**analyst, *id);
  }
  if (command == "study" && sub == "list") {
    auto list = (*analyst)->ListStudies(v1::ListStudiesRequest());
    if (!list.ok()) return list.status();
    for (const auto& study : list->studies()) {
      std::printf("%llu  %-10s %8llu reports  %s\n",
                  static_cast<unsigned long long>(study.study_id()),
                  v1::StudyState_Name(study.status().state()).c_str(),
                  static_cast<unsigned long long>(study.status().num_reports()),
                  study.spec().display_name().c_str());
    }
    return absl::OkStatus();
  }
  if (command == "study" && sub == "advance") {
    auto id = ParseId(args, 3, "a study ID");
    if (!id.ok()) return id.status();
    v1::StartRoundRequest request;
    request.set_study_id(*id);
    auto round = (*analyst)->StartRound(request);
    if (!round.ok()) return round.status();
    PrintRound(*round);
    return absl::OkStatus();
  }
  if (command == "results") {
    auto id = ParseId(args, 2, "a study ID");
    if (!id.ok()) return id.status();
    return Results(**analyst, *id);
  }
  if (command == "budget") {
    auto agent = ParseId(args, 2, "an agent ID");
    if (!agent.ok()) return agent.status();
    v1::GetBudgetRequest request;
    request.set_agent_id(*agent);
    request.set_study_id(absl::GetFlag(FLAGS_study));
    auto budget = (*analyst)->GetAgentBudget(request);
    if (!budget.ok()) return budget.status();
    std::printf("agent %llu\n", static_cast<unsigned long long>(*agent));
    for (const auto& entry : budget->entries()) {
      std::printf("  study %llu: spent %.9g of %.9g epsilon\n",
                  static_cast<unsigned long long>(entry.study_id()),
                  entry.spent_nanos() * 1e-9, entry.cap_nanos() * 1e-9);
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown command\n", kUsage));
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(ldp::kUsage);
  ldp::ShowOnlyFlagsFromWithTls("ldp_cli_main");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  const absl::Status status = ldp::Run(args);
  return status.ok() ? 0 : ldp::Fail(status);
}

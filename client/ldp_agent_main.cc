// ldp-agent: one device's agent. It enrolls once, then polls the server for
// tasks, answers each from its local record under its own privacy budget
// (the Agent enforces every rule; see client/core/agent.h), and uploads only
// the randomized reports. State (budget, memo, unsent reports, credential)
// lives in --state_dir, so a restart never forgets spent budget and resends
// unacknowledged reports byte for byte.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "client/core/atomic_file.h"
#include "client/core/credential_file.h"
#include "client/tls_flags/tls_flags.h"
#include "common/base/file_text.h"
#include "common/base/host_address.h"
#include "common/base/status_macros.h"
#include "common/crypto/secure_random.h"
#include "common/queries/record_json.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"

ABSL_FLAG(std::string, server, "localhost:50051",
          "Address of ldp-server (host:port).");
ABSL_FLAG(std::string, record, "",
          "Path of this device's record: a JSON object of field values. "
          "Required. It is read locally and never sent.");
ABSL_FLAG(std::string, state_dir, "",
          "Directory for the agent's budget, memo, unsent reports and "
          "credential (created with mode 0700 if missing). Required; keep it "
          "across restarts.");
ABSL_FLAG(std::string, enrollment_token, "",
          "Token for the first enrollment (when --state_dir holds no "
          "credential yet).");
ABSL_FLAG(std::string, shuffler, "",
          "Address (host:port) of this device's own shuffler, run by another "
          "operator than the server, for shuffled studies: their reports are "
          "sealed to the server's key and handed to the shuffler, which drops "
          "who sent them and when before the server sees them. Empty: tasks "
          "of shuffled studies are refused, and their reports never go to "
          "the server. The server never names the shuffler (a hostile one "
          "would name itself). A shuffled task charges its own epsilon, the "
          "local epsilon0 (what still holds if server and shuffler collude), "
          "usually well above the default caps, which then refuse it until "
          "the owner raises them.");
ABSL_FLAG(std::string, shuffler_ca_file, "",
          "PEM CA certificate(s) the shuffler's certificate must chain to "
          "(TLS to the shuffler). Required unless --shuffler is on loopback "
          "(127.x, ::1, localhost), which is then plaintext.");
ABSL_FLAG(double, max_epsilon_per_study, 1.0,
          "The most privacy budget (epsilon) this device spends on any one "
          "study, whatever the server asks; a lower server cap wins. A "
          "shuffled study charges its local epsilon0 (see --shuffler): raise "
          "this, --max_epsilon_per_period and --max_total_epsilon on purpose "
          "to take part in one.");
ABSL_FLAG(double, max_total_epsilon, 10.0,
          "Lifetime cap: the most epsilon this device ever spends, across "
          "all studies and servers (> 0). The default allows ten studies at "
          "the default per-study cap; repeated questions cost nothing.");
ABSL_FLAG(double, max_epsilon_per_period, 2.0,
          "The most epsilon spent in any rolling --budget_period_hours "
          "window (> 0), so no server can spend the lifetime cap in one "
          "burst. 2 per 24 h is the strictest per-day budget deployed "
          "systems publish.");
ABSL_FLAG(int, budget_period_hours, 24,
          "Length of the rolling window of --max_epsilon_per_period.");
ABSL_FLAG(bool, unlimited_budget, false,
          "Lift the lifetime and per-period caps (the per-study cap stays). "
          "Unsafe: a server can then ask for a new study every day for "
          "ever. Logs a warning.");
ABSL_FLAG(int, max_state_kib, 1024,
          "Size cap of the state file in KiB; a task that would grow it "
          "beyond this is refused until rounds close and memo entries "
          "expire.");
ABSL_FLAG(int, memo_retention_days, 365,
          "Days a memoized answer (and a longitudinal permanent response) is "
          "kept; a question asked again after that is answered afresh and "
          "charged again, within the caps.");
ABSL_FLAG(int, send_window_ms, 2000,
          "Reports leave at a moment drawn uniformly from [W/2, W] ms after "
          "the poll returned, never when their computation ends, so the "
          "send time cannot tell anything about the record (>= 10).");
ABSL_FLAG(bool, once, false,
          "Run one poll/answer/upload cycle and exit (status 0 if the poll, "
          "the upload and any shuffler submission succeeded).");
ABSL_FLAG(int, poll_seconds, 30,
          "Seconds between polls (the server may ask for longer).");
ABSL_FLAG(int, rpc_timeout_seconds, 30, "Deadline of each RPC attempt.");

namespace ldp {
namespace {

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested = true; }

absl::StatusOr<int64_t> EpsilonFlagToNanos(const char* name, double epsilon,
                                           bool allow_zero) {
  if (!(epsilon >= 0) || epsilon > 1e9 || (!allow_zero && epsilon == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be ", allow_zero ? ">= 0" : "> 0",
                     " and at most 1e9, got ", epsilon));
  }
  return static_cast<int64_t>(epsilon * kNanosPerEpsilon + 0.5);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel() {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                   ChannelCredentialsFromFlags());
  return grpc::CreateChannel(absl::GetFlag(FLAGS_server), credentials);
}

// The host of HOST:PORT ([v6]:PORT included).
std::string HostOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

// The stub of --shuffler, or null when there is none. TLS unless the
// shuffler is on loopback: its calls carry the agent's ticket, which names
// the agent, so plaintext off the machine would tell the network who
// answered which question.
absl::StatusOr<std::shared_ptr<v1::ShufflerService::StubInterface>>
MakeShufflerStub() {
  const std::string address = absl::GetFlag(FLAGS_shuffler);
  const std::string ca_file = absl::GetFlag(FLAGS_shuffler_ca_file);
  if (address.empty()) {
    if (!ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--shuffler_ca_file needs --shuffler (the shuffler's address)");
    }
    return nullptr;
  }
  if (address == absl::GetFlag(FLAGS_server)) {
    return absl::InvalidArgumentError(
        "--shuffler names --server: a shuffler only hides who reported from "
        "a server it is not");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
  if (!ca_file.empty()) {
    grpc::SslCredentialsOptions options;
    ASSIGN_OR_RETURN(options.pem_root_certs,
                     ReadPemFile(ca_file, "--shuffler_ca_file"));
    credentials = grpc::SslCredentials(options);
  } else if (!IsLoopback(HostOf(address))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shuffler=", address,
        " is not on loopback: give "
        "--shuffler_ca_file (the CA its certificate chains to); plaintext "
        "would show the network which agent answered which question"));
  }
  return std::shared_ptr<v1::ShufflerService::StubInterface>(
      v1::ShufflerService::NewStub(grpc::CreateChannel(address, credentials)));
}

absl::StatusOr<std::string> PrepareStateDir() {
  const std::string dir = absl::GetFlag(FLAGS_state_dir);
  if (dir.empty()) return absl::InvalidArgumentError("--state_dir is required");
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("cannot create --state_dir ", dir));
  }
  return dir;
}

absl::StatusOr<std::string> ReadRecordFile() {
  const std::string path = absl::GetFlag(FLAGS_record);
  if (path.empty()) return absl::InvalidArgumentError("--record is required");
  ASSIGN_OR_RETURN(std::optional<std::string> json, ReadFileIfExists(path));
  if (!json.has_value()) {
    return absl::NotFoundError(absl::StrCat("--record ", path, " not found"));
  }
  if (json->size() > kMaxRecordJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--record ", path, " exceeds ", kMaxRecordJsonBytes, " bytes"));
  }
  if (json->find_first_not_of(" \t\r\n") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--record ", path, " is empty"));
  }
  return *json;
}

// The saved credential, or a new enrollment saved before first use. The
// enrollment's request id is saved before the first try and reused by every
// try, in this run or the next (after a crash or a failed --once run), so
// a reply lost on the way never leaves the server an agent no one holds.
absl::Status EnsureCredential(const std::string& dir, AgentClient& client) {
  const std::string path = absl::StrCat(dir, "/credential");
  const std::string request_path = absl::StrCat(dir, "/enrollment_request");
  ASSIGN_OR_RETURN(std::optional<StoredCredential> saved, LoadCredential(path));
  if (saved.has_value()) {
    client.set_credential({saved->agent_id, saved->bearer_token});
    return RemoveEnrollmentRequest(request_path);  // left by a crash
  }
  ASSIGN_OR_RETURN(const std::string fresh_id, NewEnrollmentRequestId());
  ASSIGN_OR_RETURN(const std::string request_id,
                   LoadOrSaveEnrollmentRequest(request_path, fresh_id));
  ASSIGN_OR_RETURN(
      AgentCredential fresh,
      client.Enroll(absl::GetFlag(FLAGS_enrollment_token), request_id));
  std::fprintf(stderr, "ldp-agent: enrolled as agent %llu\n",
               static_cast<unsigned long long>(fresh.agent_id));
  RETURN_IF_ERROR(SaveCredential(path, {fresh.agent_id, fresh.bearer_token}));
  return RemoveEnrollmentRequest(request_path);
}

void LogShuffler(const CycleResult& r) {
  if (r.sealed_sent > 0) {
    std::fprintf(stderr,
                 "ldp-agent:   %d sealed report(s) sent to the shuffler, %d "
                 "accepted, %zu rejected\n",
                 r.sealed_sent, r.sealed_accepted,
                 r.shuffler_rejections.size());
  }
  for (const absl::Status& s : r.shuffler_rejections) {
    std::fprintf(stderr, "ldp-agent:   shuffler rejected a report: %s\n",
                 s.ToString().c_str());
  }
  if (!r.submit_status.ok()) {
    std::fprintf(stderr,
                 "ldp-agent:   shuffler submit failed (will resend): "
                 "%s\n",
                 r.submit_status.ToString().c_str());
  }
}

void LogCycle(const CycleResult& r) {
  std::fprintf(stderr,
               "ldp-agent: %d task(s): %d answered, %d from memo, %d again, "
               "%zu refused; %d report(s) sent, %d accepted, %zu rejected\n",
               r.tasks_received, r.answered_fresh, r.answered_from_memo,
               r.answered_again, r.refusals.size(), r.reports_sent,
               r.reports_accepted, r.rejections.size());
  LogShuffler(r);
  for (const absl::Status& s : r.refusals) {
    std::fprintf(stderr, "ldp-agent:   %s\n", s.ToString().c_str());
  }
  for (const absl::Status& s : r.rejections) {
    std::fprintf(stderr, "ldp-agent:   server rejected a report: %s\n",
                 s.ToString().c_str());
  }
  if (!r.poll_status.ok()) {
    std::fprintf(stderr, "ldp-agent:   polling failed: %s\n",
                 r.poll_status.ToString().c_str());
  }
  if (!r.upload_status.ok()) {
    std::fprintf(stderr, "ldp-agent:   upload failed (will resend): %s\n",
                 r.upload_status.ToString().c_str());
  }
}

void SleepUnlessStopped(absl::Duration duration) {
  const absl::Time until = absl::Now() + duration;
  while (!stop_requested && absl::Now() < until) {
    absl::SleepFor(std::min(absl::Milliseconds(200), until - absl::Now()));
  }
}

// The caps from the flags; "no limit" only through --unlimited_budget.
absl::StatusOr<AgentCaps> CapsFromFlags() {
  const int hours = absl::GetFlag(FLAGS_budget_period_hours);
  if (hours < 1 || hours > 24 * 3650) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--budget_period_hours must be in [1, 87600], got ", hours));
  }
  AgentCaps caps{.period_seconds = int64_t{hours} * 3600};
  ASSIGN_OR_RETURN(caps.lifetime_nanos,
                   EpsilonFlagToNanos("max_total_epsilon",
                                      absl::GetFlag(FLAGS_max_total_epsilon),
                                      /*allow_zero=*/false));
  ASSIGN_OR_RETURN(
      caps.period_nanos,
      EpsilonFlagToNanos("max_epsilon_per_period",
                         absl::GetFlag(FLAGS_max_epsilon_per_period),
                         /*allow_zero=*/false));
  if (absl::GetFlag(FLAGS_unlimited_budget)) {
    std::fprintf(stderr,
                 "ldp-agent: WARNING: --unlimited_budget: no lifetime or "
                 "per-period cap; only the per-study cap of %g epsilon "
                 "bounds what servers learn, and they can open new studies "
                 "without end\n",
                 absl::GetFlag(FLAGS_max_epsilon_per_study));
    caps.lifetime_nanos = kUnlimitedNanos;
    caps.period_nanos = kUnlimitedNanos;
  }
  return caps;
}

absl::StatusOr<AgentOptions> OptionsFromFlags() {
  AgentOptions options;
  ASSIGN_OR_RETURN(
      options.max_epsilon_per_study_nanos,
      EpsilonFlagToNanos("max_epsilon_per_study",
                         absl::GetFlag(FLAGS_max_epsilon_per_study),
                         /*allow_zero=*/false));
  ASSIGN_OR_RETURN(options.caps, CapsFromFlags());
  const int kib = absl::GetFlag(FLAGS_max_state_kib);
  const int days = absl::GetFlag(FLAGS_memo_retention_days);
  if (kib < 4 || kib > (1 << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_state_kib must be in [4, 1048576], got ", kib));
  }
  if (days < 1 || days > 36500) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--memo_retention_days must be in [1, 36500], got ", days));
  }
  options.max_state_bytes = int64_t{kib} * 1024;
  options.retention = absl::Hours(24) * days;
  return options;
}

absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(const std::string& dir,
                                                 SecureRandom& random) {
  ASSIGN_OR_RETURN(AgentOptions options, OptionsFromFlags());
  ASSIGN_OR_RETURN(options.record_json, ReadRecordFile());
  ASSIGN_OR_RETURN(auto store, FileAgentStateStore::Create({.directory = dir}));
  return Agent::Create(options, std::move(store), random);
}

absl::Status Loop(AgentClient& client, Agent& agent) {
  const absl::Duration poll = absl::Seconds(absl::GetFlag(FLAGS_poll_seconds));
  while (true) {
    const CycleResult result = client.RunOnce(agent);
    LogCycle(result);
    if (absl::GetFlag(FLAGS_once)) {
      absl::Status status = result.poll_status;
      status.Update(result.upload_status);
      status.Update(result.submit_status);
      return status;
    }
    if (stop_requested) return absl::OkStatus();
    SleepUnlessStopped(std::max(poll, result.poll_after));
    if (stop_requested) return absl::OkStatus();
  }
}

absl::Status Run() {
  if (absl::GetFlag(FLAGS_poll_seconds) < 1) {
    return absl::InvalidArgumentError("--poll_seconds must be >= 1");
  }
  if (absl::GetFlag(FLAGS_rpc_timeout_seconds) < 1) {
    return absl::InvalidArgumentError("--rpc_timeout_seconds must be >= 1");
  }
  if (absl::GetFlag(FLAGS_send_window_ms) < 10) {
    return absl::InvalidArgumentError("--send_window_ms must be >= 10");
  }
  ASSIGN_OR_RETURN(const std::string dir, PrepareStateDir());
  ASSIGN_OR_RETURN(std::unique_ptr<SecureRandom> random,
                   SecureRandom::Create());
  ASSIGN_OR_RETURN(std::unique_ptr<Agent> agent, MakeAgent(dir, *random));
  ASSIGN_OR_RETURN(auto channel, MakeChannel());
  const AgentClientOptions options = {
      .rpc_timeout = absl::Seconds(absl::GetFlag(FLAGS_rpc_timeout_seconds)),
      .send_window = absl::Milliseconds(absl::GetFlag(FLAGS_send_window_ms))};
  ASSIGN_OR_RETURN(auto client,
                   AgentClient::CreateForChannel(options, channel, *random));
  ASSIGN_OR_RETURN(auto shuffler, MakeShufflerStub());
  client->set_shuffler(std::move(shuffler));
  RETURN_IF_ERROR(EnsureCredential(dir, *client));
  return Loop(*client, *agent);
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs one LDP agent: polls ldp-server for tasks, answers them from the "
      "local record under this device's own privacy budget, and uploads only "
      "randomized reports.\nUsage: ldp-agent --server=HOST:PORT "
      "--record=record.json --state_dir=DIR [--enrollment_token=T] "
      "[--max_epsilon_per_study=E] [--shuffler=HOST:PORT] [--once]\n"
      "Every cap is on by default: 1 epsilon per study, 2 per rolling 24 h, "
      "10 in the device's lifetime. A question asked again under any ids is "
      "answered from memory at no cost. Shuffled studies need "
      "--shuffler and caps raised to their local epsilon0.");
  ldp::ShowOnlyFlagsFromWithTls("ldp_agent_main");
  absl::ParseCommandLine(argc, argv);
  std::signal(SIGINT, ldp::RequestStop);
  std::signal(SIGTERM, ldp::RequestStop);
  const absl::Status status = ldp::Run();
  if (!status.ok()) {
    std::fprintf(stderr, "ldp-agent: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}

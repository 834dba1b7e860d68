// session_sink_baseline: the yardstick for ldp-server's sessions mode
// (bench/reports/INGEST.md), as ingest_sink_baseline is for bulk. One process
// runs a bare SessionSink (bench/ingest/session_sink_server.h) on loopback and
// a client (bench/ingest/session_sink_client.h) that runs --sessions device
// sessions,
// --in_flight at a time, each with the three calls of an agent, the real
// messages' sizes, the bearer-token header and deadlines. Nothing of the
// aggregator is in the way: no tokens checked, no tasks, no SQL. In
// --mode=append the enrollment and the report of each session are made
// durable by a group commit before their answer, as ldp-server's are.
// The sink and the client run in two processes, as ldp-server and
// ldp-loadtest do; each one's CPU per session is what gRPC and the kernel
// cost that side for three calls, the floor under the real program's.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/ingest/group_commit_writer.h"
#include "bench/ingest/loopback_channels.h"
#include "bench/ingest/session_sink_client.h"
#include "bench/ingest/session_sink_server.h"
#include "common/base/flags_usage.h"
#include "common/base/status_macros.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, mode, "count",
          "count: answer every call at once; append: make each enrollment and "
          "each session's report durable (write + fdatasync, group commit) "
          "before answering.");
ABSL_FLAG(std::string, file, "",
          "With --mode=append (required there): the file to append to; it "
          "must not exist, and is deleted at the end unless --keep_file.");
ABSL_FLAG(bool, keep_file, false,
          "With --mode=append: keep --file at the end.");
ABSL_FLAG(int64_t, sessions, 50000, "Sessions to run in total (>= 1).");
ABSL_FLAG(int, in_flight, 256, "Sessions running at once (1..100000).");
ABSL_FLAG(int, channels, 4,
          "gRPC channels (TCP connections), round-robin (>= 1).");
ABSL_FLAG(int64_t, max_group_reports, 8192,
          "With --mode=append: a commit takes queued records until it holds "
          "at least this many.");

namespace ldp::bench {
namespace {

struct Options {
  std::string file;  // empty: count mode
  bool keep_file = false;
  int channels = 0;
  int64_t max_group_reports = 0;
  SessionRun run;
};

absl::StatusOr<Options> ParseOptions() {
  Options o;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode != "count" && mode != "append") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode must be 'count' or 'append', not '", mode, "'"));
  }
  o.file = absl::GetFlag(FLAGS_file);
  if ((mode == "append") != !o.file.empty()) {
    return absl::InvalidArgumentError(
        "--file=PATH is needed with --mode=append, and only there");
  }
  o.keep_file = absl::GetFlag(FLAGS_keep_file);
  o.channels = absl::GetFlag(FLAGS_channels);
  o.max_group_reports = absl::GetFlag(FLAGS_max_group_reports);
  o.run.sessions = absl::GetFlag(FLAGS_sessions);
  o.run.in_flight = absl::GetFlag(FLAGS_in_flight);
  if (o.run.sessions < 1 || o.channels < 1 || o.max_group_reports < 1 ||
      o.run.in_flight < 1 || o.run.in_flight > 100000) {
    return absl::InvalidArgumentError(
        "--sessions, --channels and --max_group_reports must be >= 1, and "
        "--in_flight in 1..100000");
  }
  return o;
}

double CpuSeconds() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Returns when `fd` reaches end of file (or fails other than by EINTR).
void WaitForEndOfFile(int fd) {
  char byte;
  while (true) {
    const ssize_t n = ::read(fd, &byte, 1);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    return;
  }
}

// What the server process tells the client process when it is stopped.
struct ServerTally {
  int64_t enrolled = 0;
  int64_t stored = 0;
  int64_t commits = 0;
  double cpu_seconds = 0;  // from its port's opening to its stop
};

// The server process, forked before anything of gRPC exists: writes its
// port to `out`, serves until `stop_fd` reaches end of file (the client
// process closed it), then writes its ServerTally to `out`.
absl::Status ServeUntilStopped(const Options& options, FILE* out, int stop_fd) {
  std::unique_ptr<GroupCommitWriter> writer;
  if (!options.file.empty()) {
    ASSIGN_OR_RETURN(writer, GroupCommitWriter::Open(
                                 options.file, options.max_group_reports));
  }
  SessionSinkService service(options.run.sizes, writer.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(
        "cannot start the gRPC session sink on 127.0.0.1");
  }
  const double cpu_start = CpuSeconds();
  absl::FPrintF(out, "%d\n", port);
  std::fflush(out);
  WaitForEndOfFile(stop_fd);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  ServerTally tally{service.enrolled(), service.stored(), 0,
                    CpuSeconds() - cpu_start};
  if (writer != nullptr) {
    // An enrollment and a report per session.
    const SessionSizes& sizes = options.run.sizes;
    RETURN_IF_ERROR(
        writer->Close(options.run.sessions *
                          int64_t{sizes.credential_bytes + sizes.report_bytes},
                      options.keep_file));
    tally.commits = writer->commits();
  }
  absl::FPrintF(out, "%d %d %d %.6f\n", tally.enrolled, tally.stored,
                tally.commits, tally.cpu_seconds);
  return absl::OkStatus();
}

struct Measurement {
  double seconds = 0;
  double client_cpu_seconds = 0;
  ServerTally server;
};

// The client process: connects to the server process's port (read from
// `in`), runs the sessions, stops the server (closes `stop_fd`) and reads
// its tally; then checks that it answered every enrollment and stored every
// report.
absl::StatusOr<Measurement> RunClient(const Options& options, FILE* in,
                                      int stop_fd) {
  int port = 0;
  if (std::fscanf(in, "%d", &port) != 1) {
    ::close(stop_fd);
    return absl::UnavailableError("the server process did not start");
  }
  absl::StatusOr<std::vector<std::shared_ptr<grpc::Channel>>> channels =
      ConnectChannels(absl::StrCat("127.0.0.1:", port), options.channels);
  absl::Status status = channels.status();
  Measurement m;
  if (status.ok()) {
    const double cpu_start = CpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    status = RunSessions(*channels, options.run);
    m.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    m.client_cpu_seconds = CpuSeconds() - cpu_start;
  }
  // Read the tally even after a failure: the server then still finishes
  // (and in append mode deletes its file) instead of dying of SIGPIPE.
  ::close(stop_fd);
  ServerTally& t = m.server;
  const bool tallied =
      std::fscanf(in, "%" SCNd64 " %" SCNd64 " %" SCNd64 " %lf", &t.enrolled,
                  &t.stored, &t.commits, &t.cpu_seconds) == 4;
  RETURN_IF_ERROR(status);
  if (!tallied) {
    return absl::InternalError(
        "the server process failed (its message is above)");
  }
  if (t.enrolled != options.run.sessions || t.stored != options.run.sessions) {
    return absl::InternalError(absl::StrFormat(
        "ran %d sessions, the server enrolled %d and stored %d reports",
        options.run.sessions, t.enrolled, t.stored));
  }
  return m;
}

void Print(const Options& options, const Measurement& m) {
  const int64_t sessions = options.run.sessions;
  const double per_second = sessions / m.seconds;
  const double server_us = m.server.cpu_seconds / sessions * 1e6;
  const double client_us = m.client_cpu_seconds / sessions * 1e6;
  const bool append = !options.file.empty();
  const std::string commits =
      append ? absl::StrFormat(" commits=%d", m.server.commits) : "";
  absl::PrintF(
      "session_sink mode=%s sessions=%d in_flight=%d channels=%d seconds=%.3f "
      "sessions_per_second=%.0f server_cpu_us=%.1f client_cpu_us=%.1f%s\n",
      append ? "append" : "count", sessions, options.run.in_flight,
      options.channels, m.seconds, per_second, server_us, client_us, commits);
  absl::PrintF(
      "The bare gRPC session sink (%s) ran %d sessions of three calls, %d at a "
      "time over %d connections, in %.2f s: %.0f sessions/s, with %.1f us of "
      "the server process's CPU and %.1f us of the client process's per "
      "session.\n",
      append ? "enrollments and reports durable by group commit first"
             : "answering at once",
      sessions, options.run.in_flight, options.channels, m.seconds, per_second,
      server_us, client_us);
}

// Forks the server process before any gRPC state exists (gRPC does not
// survive a fork), so that server and client each have their own process,
// as ldp-server and ldp-loadtest do.
absl::Status Run() {
  ASSIGN_OR_RETURN(const Options options, ParseOptions());
  int to_client[2], to_server[2];
  if (::pipe(to_client) != 0 || ::pipe(to_server) != 0) {
    return ErrnoError("cannot create", "a pipe to the server process");
  }
  const pid_t child = ::fork();
  if (child < 0) return ErrnoError("cannot fork", "the server process");
  if (child == 0) {
    ::close(to_client[0]);
    ::close(to_server[1]);
    FILE* out = ::fdopen(to_client[1], "w");
    const absl::Status status = ServeUntilStopped(options, out, to_server[0]);
    if (!status.ok())
      std::fprintf(stderr, "session_sink_baseline server: %s\n",
                   status.ToString().c_str());
    std::fclose(out);
    std::_Exit(status.ok() ? 0 : 1);
  }
  ::close(to_client[1]);
  ::close(to_server[0]);
  FILE* in = ::fdopen(to_client[0], "r");
  const absl::StatusOr<Measurement> measurement =
      RunClient(options, in, to_server[1]);
  std::fclose(in);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  RETURN_IF_ERROR(measurement.status());
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    return absl::InternalError(
        "the server process failed (its message is above)");
  }
  Print(options, *measurement);
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Baseline for ldp-server's sessions mode: a bare gRPC SessionSink on "
      "loopback in a forked server process and, in this one, --sessions "
      "device sessions (Enroll, Poll, one Upload stream; the real messages' "
      "sizes, bearer-token header and deadlines), --in_flight at a time over "
      "--channels connections on gRPC's callback API. Prints one "
      "'session_sink key=value ...' line (sessions/s, each process's CPU per "
      "session) and a sentence.\n"
      "Usage: session_sink_baseline [--mode=count | --mode=append --file=PATH "
      "[--keep_file]] [--sessions=N] [--in_flight=N] [--channels=C] "
      "[--max_group_reports=N]");
  ldp::ShowOnlyFlagsFrom("session_sink_baseline");
  absl::ParseCommandLine(argc, argv);
  if (const absl::Status status = ldp::bench::Run(); !status.ok()) {
    std::fprintf(stderr, "session_sink_baseline: %s\n",
                 status.ToString().c_str());
    return 1;
  }
  return 0;
}

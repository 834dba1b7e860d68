// ingest_sink_baseline: the yardstick for ldp-server's bulk ingest
// (bench/reports/INGEST.md). One process runs a bare gRPC streaming sink on
// loopback and a client that pushes the same batches ldp-loadtest --mode=bulk
// pushes, so the server's throughput can be read as a fraction of what gRPC
// alone
// (--mode=count) and gRPC plus the disk alone (--mode=append) allow on this
// machine. Nothing of the aggregator is in the way: no parsing of reports,
// no budget, no SQL.
//
// Append mode acks a batch only after bench/ingest/group_commit_writer.h made
// it durable, so its latency and its commits per second are those of the
// server's group commit on this disk. session_sink_baseline is the same
// yardstick for sessions mode.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "bench/ingest/group_commit_writer.h"
#include "bench/ingest/ingest_sink.grpc.pb.h"
#include "bench/ingest/loopback_channels.h"
#include "common/base/flags_usage.h"
#include "common/base/status_macros.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, mode, "count",
          "'count': the server only counts the reports of each batch and acks "
          "it at once (what gRPC alone allows). 'append': the server appends "
          "each batch's report bytes to --file and acks it after a group "
          "commit's fdatasync (what gRPC plus this disk allow).");
ABSL_FLAG(std::string, file, "",
          "With --mode=append (required there): the file to append to; it "
          "must not exist yet. Put it on the disk under test (not tmpfs).");
ABSL_FLAG(bool, keep_file, false,
          "With --mode=append: keep --file at the end instead of deleting it.");
ABSL_FLAG(int64_t, reports, 10000000, "Reports to send in total (>= 1).");
ABSL_FLAG(int, streams, 4,
          "Concurrent bidi streams, each with one batch in flight (>= 1).");
ABSL_FLAG(int, batch, 1000,
          "Reports per batch (>= 1); the last batch may be smaller.");
ABSL_FLAG(int, report_bytes, 24,
          "Bytes per report (>= 1); pass the real server's average report "
          "size (see bench/ingest/run_ingest_benchmark.sh).");
ABSL_FLAG(int, channels, 0,
          "gRPC channels (TCP connections) the streams are spread over, "
          "round-robin; 0 = one per stream, as ldp-loadtest --mode=bulk "
          "opens them.");
ABSL_FLAG(int64_t, max_group_reports, 8192,
          "With --mode=append: a commit takes whole batches until it holds "
          "this many reports (ldp-server's max_writes_per_commit).");

namespace ldp::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Options {
  bool append = false;
  std::string file;
  bool keep_file = false;
  int64_t reports = 0;
  int streams = 0;
  int batch = 0;
  int report_bytes = 0;
  int channels = 0;
  int64_t max_group_reports = 0;
};

absl::StatusOr<Options> ParseOptions() {
  Options o;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode != "count" && mode != "append") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode must be 'count' or 'append', not '", mode, "'"));
  }
  o.append = mode == "append";
  o.file = absl::GetFlag(FLAGS_file);
  o.keep_file = absl::GetFlag(FLAGS_keep_file);
  if (o.append && o.file.empty()) {
    return absl::InvalidArgumentError("--mode=append needs --file=PATH");
  }
  if (!o.append && !o.file.empty()) {
    return absl::InvalidArgumentError("--file is only used with --mode=append");
  }
  o.reports = absl::GetFlag(FLAGS_reports);
  o.streams = absl::GetFlag(FLAGS_streams);
  o.batch = absl::GetFlag(FLAGS_batch);
  o.report_bytes = absl::GetFlag(FLAGS_report_bytes);
  o.channels = absl::GetFlag(FLAGS_channels);
  if (o.channels == 0) o.channels = o.streams;
  o.max_group_reports = absl::GetFlag(FLAGS_max_group_reports);
  if (o.reports < 1 || o.streams < 1 || o.batch < 1 || o.report_bytes < 1 ||
      o.channels < 1 || o.max_group_reports < 1) {
    return absl::InvalidArgumentError(
        "--reports, --streams, --batch, --report_bytes and "
        "--max_group_reports must be >= 1, --channels >= 0");
  }
  // gRPC message sizes are ints; keep a batch well inside one.
  if (int64_t{o.batch} * (o.report_bytes + 8) > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(
        "--batch × --report_bytes must stay under 1 GiB (one gRPC message)");
  }
  return o;
}

// One stream on the server. Strictly read → (commit) → ack → read: the
// client never has more than one batch in flight, so reading ahead would
// buy nothing, and with at most one operation outstanding the reactor
// cannot be finished (and deleted) while the writer still holds it.
class UploadReactor final
    : public grpc::ServerBidiReactor<ldp::bench::Batch, ldp::bench::Ack> {
 public:
  UploadReactor(GroupCommitWriter* writer, std::atomic<int64_t>* acked)
      : writer_(writer), acked_(acked) {
    StartRead(&batch_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client's WritesDone (or a broken stream)
      Finish(grpc::Status::OK);
      return;
    }
    const int64_t reports = batch_.reports_size();
    if (writer_ == nullptr) {
      SendAck(reports);
      return;
    }
    // Out of batch_ before Submit: once submitted, the ack (and the next
    // StartRead into batch_) may happen on other threads at any moment.
    ldp::bench::Batch batch = std::move(batch_);
    batch_.Clear();
    writer_->Submit(std::move(batch),
                    [this, reports](const absl::Status& status) {
                      if (status.ok()) {
                        SendAck(reports);
                      } else {
                        Finish(grpc::Status(grpc::StatusCode::INTERNAL,
                                            std::string(status.message())));
                      }
                    });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "ack not delivered"));
      return;
    }
    StartRead(&batch_);
  }

  void OnDone() override { delete this; }

 private:
  void SendAck(int64_t reports) {
    acked_->fetch_add(reports, std::memory_order_relaxed);
    ack_.set_reports(static_cast<uint64_t>(reports));
    StartWrite(&ack_);
  }

  GroupCommitWriter* const writer_;  // null in count mode; not owned
  std::atomic<int64_t>* const acked_;
  ldp::bench::Batch batch_;
  ldp::bench::Ack ack_;
};

class SinkService final : public ldp::bench::Sink::CallbackService {
 public:
  explicit SinkService(GroupCommitWriter* writer) : writer_(writer) {}

  grpc::ServerBidiReactor<ldp::bench::Batch, ldp::bench::Ack>* Upload(
      grpc::CallbackServerContext* context) override {
    return new UploadReactor(writer_, &acked_);
  }

  int64_t acked() const { return acked_.load(); }

 private:
  GroupCommitWriter* const writer_;
  std::atomic<int64_t> acked_{0};
};

// Hands out batches to the streams until --reports are claimed, so fast
// streams take more and the total is exact.
class ReportBudget {
 public:
  explicit ReportBudget(int64_t total) : remaining_(total) {}
  // Reports of the next batch (≤ batch), or 0 when all are claimed.
  int64_t Claim(int64_t batch) {
    int64_t left = remaining_.load(std::memory_order_relaxed);
    while (left > 0 && !remaining_.compare_exchange_weak(
                           left, left - std::min(left, batch))) {
    }
    return std::max<int64_t>(0, std::min(left, batch));
  }

 private:
  std::atomic<int64_t> remaining_;
};

ldp::bench::Batch MakeBatch(int64_t reports, int report_bytes) {
  ldp::bench::Batch batch;
  for (int64_t i = 0; i < reports; ++i) {
    // Varied bytes so nothing on the path can shortcut a constant payload.
    std::string* report = batch.add_reports();
    report->resize(static_cast<size_t>(report_bytes));
    for (int j = 0; j < report_bytes; ++j) {
      (*report)[j] = static_cast<char>((i * 131 + j * 7 + 1) & 0xff);
    }
  }
  return batch;
}

struct StreamResult {
  absl::Status status;
  int64_t reports = 0;
  std::vector<double> latencies_ms;  // one per batch: Write → its Ack
};

void RunStream(ldp::bench::Sink::Stub* stub, ReportBudget* budget,
               const ldp::bench::Batch* full_batch, const Options* options,
               StreamResult* result) {
  grpc::ClientContext context;
  auto stream = stub->Upload(&context);
  ldp::bench::Ack ack;
  while (true) {
    const int64_t n = budget->Claim(options->batch);
    if (n == 0) break;
    // Only the very last batch of the run is short; building it here is rare.
    ldp::bench::Batch short_batch;
    if (n < options->batch) short_batch = MakeBatch(n, options->report_bytes);
    const ldp::bench::Batch& batch =
        n < options->batch ? short_batch : *full_batch;
    const SteadyClock::time_point sent = SteadyClock::now();
    if (!stream->Write(batch) || !stream->Read(&ack)) break;  // Finish says why
    result->latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(SteadyClock::now() - sent)
            .count());
    if (ack.reports() != static_cast<uint64_t>(n)) {
      context.TryCancel();
      (void)stream->Finish();
      result->status = absl::InternalError(absl::StrFormat(
          "a batch of %d reports was acked as %d", n, ack.reports()));
      return;
    }
    result->reports += n;
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) {
    result->status = absl::UnavailableError(
        absl::StrCat("stream failed: ", status.error_message(), " (gRPC code ",
                     static_cast<int>(status.error_code()), ")"));
  }
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(p * sorted.size()));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

struct Measurement {
  int64_t reports = 0;
  double seconds = 0;
  std::vector<double> latencies_ms;  // sorted
};

// Starts the sink, runs the client against it, stops the sink.
absl::StatusOr<Measurement> Serve(const Options& options,
                                  GroupCommitWriter* writer) {
  SinkService service(writer);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service);
  // The default 4 MiB cap would refuse large --batch × --report_bytes.
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      int64_t{options.batch} * (options.report_bytes + 8) + 4096));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError("cannot start the gRPC sink on 127.0.0.1");
  }
  const std::string address = absl::StrCat("127.0.0.1:", port);

  absl::StatusOr<std::vector<std::shared_ptr<grpc::Channel>>> channels =
      ConnectChannels(address, options.channels);
  absl::Status status = channels.status();
  std::vector<std::unique_ptr<ldp::bench::Sink::Stub>> stubs;
  if (channels.ok()) {
    for (const auto& channel : *channels)
      stubs.push_back(ldp::bench::Sink::NewStub(channel));
  }

  Measurement measurement;
  if (status.ok()) {
    const ldp::bench::Batch full_batch =
        MakeBatch(options.batch, options.report_bytes);
    ReportBudget budget(options.reports);
    std::vector<StreamResult> results(options.streams);
    std::vector<std::thread> threads;
    const SteadyClock::time_point start = SteadyClock::now();
    for (int s = 0; s < options.streams; ++s) {
      threads.emplace_back(RunStream, stubs[s % stubs.size()].get(), &budget,
                           &full_batch, &options, &results[s]);
    }
    for (std::thread& thread : threads) thread.join();
    measurement.seconds =
        std::chrono::duration<double>(SteadyClock::now() - start).count();
    for (StreamResult& result : results) {
      if (!result.status.ok() && status.ok()) status = result.status;
      measurement.reports += result.reports;
      measurement.latencies_ms.insert(measurement.latencies_ms.end(),
                                      result.latencies_ms.begin(),
                                      result.latencies_ms.end());
    }
  }
  // Every stream has finished, so this returns at once; the deadline only
  // matters after a failure left one open.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  RETURN_IF_ERROR(status);
  if (measurement.reports != options.reports ||
      service.acked() != options.reports) {
    return absl::InternalError(absl::StrFormat(
        "sent %d reports, the client saw %d acked and the server %d",
        options.reports, measurement.reports, service.acked()));
  }
  std::sort(measurement.latencies_ms.begin(), measurement.latencies_ms.end());
  return measurement;
}

absl::Status Run() {
  ASSIGN_OR_RETURN(const Options options, ParseOptions());
  std::unique_ptr<GroupCommitWriter> writer;
  if (options.append) {
    ASSIGN_OR_RETURN(writer, GroupCommitWriter::Open(
                                 options.file, options.max_group_reports));
  }
  const absl::StatusOr<Measurement> measurement = Serve(options, writer.get());
  const absl::Status writer_status =
      writer == nullptr ? absl::OkStatus()
                        : writer->Close(options.reports * options.report_bytes,
                                        options.keep_file);
  RETURN_IF_ERROR(measurement.status());
  RETURN_IF_ERROR(writer_status);

  const std::vector<double>& latencies = measurement->latencies_ms;
  const double seconds = measurement->seconds;
  const double per_second = options.reports / seconds;
  const double p50 = Percentile(latencies, 0.50),
               p90 = Percentile(latencies, 0.90),
               p99 = Percentile(latencies, 0.99),
               max = Percentile(latencies, 1.0);
  const double mb_per_second = per_second * options.report_bytes / 1e6;
  const int64_t batches = static_cast<int64_t>(latencies.size());
  std::string commits;
  if (writer != nullptr) {
    commits = absl::StrFormat(" commits=%d batches_per_commit=%.2f",
                              writer->commits(),
                              static_cast<double>(batches) / writer->commits());
  }
  absl::PrintF(
      "sink mode=%s reports=%d report_bytes=%d streams=%d batch=%d channels=%d "
      "seconds=%.3f reports_per_second=%.0f mb_per_second=%.1f p50_ms=%.3f "
      "p90_ms=%.3f p99_ms=%.3f max_ms=%.3f%s\n",
      options.append ? "append" : "count", options.reports,
      options.report_bytes, options.streams, options.batch, options.channels,
      seconds, per_second, mb_per_second, p50, p90, p99, max, commits);
  absl::PrintF(
      "The bare gRPC sink (%s) took %d reports of %d B in %.2f s: %.0f "
      "reports/s "
      "over %d streams of %d-report batches, one in flight each; a batch's ack "
      "came after %.2f ms at the median and %.2f ms at p99%s.\n",
      options.append ? "appending to a file, one fdatasync per group commit"
                     : "counting only",
      options.reports, options.report_bytes, seconds, per_second,
      options.streams, options.batch, p50, p99,
      writer != nullptr
          ? absl::StrFormat(" (%d commits, %.1f batches each)",
                            writer->commits(),
                            static_cast<double>(batches) / writer->commits())
                .c_str()
          : "");
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Baseline for ldp-server's bulk ingest: a bare gRPC bidi streaming sink "
      "on loopback and, in the same process, a client sending --reports "
      "reports of --report_bytes bytes in batches of --batch over --streams "
      "streams (one batch in flight each). Prints one 'sink key=value ...' "
      "line (throughput; ack latency per batch, send to ack) and a sentence.\n"
      "Usage: ingest_sink_baseline [--mode=count | --mode=append --file=PATH "
      "[--keep_file]] [--reports=N] [--streams=S] [--batch=B] "
      "[--report_bytes=R] [--channels=C] [--max_group_reports=N]");
  ldp::ShowOnlyFlagsFrom("ingest_sink_baseline");
  absl::ParseCommandLine(argc, argv);
  if (const absl::Status status = ldp::bench::Run(); !status.ok()) {
    std::fprintf(stderr, "ingest_sink_baseline: %s\n",
                 status.ToString().c_str());
    return 1;
  }
  return 0;
}

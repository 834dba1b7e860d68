// The session sink's server; see the header.
#include "bench/ingest/session_sink_server.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace ldp::bench {
namespace {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::INTERNAL,
                      std::string(status.message()));
}

// The header's presence only: verifying a token is ldp-server's own work,
// which is what the baseline leaves out.
bool HasBearer(const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find("authorization");
  return found != metadata.end() &&
         absl::StartsWith(
             absl::string_view(found->second.data(), found->second.size()),
             "Bearer ");
}

grpc::Status Unauthenticated() {
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing authorization: Bearer header");
}

// One session's upload: reads to the client's end of the stream, then
// stores what came (in append mode) and acks it. At most one operation is
// outstanding at a time, so the reactor cannot be finished (and deleted)
// while the writer still holds it.
class UploadReactor final : public grpc::ServerReadReactor<Batch> {
 public:
  UploadReactor(bool authorized, GroupCommitWriter* writer, Ack* ack,
                std::atomic<int64_t>* stored)
      : writer_(writer), ack_(ack), stored_(stored) {
    if (!authorized) {
      Finish(Unauthenticated());
      return;
    }
    StartRead(&next_);
  }

  void OnReadDone(bool ok) override {
    if (ok) {
      for (std::string& report : *next_.mutable_reports()) {
        received_.add_reports(std::move(report));
      }
      next_.Clear();
      StartRead(&next_);
      return;
    }
    // The client's end of the stream (or a broken one: then Finish is moot).
    const int64_t reports = received_.reports_size();
    if (writer_ == nullptr) return Acknowledge(reports, absl::OkStatus());
    writer_->Submit(std::move(received_),
                    [this, reports](const absl::Status& status) {
                      Acknowledge(reports, status);
                    });
  }

  void OnDone() override { delete this; }

 private:
  void Acknowledge(int64_t reports, const absl::Status& status) {
    if (status.ok()) {
      stored_->fetch_add(reports, std::memory_order_relaxed);
      ack_->set_reports(static_cast<uint64_t>(reports));
    }
    Finish(ToGrpc(status));
  }

  GroupCommitWriter* const writer_;  // null in count mode; not owned
  Ack* const ack_;
  std::atomic<int64_t>* const stored_;
  Batch next_, received_;
};

}  // namespace

std::string Filler(int size, int seed) {
  std::string bytes(static_cast<size_t>(size), '\0');
  for (int i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>((seed * 131 + i * 7 + 1) & 0xff);
  }
  return bytes;
}

SessionSinkService::SessionSinkService(const SessionSizes& sizes,
                                       GroupCommitWriter* writer)
    : credential_(Filler(sizes.credential_bytes, 1)),
      tasks_(Filler(sizes.tasks_bytes, 2)),
      writer_(writer) {}

grpc::ServerUnaryReactor* SessionSinkService::Enroll(
    grpc::CallbackServerContext* context, const Blob* /*request*/,
    Blob* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  response->set_data(credential_);
  if (writer_ == nullptr) {
    enrolled_.fetch_add(1, std::memory_order_relaxed);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  Batch row;  // the agent's row, as ldp-server stores it before answering
  row.add_reports(credential_);
  writer_->Submit(std::move(row), [this, reactor](const absl::Status& status) {
    if (status.ok()) enrolled_.fetch_add(1, std::memory_order_relaxed);
    reactor->Finish(ToGrpc(status));
  });
  return reactor;
}

grpc::ServerUnaryReactor* SessionSinkService::Poll(
    grpc::CallbackServerContext* context, const Blob* /*request*/,
    Blob* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (!HasBearer(*context)) {
    reactor->Finish(Unauthenticated());
    return reactor;
  }
  response->set_data(tasks_);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerReadReactor<Batch>* SessionSinkService::Upload(
    grpc::CallbackServerContext* context, Ack* response) {
  return new UploadReactor(HasBearer(*context), writer_, response, &stored_);
}

}  // namespace ldp::bench

// The server's durability policy (server/commit/commit_queue.h) minus the
// database, for the ingest baselines (bench/reports/INGEST.md): one writer
// thread takes whatever is queued when it comes round, writes it with one write
// call and one fdatasync, and only then completes those jobs. So a sink
// built on it acks at the latency, and commits at the rate, of a group
// commit on this disk.
#ifndef LDP_BENCH_INGEST_GROUP_COMMIT_WRITER_H_
#define LDP_BENCH_INGEST_GROUP_COMMIT_WRITER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "bench/ingest/ingest_sink.pb.h"

namespace ldp::bench {

// An InternalError naming `what`, `path` and errno's text.
absl::Status ErrnoError(absl::string_view what, const std::string& path);

class GroupCommitWriter {
 public:
  using Done = std::function<void(const absl::Status&)>;

  // Creates `path`, which must not exist yet. A commit takes whole jobs
  // until it holds at least `max_group_reports` reports.
  static absl::StatusOr<std::unique_ptr<GroupCommitWriter>> Open(
      const std::string& path, int64_t max_group_reports);

  ~GroupCommitWriter() { (void)Stop(); }
  GroupCommitWriter(const GroupCommitWriter&) = delete;
  GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;

  // Any thread. `done` runs on the writer thread once the batch's reports
  // are durable (or their commit failed).
  void Submit(Batch batch, Done done);

  // Commits what is queued, joins the writer and closes the file. Returns
  // the first write, sync or close error. Idempotent.
  absl::Status Stop();

  // Stop(), then checks that exactly `expected_bytes` were written and the
  // file holds them, then deletes the file unless `keep_file`. The first
  // error of the three.
  absl::Status Close(int64_t expected_bytes, bool keep_file);

  // After Stop() only (the writer thread owns them until it is joined).
  int64_t commits() const { return commits_; }
  int64_t bytes_written() const { return bytes_written_; }

 private:
  struct Job {
    Batch batch;
    Done done;
  };

  GroupCommitWriter(int fd, std::string path, int64_t max_group_reports);
  bool WorkOrStop() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return !queue_.empty() || stopping_;
  }
  void Run();
  // Moves the next group out of the queue; false once stopping and empty.
  bool NextGroup(std::vector<Job>& group);
  absl::Status WriteAll(const std::string& data);

  int fd_;
  const std::string path_;
  const int64_t max_group_reports_;
  // Writer thread only until it is joined; then Stop()'s caller's.
  int64_t commits_ = 0;
  int64_t bytes_written_ = 0;
  absl::Status first_error_;

  absl::Mutex mu_;
  std::deque<Job> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace ldp::bench

#endif  // LDP_BENCH_INGEST_GROUP_COMMIT_WRITER_H_

// Checkpoints an SQLite WAL database from a thread of its own.
//
// Why: SQLite's automatic checkpoint runs inside the commit that crosses the
// threshold, so one group commit in every few thousand also copies tens of
// megabytes into the database file and syncs it. In the ingest benchmark
// those commits were the 170–330 ms maximum latencies. A PASSIVE checkpoint
// on a second connection copies the same pages while the writer goes on
// committing; once it has caught up, the next write restarts the log at the
// start of the file (journal_size_limit then bounds its size).
#ifndef LDP_SERVER_STORE_SQLITE_WAL_CHECKPOINTER_H_
#define LDP_SERVER_STORE_SQLITE_WAL_CHECKPOINTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

struct sqlite3;

namespace ldp {

class WalCheckpointer {
 public:
  // Opens its own connection to `path` (a WAL database that exists) and
  // starts the thread. Internal if SQLite cannot open it.
  static absl::StatusOr<std::unique_ptr<WalCheckpointer>> Start(
      const std::string& path);
  // Stops the thread (a checkpoint in progress finishes first).
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Asks for a checkpoint; returns at once. Requests made while one runs
  // fold into one more.
  void Request();

  // Checkpoints run so far (whether or not they reached the log's end).
  int64_t checkpoints() const { return checkpoints_.load(); }

 private:
  explicit WalCheckpointer(sqlite3* db);
  void Loop();
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return wanted_ || stopping_;
  }

  sqlite3* const db_;  // this thread's connection
  absl::Mutex mu_;
  bool wanted_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<int64_t> checkpoints_{0};
  std::thread thread_;
};

}  // namespace ldp

#endif  // LDP_SERVER_STORE_SQLITE_WAL_CHECKPOINTER_H_

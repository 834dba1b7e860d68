// WalCheckpointer; see the header.
#include "server/store/sqlite/wal_checkpointer.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<WalCheckpointer>> WalCheckpointer::Start(
    const std::string& path) {
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    const std::string message =
        db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close_v2(db);
    return absl::InternalError(
        absl::StrCat("open ", path, " for checkpoints: ", message));
  }
  // A checkpoint waits for nobody: PASSIVE never takes the writer's lock,
  // and a busy checkpoint lock just means another checkpoint is running.
  sqlite3_busy_timeout(db, 0);
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(db));
}

WalCheckpointer::WalCheckpointer(sqlite3* db) : db_(db) {
  thread_ = std::thread([this] { Loop(); });
}

WalCheckpointer::~WalCheckpointer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
  sqlite3_close_v2(db_);
}

void WalCheckpointer::Request() {
  absl::MutexLock lock(&mu_);
  wanted_ = true;
}

void WalCheckpointer::Loop() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &WalCheckpointer::HasWork));
      if (stopping_) return;
      wanted_ = false;
    }
    int log_pages = 0;
    int checkpointed = 0;
    // SQLITE_BUSY (another checkpoint) and I/O errors leave the log as it
    // is: the writer's next commit asks again, and SQLite's own checkpoint
    // at close still runs.
    (void)sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                    &log_pages, &checkpointed);
    checkpoints_.fetch_add(1);
  }
}

}  // namespace ldp

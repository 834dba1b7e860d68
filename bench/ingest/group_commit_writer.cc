// The baselines' group commit; see the header.
#include "bench/ingest/group_commit_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ldp::bench {

absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  const int error = errno;
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(error)));
}

absl::StatusOr<std::unique_ptr<GroupCommitWriter>> GroupCommitWriter::Open(
    const std::string& path, int64_t max_group_reports) {
  // O_EXCL: a benchmark must not truncate somebody's file on a typo.
  const int fd = ::open(
      path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("cannot create new file", path);
  return std::unique_ptr<GroupCommitWriter>(
      new GroupCommitWriter(fd, path, max_group_reports));
}

GroupCommitWriter::GroupCommitWriter(int fd, std::string path,
                                     int64_t max_group_reports)
    : fd_(fd),
      path_(std::move(path)),
      max_group_reports_(max_group_reports),
      thread_([this] { Run(); }) {}

void GroupCommitWriter::Submit(Batch batch, Done done) {
  absl::MutexLock lock(&mu_);
  queue_.push_back({std::move(batch), std::move(done)});
}

absl::Status GroupCommitWriter::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) {
    if (::close(fd_) != 0 && first_error_.ok()) {
      first_error_ = ErrnoError("close", path_);
    }
    fd_ = -1;
  }
  return first_error_;
}

absl::Status GroupCommitWriter::Close(int64_t expected_bytes, bool keep_file) {
  absl::Status status = Stop();
  struct stat info;
  const int64_t file_bytes =
      ::stat(path_.c_str(), &info) == 0 ? info.st_size : -1;
  if (!keep_file && ::unlink(path_.c_str()) != 0 && status.ok()) {
    status = ErrnoError("cannot delete", path_);
  }
  if (status.ok() &&
      (bytes_written_ != expected_bytes || file_bytes != expected_bytes)) {
    status = absl::InternalError(
        absl::StrFormat("expected %d bytes in %s, wrote %d, the file holds %d",
                        expected_bytes, path_, bytes_written_, file_bytes));
  }
  return status;
}

bool GroupCommitWriter::NextGroup(std::vector<Job>& group) {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &GroupCommitWriter::WorkOrStop));
  if (queue_.empty()) return false;  // stopping, and nothing left to commit
  int64_t reports = 0;
  while (!queue_.empty() && (group.empty() || reports < max_group_reports_)) {
    reports += queue_.front().batch.reports_size();
    group.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return true;
}

void GroupCommitWriter::Run() {
  std::vector<Job> group;
  std::string buffer;
  while (true) {
    group.clear();
    if (!NextGroup(group)) return;
    // One write call per commit, as a WAL append would be.
    buffer.clear();
    for (const Job& job : group) {
      for (const std::string& report : job.batch.reports()) buffer += report;
    }
    absl::Status status = WriteAll(buffer);
    if (status.ok() && ::fdatasync(fd_) != 0)
      status = ErrnoError("fdatasync", path_);
    if (status.ok()) {
      ++commits_;
      bytes_written_ += static_cast<int64_t>(buffer.size());
    } else if (first_error_.ok()) {
      first_error_ = status;
    }
    for (Job& job : group) job.done(status);
  }
}

absl::Status GroupCommitWriter::WriteAll(const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path_);
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace ldp::bench

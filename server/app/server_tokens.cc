// Reading and creating ldp-server's tokens; see the header.
#include "server/app/server_tokens.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "common/crypto/secure_random.h"
#include "server/store/postgres/postgres_store.h"

namespace ldp {
namespace {

absl::StatusOr<std::string> ReadToken(const std::string& path,
                                      std::string_view what) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileText(path, what));
  return std::string(absl::StripAsciiWhitespace(text));
}

// A fresh 32-byte random token, hex encoded, written with mode 0600. O_EXCL:
// a token another process wrote meanwhile is never overwritten.
absl::StatusOr<std::string> CreateToken(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<SecureRandom> random,
                   SecureRandom::Create());
  std::string token;
  for (int i = 0; i < 4; ++i)
    absl::StrAppendFormat(&token, "%016x", (*random)());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", path));
  const std::string line = token + "\n";
  const bool ok = write(fd, line.data(), line.size()) ==
                      static_cast<ssize_t>(line.size()) &&
                  fsync(fd) == 0;
  close(fd);
  if (!ok) return absl::InternalError(absl::StrCat("cannot write ", path));
  std::printf("ldp-server: analyst token written to %s\n", path.c_str());
  return token;
}

}  // namespace

absl::StatusOr<std::string> AnalystToken(const ServerConfig& config) {
  if (!config.analyst_token_file.empty()) {
    return ReadToken(config.analyst_token_file, "--analyst_token_file");
  }
  if (IsPostgresUrl(config.db)) {
    return absl::InvalidArgumentError(
        "with a PostgreSQL --db, give --analyst_token_file (the same file, or "
        "a copy, on every replica), so that all replicas accept one analyst "
        "token");
  }
  const std::string path = config.db + ".analyst_token";
  if (access(path.c_str(), F_OK) == 0) return ReadToken(path, "analyst token");
  return CreateToken(path);
}

absl::StatusOr<std::string> EnrollmentToken(const ServerConfig& config) {
  if (config.enrollment_token_file.empty()) return std::string();
  return ReadToken(config.enrollment_token_file, "--enrollment_token_file");
}

absl::StatusOr<std::vector<EnrollmentQuota>> EnrollmentQuotas(
    const ServerConfig& config) {
  const std::string& path = config.enrollment_tokens_file;
  if (path.empty()) return std::vector<EnrollmentQuota>{};
  ASSIGN_OR_RETURN(const std::string text,
                   ReadFileText(path, "--enrollment_tokens_file"));
  return ParseEnrollmentQuotas(text, path);
}

absl::StatusOr<std::vector<EnrollmentQuota>> ParseEnrollmentQuotas(
    std::string_view text, const std::string& path) {
  std::vector<EnrollmentQuota> quotas;
  int number = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    line = line.substr(0, line.find('#'));
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    EnrollmentQuota quota{.token = std::string(fields[0])};
    if (fields.size() != 2 || !absl::SimpleAtoi(fields[1], &quota.max_agents) ||
        quota.max_agents < 1 || quota.token.size() < 16) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number,
          ": expected 'TOKEN MAX_AGENTS' with a token of >= 16 characters "
          "and MAX_AGENTS >= 1"));
    }
    quotas.push_back(std::move(quota));
  }
  return quotas;
}

}  // namespace ldp

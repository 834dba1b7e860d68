// The credentials ldp-server starts with: the analyst token and the
// enrollment tokens, read from the files the operator named.
//
// Kept apart from the runner so the file formats and their error messages
// can be tested without a server: a typo in a quota file must name the line.
#ifndef LDP_SERVER_APP_SERVER_TOKENS_H_
#define LDP_SERVER_APP_SERVER_TOKENS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/app/server_config.h"
#include "server/core/aggregator_options.h"

namespace ldp {

// The analyst token: from analyst_token_file; else, for SQLite, from
// <db>.analyst_token, which is created (mode 0600, 32 random bytes in hex)
// if missing. A PostgreSQL db needs the file, so all replicas share one.
absl::StatusOr<std::string> AnalystToken(const ServerConfig& config);

// The token of enrollment_token_file, or "" when none is named.
absl::StatusOr<std::string> EnrollmentToken(const ServerConfig& config);

// The quotas of enrollment_tokens_file (none when it is not named).
absl::StatusOr<std::vector<EnrollmentQuota>> EnrollmentQuotas(
    const ServerConfig& config);

// "TOKEN MAX_AGENTS" lines, '#' comments and blank lines allowed;
// INVALID_ARGUMENT naming `path`:line otherwise.
absl::StatusOr<std::vector<EnrollmentQuota>> ParseEnrollmentQuotas(
    std::string_view text, const std::string& path);

}  // namespace ldp

#endif  // LDP_SERVER_APP_SERVER_TOKENS_H_

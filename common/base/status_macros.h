// Status propagation macros. Debian bookworm's Abseil (20220623) predates
// absl/status/status_macros.h, so the project keeps these two small ones.
#ifndef LDP_COMMON_BASE_STATUS_MACROS_H_
#define LDP_COMMON_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define LDP_STATUS_CONCAT_INNER_(a, b) a##b
#define LDP_STATUS_CONCAT_(a, b) LDP_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status ldp_status_ = (expr);       \
    if (!ldp_status_.ok()) return ldp_status_; \
  } while (false)

// `ASSIGN_OR_RETURN(auto x, Foo());` unwraps an absl::StatusOr or returns
// its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(LDP_STATUS_CONCAT_(ldp_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                           \
  if (!statusor.ok()) return statusor.status();     \
  lhs = std::move(statusor).value()

#endif  // LDP_COMMON_BASE_STATUS_MACROS_H_

// What a listening address reaches: the one rule, shared by ldp-server and
// `ldp page`, for when plaintext is allowed (only on loopback).
#ifndef LDP_COMMON_BASE_HOST_ADDRESS_H_
#define LDP_COMMON_BASE_HOST_ADDRESS_H_

#include "absl/strings/string_view.h"

namespace ldp {

// Whether `host` only reaches this machine (127.x, ::1, localhost; IPv6 may
// be bracketed).
bool IsLoopback(absl::string_view host);

}  // namespace ldp

#endif  // LDP_COMMON_BASE_HOST_ADDRESS_H_

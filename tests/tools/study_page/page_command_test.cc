// `ldp page`'s safety rules: plaintext only on loopback and never in front
// of a TLS server; certificate files come in pairs; numbers in range.
#include "tools/study_page/page_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PageCommandOptions, TheDefaultsAreSafeAndValid) {
  const PageCommandOptions defaults;
  EXPECT_EQ(defaults.host, "127.0.0.1");
  EXPECT_OK(ValidatePageOptions(defaults));
}

TEST(PageCommandOptions, PlaintextOnlyOnLoopback) {
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "example.org"}) {
    EXPECT_THAT(
        ValidatePageOptions({.host = host}),
        StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(host)));
    EXPECT_OK(ValidatePageOptions(
        {.host = host, .tls_cert_file = "c.pem", .tls_key_file = "k.pem"}));
  }
  for (const char* host : {"127.0.0.1", "::1", "[::1]", "localhost"}) {
    EXPECT_OK(ValidatePageOptions({.host = host}));
  }
}

TEST(PageCommandOptions, HttpsWheneverTheServerIsReachedOverTls) {
  EXPECT_THAT(ValidatePageOptions({.server_uses_tls = true}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("--page_cert_file")));
  EXPECT_OK(ValidatePageOptions({.tls_cert_file = "c.pem",
                                 .tls_key_file = "k.pem",
                                 .server_uses_tls = true}));
}

TEST(PageCommandOptions, RefusesImpossibleSettings) {
  EXPECT_THAT(ValidatePageOptions({.tls_key_file = "k.pem"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidatePageOptions({.port = 70000}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidatePageOptions({.port = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidatePageOptions({.refresh = absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidatePageOptions({.max_studies = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp

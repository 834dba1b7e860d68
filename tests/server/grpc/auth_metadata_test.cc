// auth_metadata.h inside real calls (context_probe.h): which authorization
// values BearerToken accepts and what it tells a caller it refuses, the
// peer address without its port (IPv4 and IPv6), no verified certificate
// over plaintext, and the retry trailer's rounding.
//
// Why: these few lines decide who the caller is for every service, and the
// per-peer enroll limit is keyed by PeerAddress; a token parsed one byte
// off, or a port left on the key, would be silent everywhere else.
#include "server/grpc/auth_metadata.h"

#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/grpc/context_probe.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// Answers with BearerToken's error, or OK with the token as trailer
// "token".
grpc::Status ProbeBearer(grpc::CallbackServerContext& context) {
  const absl::StatusOr<std::string_view> token = BearerToken(context);
  if (!token.ok()) return ProbeAnswer(token.status());
  context.AddTrailingMetadata("token", std::string(*token));
  return grpc::Status::OK;
}

class AuthMetadataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.started());
    server_.Set(ProbeBearer);
  }
  ContextProbeServer server_{"127.0.0.1:0"};
};

TEST_F(AuthMetadataTest, BearerTokenIsEverythingAfterTheScheme) {
  grpc::ClientContext context;
  const grpc::Status status = server_.Call(context, "Bearer 7.00ff");
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(TrailerOf(context, "token"), "7.00ff");

  grpc::ClientContext spaced;
  ASSERT_TRUE(server_.Call(spaced, "Bearer a b").ok());
  EXPECT_EQ(TrailerOf(spaced, "token"), "a b");
}

TEST_F(AuthMetadataTest, MissingHeaderSaysWhatToSend) {
  grpc::ClientContext context;
  const grpc::Status status = server_.Call(context, "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(),
            "missing 'authorization: Bearer <token>' metadata");
}

TEST_F(AuthMetadataTest, OtherSchemesAndEmptyTokensAreUnauthenticated) {
  for (const std::string value : {"Basic 7.00ff", "bearer 7.00ff", "Bearer",
                                  "Bearer ", "Bearer7.00ff", "7.00ff"}) {
    SCOPED_TRACE(value);
    grpc::ClientContext context;
    const grpc::Status status = server_.Call(context, value);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_THAT(status.error_message(), HasSubstr("must be 'Bearer <token>'"));
    EXPECT_EQ(TrailerOf(context, "token"), "");
  }
}

// Answers OK with PeerAddress and the raw peer as trailers.
grpc::Status ProbePeer(grpc::CallbackServerContext& context) {
  context.AddTrailingMetadata("peer-address", PeerAddress(context));
  context.AddTrailingMetadata("raw-peer", context.peer());
  return grpc::Status::OK;
}

TEST_F(AuthMetadataTest, PeerAddressDropsOnlyTheIpv4Port) {
  server_.Set(ProbePeer);
  grpc::ClientContext first, second;
  ASSERT_TRUE(server_.Call(first, "").ok());
  ASSERT_TRUE(server_.Call(second, "").ok());
  EXPECT_THAT(TrailerOf(first, "raw-peer"), StartsWith("ipv4:127.0.0.1:"));
  EXPECT_EQ(TrailerOf(first, "peer-address"), "ipv4:127.0.0.1");
  // Two connections, two ports, one key.
  EXPECT_NE(TrailerOf(first, "raw-peer"), TrailerOf(second, "raw-peer"));
  EXPECT_EQ(TrailerOf(second, "peer-address"), "ipv4:127.0.0.1");
}

TEST(AuthMetadataIpv6Test, PeerAddressDropsOnlyTheIpv6Port) {
  ContextProbeServer server("[::1]:0");
  if (!server.started()) GTEST_SKIP() << "no IPv6 loopback here";
  server.Set(ProbePeer);
  grpc::ClientContext context;
  ASSERT_TRUE(server.Call(context, "").ok());
  // gRPC writes the peer as "ipv6:[::1]:port", brackets escaped or not:
  // the address's own colons stay, the port goes.
  const std::string raw = TrailerOf(context, "raw-peer");
  const std::string address = TrailerOf(context, "peer-address");
  EXPECT_THAT(address, StartsWith("ipv6:"));
  EXPECT_THAT(address, HasSubstr("::1"));
  ASSERT_THAT(raw, StartsWith(address + ":"));
  EXPECT_THAT(raw.substr(address.size() + 1), MatchesRegex("[0-9]+")) << raw;
}

TEST_F(AuthMetadataTest, PlaintextCallerHasNoVerifiedCertificate) {
  server_.Set([](grpc::CallbackServerContext& context) {
    context.AddTrailingMetadata(
        "verified", HasVerifiedClientCertificate(context) ? "yes" : "no");
    return grpc::Status::OK;
  });
  grpc::ClientContext context;
  ASSERT_TRUE(server_.Call(context, "Bearer 7.00ff").ok());
  EXPECT_EQ(TrailerOf(context, "verified"), "no");
}

// Answers OK after AddRetryAfter(delay).
ContextProbe ProbeRetryAfter(absl::Duration delay) {
  return [delay](grpc::CallbackServerContext& context) {
    AddRetryAfter(context, delay);
    return grpc::Status::OK;
  };
}

TEST_F(AuthMetadataTest, RetryAfterRoundsUpToAWholeMillisecondAtLeastOne) {
  const std::pair<absl::Duration, std::string> cases[] = {
      {absl::Seconds(3), "3000"},
      {absl::Microseconds(1500), "2"},
      {absl::Microseconds(1), "1"},
      {absl::ZeroDuration(), "1"}};
  for (const auto& [delay, expected] : cases) {
    SCOPED_TRACE(absl::FormatDuration(delay));
    server_.Set(ProbeRetryAfter(delay));
    grpc::ClientContext context;
    ASSERT_TRUE(server_.Call(context, "").ok());
    EXPECT_EQ(TrailerOf(context, "retry-after-ms"), expected);
  }
}

}  // namespace
}  // namespace ldp::testing

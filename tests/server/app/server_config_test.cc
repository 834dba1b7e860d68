// ServerConfig's rules: each combination the server must refuse, with the
// flag names the operator has to change.
#include "server/app/server_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ServerConfig, TheDefaultsAreValid) {
  EXPECT_TRUE(ValidateServerConfig(ServerConfig{}).ok());
}

TEST(ServerConfig, PlaintextIsRefusedOffLoopbackUnlessInsecureIsAllowed) {
  ServerConfig config;
  config.listen = "0.0.0.0";
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("--tls_cert_file and --tls_key_file")));
  config.allow_insecure = true;
  EXPECT_TRUE(ValidateServerConfig(config).ok());
  config.allow_insecure = false;
  config.tls = {.cert_file = "server.pem", .key_file = "server.key"};
  EXPECT_TRUE(ValidateServerConfig(config).ok());
}

TEST(ServerConfig, ClientCertificatesNeedAClientCa) {
  ServerConfig config;
  config.require_client_cert = true;
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls_client_ca_file")));
}

TEST(ServerConfig, LimitsOutOfRangeNameTheirFlag) {
  ServerConfig config;
  config.max_message_bytes = 1023;
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--max_message_bytes")));
  config = {};
  config.drain = absl::Seconds(-1);
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--drain_seconds")));
  config = {};
  config.max_queued_writes = -1;
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--max_queued_writes")));
  config = {};
  config.follow_interval = absl::ZeroDuration();
  EXPECT_THAT(ValidateServerConfig(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--follow_interval_ms")));
}

TEST(ServerConfig, LoopbackIsOnlyThisMachine) {
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("127.1.2.3"));
  EXPECT_TRUE(IsLoopback("[::1]"));
  EXPECT_TRUE(IsLoopback("localhost"));
  EXPECT_FALSE(IsLoopback("0.0.0.0"));
  EXPECT_FALSE(IsLoopback("[::]"));
  EXPECT_FALSE(IsLoopback("10.0.0.1"));
}

TEST(ServerConfig, ThePrintableDbHidesAUrlsPassword) {
  EXPECT_EQ(PrintableDb("ldp.db"), "ldp.db");
  const std::string url = "postgresql://ldp:s3cret@db.example:5432/ldp";
  EXPECT_THAT(PrintableDb(url), ::testing::Not(HasSubstr("s3cret")));
  EXPECT_THAT(PrintableDb(url), HasSubstr("db.example"));
  // Every shard's password, not only the first's.
  const std::string shards =
      url + " postgresql://ldp:t0psecret@pg2a:5432,pg2b:5432/ldp";
  EXPECT_THAT(PrintableDb(shards), ::testing::Not(HasSubstr("s3cret")));
  EXPECT_THAT(PrintableDb(shards), ::testing::Not(HasSubstr("t0psecret")));
  EXPECT_THAT(PrintableDb(shards), HasSubstr("pg2a:5432,pg2b:5432/ldp"));
}

TEST(ServerConfig, TheStrategyCacheSitsBesideTheDatabaseUnlessNamed) {
  ServerConfig config;
  config.db = "/var/lib/ldp/ldp.db";
  EXPECT_EQ(StrategyCacheDir(config), "/var/lib/ldp/ldp.db.strategies");
  config.db = "postgresql://ldp@db/ldp";
  EXPECT_EQ(StrategyCacheDir(config), "ldp.strategies");
  config.strategy_cache_dir = "/cache";
  EXPECT_EQ(StrategyCacheDir(config), "/cache");
}

}  // namespace
}  // namespace ldp

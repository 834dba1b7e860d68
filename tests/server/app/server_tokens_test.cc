// The analyst and enrollment tokens ldp-server starts with: where each
// comes from, and what a malformed quota file is told.
#include "server/app/server_tokens.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(EnrollmentQuotas, ParsesLinesCommentsAndBlankLines) {
  absl::StatusOr<std::vector<EnrollmentQuota>> quotas = ParseEnrollmentQuotas(
      "# batch of March\n"
      "aaaaaaaaaaaaaaaa 10\n"
      "\n"
      "bbbbbbbbbbbbbbbb\t2000  # the pilot\r\n",
      "quotas.txt");
  ASSERT_TRUE(quotas.ok()) << quotas.status();
  ASSERT_EQ(quotas->size(), 2u);
  EXPECT_EQ((*quotas)[0].token, "aaaaaaaaaaaaaaaa");
  EXPECT_EQ((*quotas)[0].max_agents, 10);
  EXPECT_EQ((*quotas)[1].token, "bbbbbbbbbbbbbbbb");
  EXPECT_EQ((*quotas)[1].max_agents, 2000);
}

TEST(EnrollmentQuotas, AMalformedLineIsNamedByNumber) {
  for (const char* bad : {"short 10", "aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaa 0",
                          "aaaaaaaaaaaaaaaa ten", "aaaaaaaaaaaaaaaa 1 2"}) {
    EXPECT_THAT(
        ParseEnrollmentQuotas(absl::StrCat("# ok\n", bad, "\n"), "q.txt"),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("q.txt:2:")))
        << bad;
  }
}

TEST(ServerTokens, TheAnalystTokenIsCreatedOnceBesideASqliteDb) {
  testing::TempDirectory dir;
  ServerConfig config;
  config.db = dir.path() + "/ldp.db";
  absl::StatusOr<std::string> first = AnalystToken(config);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 64u);
  struct stat info {};
  ASSERT_EQ(stat((config.db + ".analyst_token").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(*AnalystToken(config), *first);  // read back, not replaced
}

TEST(ServerTokens, TokenFilesAreReadWithoutSurroundingWhitespace) {
  testing::TempDirectory dir;
  ServerConfig config;
  config.analyst_token_file = dir.path() + "/analyst";
  config.enrollment_token_file = dir.path() + "/enroll";
  std::ofstream(config.analyst_token_file) << "  analyst-token-0123456789\n";
  std::ofstream(config.enrollment_token_file) << "enroll-token-0123456789\n\n";
  EXPECT_EQ(*AnalystToken(config), "analyst-token-0123456789");
  EXPECT_EQ(*EnrollmentToken(config), "enroll-token-0123456789");
  EXPECT_EQ(*EnrollmentToken(ServerConfig{}), "");
  EXPECT_TRUE(EnrollmentQuotas(ServerConfig{})->empty());
}

TEST(ServerTokens, APostgresDbNeedsAnAnalystTokenFile) {
  ServerConfig config;
  config.db = "postgresql://ldp@db.example/ldp";
  EXPECT_THAT(AnalystToken(config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--analyst_token_file")));
}

TEST(ServerTokens, AMissingFileNamesItsFlag) {
  ServerConfig config;
  config.enrollment_tokens_file = "/nonexistent/quotas";
  EXPECT_THAT(
      EnrollmentQuotas(config),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("--enrollment_tokens_file /nonexistent/quotas")));
}

}  // namespace
}  // namespace ldp

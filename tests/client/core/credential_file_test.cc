#include "client/core/credential_file.h"

#include <sys/stat.h>

#include <string>

#include "client/core/atomic_file.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using testing::StatusIs;

TEST(CredentialFile, RoundTripsPrivately) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/credential";
  auto missing = LoadCredential(path);
  ASSERT_OK(missing);
  EXPECT_FALSE(missing->has_value());
  const StoredCredential credential{.agent_id = 18446744073709551615u,
                                    .bearer_token = "0f1e2d3c4b5a"};
  ASSERT_OK(SaveCredential(path, credential));
  auto loaded = LoadCredential(path);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, credential);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(CredentialFile, RejectsBadTokensAndDamagedFiles) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/credential";
  EXPECT_THAT(SaveCredential(path, {.agent_id = 1, .bearer_token = ""}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SaveCredential(path, {.agent_id = 1, .bearer_token = "a b"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  for (const char* text :
       {"", "agent_id 1\n", "agent_id x\nbearer_token t\n",
        "agent_id 1\nbearer_token \n", "id 1\nbearer_token t\n",
        "agent_id 1\nbearer_token t\nextra\n"}) {
    ASSERT_OK(WriteFileAtomically(path, text));
    EXPECT_THAT(LoadCredential(path), StatusIs(absl::StatusCode::kDataLoss))
        << text;
  }
}

// The first call saves the fresh id; later calls (a retry, a restarted
// agent) get the saved one, whatever they draw; removal is idempotent.
TEST(CredentialFile, KeepsAnEnrollmentRequestUntilRemoved) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/enrollment_request";
  const std::string first(32, '\x01');
  EXPECT_THAT(LoadOrSaveEnrollmentRequest(path, first),
              testing::IsOkAndHolds(first));
  EXPECT_THAT(LoadOrSaveEnrollmentRequest(path, std::string(32, '\x02')),
              testing::IsOkAndHolds(first));
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_OK(RemoveEnrollmentRequest(path));
  ASSERT_OK(RemoveEnrollmentRequest(path));
  const std::string second(16, '\xfe');
  EXPECT_THAT(LoadOrSaveEnrollmentRequest(path, second),
              testing::IsOkAndHolds(second));
}

TEST(CredentialFile, RefusesBadEnrollmentRequests) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/enrollment_request";
  EXPECT_THAT(LoadOrSaveEnrollmentRequest(path, "short"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  for (const char* text : {"", "xyz\n", "0123\n", "0g" /* not hex */}) {
    ASSERT_OK(WriteFileAtomically(path, text));
    EXPECT_THAT(LoadOrSaveEnrollmentRequest(path, std::string(32, 'a')),
                StatusIs(absl::StatusCode::kDataLoss))
        << text;
  }
}

}  // namespace
}  // namespace ldp

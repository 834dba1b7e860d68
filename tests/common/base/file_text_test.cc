// ReadFileText / ReadPemFile: the bytes, and each failure's status and words.
#include "common/base/file_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

class FileTextTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  testing::TempDirectory dir_;
};

TEST_F(FileTextTest, ReadsEveryByteIncludingNulsAndLargeFiles) {
  std::string bytes(100000, 'x');
  bytes[5] = '\0';
  bytes.back() = '\n';
  EXPECT_EQ(*ReadFileText(Write("big", bytes), "--token_file"), bytes);
  EXPECT_EQ(*ReadFileText(Write("empty", ""), "--token_file"), "");
}

TEST_F(FileTextTest, AMissingFileIsNotFoundNamingTheFlagAndPath) {
  const std::string path = dir_.path() + "/absent";
  EXPECT_THAT(ReadFileText(path, "--token_file"),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("--token_file " + path),
                             HasSubstr("No such file"))));
}

TEST_F(FileTextTest, ADirectoryOrAPathThroughAFileIsFailedPrecondition) {
  EXPECT_THAT(ReadFileText(dir_.path(), "--spec"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Is a directory")));
  const std::string file = Write("plain", "x");
  EXPECT_THAT(ReadFileText(file + "/below", "--spec"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Not a directory")));
}

TEST_F(FileTextTest, AnUnreadableFileIsPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads every file";
  const std::string path = Write("secret", "x");
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  EXPECT_THAT(ReadFileText(path, "--tls_key_file"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("--tls_key_file")));
}

TEST_F(FileTextTest, PemNeedsABeginLine) {
  const std::string pem = "-----BEGIN CERTIFICATE-----\nAA==\n";
  EXPECT_EQ(*ReadPemFile(Write("ok.pem", pem), "--tls_ca_file"), pem);
  EXPECT_THAT(ReadPemFile(Write("key.txt", "not a key"), "--tls_ca_file"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is not a PEM file")));
  EXPECT_THAT(ReadPemFile(dir_.path() + "/absent", "--tls_ca_file"),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace ldp

#include "client/core/atomic_file.h"

#include <sys/stat.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

TEST(AtomicFile, WritesReplacesAndReads) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/file";
  auto missing = ReadFileIfExists(path);
  ASSERT_OK(missing);
  EXPECT_FALSE(missing->has_value());

  ASSERT_OK(WriteFileAtomically(path, "first"));
  ASSERT_OK(WriteFileAtomically(path, std::string("second\0bytes", 12)));
  auto read = ReadFileIfExists(path);
  ASSERT_OK(read);
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, std::string("second\0bytes", 12));
  // No temporary is left behind, and the file is private to its owner.
  EXPECT_FALSE(ReadFileIfExists(path + ".tmp")->has_value());
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(AtomicFile, LeavesTheOldFileWhenTheWriteFails) {
  testing::TempDirectory dir;
  const std::string path = dir.path() + "/file";
  ASSERT_OK(WriteFileAtomically(path, "kept"));
  // The temporary cannot be created inside a missing directory.
  EXPECT_FALSE(WriteFileAtomically(dir.path() + "/no/such/file", "x").ok());
  // A directory where the temporary should go makes the write fail.
  ASSERT_EQ(::mkdir((path + ".tmp").c_str(), 0700), 0);
  EXPECT_FALSE(WriteFileAtomically(path, "lost").ok());
  EXPECT_EQ(**ReadFileIfExists(path), "kept");
}

}  // namespace
}  // namespace ldp

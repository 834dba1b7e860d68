// A fresh directory per test, removed afterwards.
#ifndef LDP_TESTS_TESTING_TEMP_DIRECTORY_H_
#define LDP_TESTS_TESTING_TEMP_DIRECTORY_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace ldp::testing {

class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = ::testing::TempDir() + "/ldp_test_XXXXXX";
    const char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_TEMP_DIRECTORY_H_

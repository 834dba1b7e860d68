// The shuffle keyring file: created once with mode 0600, reloaded the same,
// rotated keeping the previous sealing key, refused when corrupt.
#include "server/keys/shuffle_keyring.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "proto/sealing/sealed_report.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

class ShuffleKeyringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_keys_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/keys";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  std::string path_;
  const absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
};

TEST_F(ShuffleKeyringTest, CreatesOnceAndReloadsTheSameKeys) {
  absl::StatusOr<std::unique_ptr<ShuffleKeyring>> first =
      ShuffleKeyring::LoadOrCreate(path_, now_);
  ASSERT_OK(first);
  struct stat info {};
  ASSERT_EQ(stat(path_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  absl::StatusOr<std::unique_ptr<ShuffleKeyring>> again =
      ShuffleKeyring::LoadOrCreate(path_, now_);
  ASSERT_OK(again);
  EXPECT_EQ((*again)->current_key_id(), (*first)->current_key_id());
  EXPECT_EQ((*again)->current_public_key(), (*first)->current_public_key());
  EXPECT_EQ((*again)->ticket_public_key_hex(),
            (*first)->ticket_public_key_hex());
  EXPECT_EQ((*first)->current_key_id(),
            HpkeKeyId((*first)->current_public_key()));
  EXPECT_EQ((*first)->ticket_public_key_hex().size(), 64u);
}

TEST_F(ShuffleKeyringTest, RotationKeepsThePreviousSealingKeyOnly) {
  auto original = *ShuffleKeyring::LoadOrCreate(path_, now_);
  auto rotated = *ShuffleKeyring::Rotate(path_, now_);
  EXPECT_NE(rotated->current_key_id(), original->current_key_id());
  EXPECT_NE(rotated->Find(original->current_key_id()), nullptr);
  EXPECT_EQ(rotated->key_ids().size(), 2u);
  EXPECT_EQ(rotated->ticket_public_key_hex(),
            original->ticket_public_key_hex());
  auto twice = *ShuffleKeyring::Rotate(path_, now_);
  EXPECT_EQ(twice->Find(original->current_key_id()), nullptr);
  EXPECT_NE(twice->Find(rotated->current_key_id()), nullptr);
  EXPECT_EQ(twice->key_ids().size(), 2u);
  // What a restart reads is what the rotation wrote.
  auto reloaded = *ShuffleKeyring::LoadOrCreate(path_, now_);
  EXPECT_EQ(reloaded->key_ids(), twice->key_ids());
}

TEST_F(ShuffleKeyringTest, RefusesAFileItDidNotWrite) {
  std::ofstream(path_) << "not a keyring";
  EXPECT_THAT(ShuffleKeyring::LoadOrCreate(path_, now_),
              StatusIs(absl::StatusCode::kDataLoss));
}

}  // namespace
}  // namespace ldp

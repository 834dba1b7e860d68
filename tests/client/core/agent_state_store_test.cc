#include "client/core/agent_state_store.h"

#include <memory>
#include <string>

#include "client/core/atomic_file.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using testing::StatusIs;

AgentState SomeState() {
  AgentState state;
  state.studies[7] = {.cap_nanos = 3, .spent_nanos = 2, .last_used = 5};
  state.lifetime_spent_nanos = 2;
  state.memo["beef"] = {ScalarReport{11}, 4};
  return state;
}

TEST(MemoryAgentStateStore, StartsEmptyAndKeepsWhatWasSaved) {
  MemoryAgentStateStore store;
  auto empty = store.Load();
  ASSERT_OK(empty);
  EXPECT_TRUE(*empty == AgentState{});
  ASSERT_OK(store.Save(SomeState()));
  auto loaded = store.Load();
  ASSERT_OK(loaded);
  EXPECT_TRUE(*loaded == SomeState());
}

TEST(FileAgentStateStore, SurvivesReopening) {
  testing::TempDirectory dir;
  {
    auto store = FileAgentStateStore::Create({.directory = dir.path()});
    ASSERT_OK(store);
    auto empty = (*store)->Load();
    ASSERT_OK(empty);
    EXPECT_TRUE(*empty == AgentState{});
    ASSERT_OK((*store)->Save(SomeState()));
  }
  auto reopened = FileAgentStateStore::Create({.directory = dir.path()});
  ASSERT_OK(reopened);
  auto loaded = (*reopened)->Load();
  ASSERT_OK(loaded);
  EXPECT_TRUE(*loaded == SomeState());
}

TEST(FileAgentStateStore, OnlyOneProcessMayUseADirectory) {
  testing::TempDirectory dir;
  auto first = FileAgentStateStore::Create({.directory = dir.path()});
  ASSERT_OK(first);
  EXPECT_THAT(FileAgentStateStore::Create({.directory = dir.path()}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  first->reset();
  EXPECT_OK(FileAgentStateStore::Create({.directory = dir.path()}));
}

TEST(FileAgentStateStore, RefusesAMissingDirectoryOrADamagedFile) {
  testing::TempDirectory dir;
  EXPECT_THAT(FileAgentStateStore::Create({.directory = dir.path() + "/nope"}),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(FileAgentStateStore::Create({.directory = ""}),
              StatusIs(absl::StatusCode::kNotFound));
  auto store = FileAgentStateStore::Create({.directory = dir.path()});
  ASSERT_OK(store);
  ASSERT_OK(
      WriteFileAtomically((*store)->path(), "ldp-agent-state 1\nstudy 1"));
  EXPECT_THAT((*store)->Load(), StatusIs(absl::StatusCode::kDataLoss));
}

}  // namespace
}  // namespace ldp

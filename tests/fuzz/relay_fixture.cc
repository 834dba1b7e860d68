// The relay fuzz target's aggregator; see relay_fixture.h.
#include "tests/fuzz/relay_fixture.h"

#include <stdlib.h>

#include <filesystem>
#include <set>
#include <utility>

#include "common/tasks/task_id.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

constexpr char kEnrollmentToken[] = "fuzz-enrollment-token";

std::string MakeDir() {
  const char* base =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string pattern = std::string(base) + "/ldp_relay_fuzz_XXXXXX";
  Check(mkdtemp(pattern.data()) != nullptr, "cannot make the store directory");
  return pattern;
}

}  // namespace

RelayFixture::RelayFixture() : dir_(MakeDir()) { Build(); }

RelayFixture::~RelayFixture() {
  aggregator_.reset();
  RemoveStore();
}

void RelayFixture::Reset() {
  aggregator_.reset();  // commits what is queued, stops the writer
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    std::filesystem::remove(entry.path(), ignored);
  }
  Build();
}

void RelayFixture::RemoveStore() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void RelayFixture::Build() {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open({.path = dir_ + "/ldp.db", .cache_kib = 1024});
  Check(store.ok(), "the fixture store does not open");
  absl::StatusOr<std::unique_ptr<Aggregator>> aggregator =
      Aggregator::Create({.clock = &clock_,
                          .analyst_token = "fuzz-analyst-token-0123456789",
                          .enrollment_token = kEnrollmentToken,
                          .max_reports_per_call = kRelayMaxPerCall},
                         *std::move(store));
  Check(aggregator.ok(), "the fixture aggregator does not start");
  aggregator_ = *std::move(aggregator);
  for (uint64_t i = 0; i < kRelayStudies; ++i) {
    Check(aggregator_->CreateStudy(Study()).ok(), "the fixture study fails");
  }
  current_round_ = 1;
  tokens_.clear();
  tasks_.clear();
  for (int i = 0; i < kRelayAgents; ++i) {
    absl::StatusOr<Enrollment> enrolled = aggregator_->Enroll(kEnrollmentToken);
    Check(enrolled.ok() && enrolled->agent_id == static_cast<uint64_t>(i + 1),
          "fixture agents are not enrolled as 1, 2, ...");
    tokens_.push_back(enrolled->bearer_token);
    absl::StatusOr<std::vector<TaskAssignment>> tasks =
        aggregator_->GetTasks(enrolled->agent_id, 1 << 16);
    Check(tasks.ok(), "a fixture agent has no task");
    tasks_.emplace_back();
    std::set<uint64_t> rounds;
    for (const TaskAssignment& t : *tasks) {
      tasks_.back().push_back(t.task_id);
      rounds.insert(UnpackTaskId(t.task_id).round_id);
    }
    Check(rounds.size() == kRelayStudies && *rounds.begin() == 1 &&
              *rounds.rbegin() == kRelayStudies,
          "a fixture agent is not asked in rounds 1 to kRelayStudies");
  }
}

uint64_t RelayFixture::MapTaskId(uint64_t task_id) const {
  TaskKey key = UnpackTaskId(task_id);
  if (key.round_id == 1) {
    key.round_id = current_round_;
  } else if (key.round_id >= 2 && key.round_id <= kRelayStudies) {
    key.round_id += kRelayStudies;  // no such round (nor is round 0)
  } else {
    return task_id;
  }
  return PackTaskId(key);
}

void RelayFixture::NextRound() {
  if (current_round_ < kRelayStudies) {
    ++current_round_;
  } else {
    Reset();
  }
}

std::string RelayFixture::Resolve(std::string_view token) const {
  if (token.size() < 2 || token[0] != '@') return std::string(token);
  const int agent = static_cast<uint8_t>(token[1]) % kRelayAgents;
  return tokens_[agent] + std::string(token.substr(2));
}

}  // namespace ldp::fuzz

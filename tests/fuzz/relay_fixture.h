// The server side of the relay fuzz target (relay_batch_fuzzer.cc), shared
// with make_fuzz_corpus, which writes its seeds from the same state: an
// Aggregator over SQLite in a directory of its own (on tmpfs when there is
// one: every commit fsyncs), on a fixed clock, with the fixture study open
// kRelayStudies times (fuzz_fixtures.h Study(); no quorum, so their rounds,
// 1 to kRelayStudies, never close) and kRelayAgents agents enrolled, ids 1
// to kRelayAgents in a fresh store.
//
// Bearer tokens are random per process, so the fuzzed bytes name them by
// placeholder: a token "@<c><rest>" stands for the token of agent
// (c mod kRelayAgents) + 1 followed by <rest> (empty: the exact token).
//
// Rebuilding the state costs milliseconds (the agent directory alone zeroes
// 2 MiB), so an input that stores reports uses up one study instead: the
// fuzzed bytes name round 1, which stands for the current round, the first
// one no input has stored a report in (MapTaskId). Every input thus meets
// a round without reports; once all are used, Reset builds the state anew.
#ifndef LDP_TESTS_FUZZ_RELAY_FIXTURE_H_
#define LDP_TESTS_FUZZ_RELAY_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/aggregator.h"
#include "tests/testing/fake_clock.h"

namespace ldp::fuzz {

inline constexpr int kRelayAgents = 4;
// A relay call's limit here (production's default is 1000): small enough
// that the fuzzer reaches the "too many" refusals.
inline constexpr int kRelayMaxPerCall = 16;
inline constexpr uint64_t kRelayStudies = 32;

class RelayFixture {
 public:
  // Aborts (Check) if the state cannot be built: a harness bug.
  RelayFixture();
  ~RelayFixture();
  RelayFixture(const RelayFixture&) = delete;
  RelayFixture& operator=(const RelayFixture&) = delete;

  // Drops the store and builds the starting state again (new tokens).
  void Reset();
  // Deletes the store's directory (for exit: the aggregator stays).
  void RemoveStore();

  Aggregator& aggregator() { return *aggregator_; }
  // Agent i (0-based) has id i + 1.
  const std::string& token(int i) const { return tokens_[i]; }
  // The task ids agent i was assigned in the starting state, every round.
  const std::vector<uint64_t>& tasks(int i) const { return tasks_[i]; }
  // `token` with a placeholder replaced (see the file's header).
  std::string Resolve(std::string_view token) const;
  // A fuzzed task id: round 1 becomes the current round, and the other
  // rounds of the pool rounds that do not exist (so no input reaches a
  // round before its turn); the agent and question bits are kept.
  uint64_t MapTaskId(uint64_t task_id) const;
  uint64_t current_round() const { return current_round_; }
  // After an input stored reports in the current round: the next one, or
  // the state built anew if none is left.
  void NextRound();

 private:
  void Build();

  std::string dir_;
  FakeClock clock_;
  std::unique_ptr<Aggregator> aggregator_;
  std::vector<std::string> tokens_;
  std::vector<std::vector<uint64_t>> tasks_;
  uint64_t current_round_ = 1;
};

}  // namespace ldp::fuzz

#endif  // LDP_TESTS_FUZZ_RELAY_FIXTURE_H_

// Shuffled batches (DESIGN invariant 9): a trusted shuffler's batch of
// anonymous reports, checked, stored whole and counted.
//
// Why apart from ReportIngest: a shuffled report has no agent, so none of
// that path's checks apply (task ownership, the ledger charge, one report
// per task). What replaces them is per batch: the study is shuffled, the
// round open, the batch at least the study's minimum after duplicates are
// dropped. Reports of a shuffled study never come the per-agent way
// (ReportIngest refuses them), so its estimates hold only shuffled
// reports.
#ifndef LDP_SERVER_CORE_SHUFFLED_INGEST_H_
#define LDP_SERVER_CORE_SHUFFLED_INGEST_H_

#include <cstdint>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "server/core/aggregator_context.h"
#include "server/core/aggregator_types.h"
#include "server/core/round_lifecycle.h"
#include "server/core/study_registry.h"

namespace ldp {

// Thread-safe. Contracts in aggregator.h.
class ShuffledIngest {
 public:
  // Everything passed outlives this.
  ShuffledIngest(const AggregatorContext& context, const StudyRegistry& studies,
                 RoundLifecycle& rounds)
      : context_(context), studies_(studies), rounds_(rounds) {}
  ShuffledIngest(const ShuffledIngest&) = delete;
  ShuffledIngest& operator=(const ShuffledIngest&) = delete;

  absl::StatusOr<TaskAssignment> ShuffledQuestion(uint64_t study_id,
                                                  uint64_t round_id,
                                                  uint32_t question) const;
  void DeliverAsync(
      ShuffledBatch batch,
      absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done);

 private:
  friend class ShuffledBatchJob;

  absl::StatusOr<RoundEntry> Find(uint64_t study_id, uint64_t round_id,
                                  uint32_t question) const;
  // The payloads the question's mechanism accepts, as store rows (and
  // moved to `payloads`, in the same order); counts the others in
  // `outcome`.
  ShuffledBatchRow ValidRows(ShuffledBatch& batch, const RoundEntry& entry,
                             ShuffledBatchOutcome& outcome,
                             std::vector<ReportPayload>& payloads) const;

  const AggregatorContext& context_;
  const StudyRegistry& studies_;
  RoundLifecycle& rounds_;
};

// The central guarantee of question q of a shuffled study's round, from
// the batches released so far.
ShuffledGuaranteeInfo ShuffledGuaranteeOf(const RoundRuntime& round, int q,
                                          const ShuffleSpec& shuffle);

}  // namespace ldp

#endif  // LDP_SERVER_CORE_SHUFFLED_INGEST_H_

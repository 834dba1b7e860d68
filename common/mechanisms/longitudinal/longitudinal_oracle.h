// What a longitudinal frequency oracle adds to the FrequencyOracle contract:
// a permanent response (the memo) the agent draws ONCE per value and keeps,
// and reports drawn from that memo.
//
// Why an interface: an agent asked the same question every day would leak
// T·ε after T fresh answers (the averaging attack). Every report drawn from
// one memo is post-processing of it, so all of them together never leak
// more than the memo's ε∞, while one report alone leaks only the oracle's
// epsilon() ≤ ε∞. The agent (client/core/agent.cc) and TaskMechanism need only
// this interface; the oracles differ in what the memo is:
//   - L-UE (longitudinal.h): a unary-encoded bit vector (BitVectorReport);
//   - L-GRR (longitudinal_grr.h): an item of [N] (ItemReport);
//   - L-OLH (longitudinal_local_hashing.h): a public seed and a bucket of
//     [g] (HashedReport);
//   - dBitFlipPM (dbit_flip.h): the report itself, so every report of one
//     value is the same (ε1 = ε∞).
//
// Like the oracle, these are transparent: MemoProbability and
// ProbabilityFromMemo are exact, and for every item v and report w
//   Σ_memo MemoProbability(v, memo) · ProbabilityFromMemo(memo, w)
//     = Probability(v, w)
// (both conditioned on the same public components), which the tests check.
#ifndef LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_ORACLE_H_
#define LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_ORACLE_H_

#include <cstdint>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "common/mechanisms/frequency/frequency_report.h"

namespace ldp {

class LongitudinalOracle {
 public:
  virtual ~LongitudinalOracle() = default;

  // Implemented ε∞: the loss of any number of reports drawn from one memo.
  // Never exceeds the ε∞ the oracle was created for.
  virtual double epsilon_infinity() const = 0;

  // The permanent response for `item` (clamped to the last item like
  // Randomize). Draws as many coins whatever the item.
  virtual FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const = 0;

  // InvalidArgument unless `memo` is a shape Memoize can return. The agent
  // checks its stored memos with it and draws a new one (charged in full)
  // in place of one that fails.
  virtual absl::Status ValidateMemo(const FrequencyReport& memo) const = 0;

  // A fresh report drawn from `memo`. Total: a memo ValidateMemo rejects is
  // first normalized (each oracle says how), so the report is always one
  // Validate accepts.
  virtual FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                            absl::BitGenRef gen) const = 0;

  // Exact Pr[Memoize(item) = memo] given the memo's public components; 0 for
  // a memo ValidateMemo rejects.
  virtual double MemoProbability(uint32_t item,
                                 const FrequencyReport& memo) const = 0;

  // Exact Pr[RandomizeFromMemo(memo) = report]; 0 if either is malformed.
  virtual double ProbabilityFromMemo(const FrequencyReport& memo,
                                     const FrequencyReport& report) const = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_ORACLE_H_

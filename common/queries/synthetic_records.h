// Synthetic records for any schema: the stand-in population of
// `ldp plan --simulate` and of tests that need data for a whole study.
//
// Each field gets a fixed, skewed distribution (a planner checked only on
// uniform data would hide the data dependence of GRR, OUE or Duchi):
//   bool            Bernoulli(0.3)
//   int [lo, hi]    lo + Zipf(1.1) offset for ranges up to 2^16 values,
//                   uniform beyond
//   categorical     Zipf(1.1) over the categories, in declared order
//   real [lo, hi]   lo + (hi − lo)·U²
//   bit vector      bit i set with probability 0.25, 0.5 or 0.75 (i mod 3)
// A record depends only on (seed, agent id), so a population of any size
// needs no storage and the same seed gives the same population. Not
// privacy-critical (it stands in for agents' data): floating-point sampling
// is fine here.
#ifndef LDP_COMMON_QUERIES_SYNTHETIC_RECORDS_H_
#define LDP_COMMON_QUERIES_SYNTHETIC_RECORDS_H_

#include <cstdint>
#include <vector>

#include "common/queries/record_schema.h"

namespace ldp {

class SyntheticRecords {
 public:
  SyntheticRecords(RecordSchema schema, uint64_t seed);

  // The record of `agent_id`: every field of the schema, in range (already
  // what Sanitize would return).
  Record Get(uint64_t agent_id) const;

  const RecordSchema& schema() const { return schema_; }

 private:
  RecordSchema schema_;
  uint64_t seed_;
  // Per field: the Zipf CDF over its values (ints and categoricals with at
  // most 2^16 values), empty otherwise.
  std::vector<std::vector<double>> cdfs_;
};

}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_SYNTHETIC_RECORDS_H_

// Synthetic agent populations for ldp-loadtest.
//
// The load test runs N real agent sessions; each needs a record, and the
// printed estimates need the true population values to compare against.
// Records are generated on demand from (seed, agent index) alone, so worker
// threads need no shared state and a million agents need no million stored
// records; the same seed always yields the same population.
//
// Every record has the schema
//   item:  int in [0, domain_size − 1]  (the histogram question)
//   value: real in [0, 1], = item / (domain_size − 1)  (the mean question)
// with item drawn from a uniform, bounded Zipf (P(i) ∝ (i+1)^−s), or
// discretized Gaussian distribution, or read from a CSV file (one item per
// row, an optional header line "item"; agent i takes row i mod rows).
//
// Not privacy-critical (it stands in for the agents' true data), so it
// samples with floating point freely, like common/population.h.
#ifndef LDP_CLIENT_POPULATION_SOURCE_H_
#define LDP_CLIENT_POPULATION_SOURCE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/record_schema.h"

namespace ldp {

enum class PopulationKind { kUniform, kZipf, kGaussian, kCsv };

// "uniform", "zipf", "gaussian", "csv"; InvalidArgument otherwise.
absl::StatusOr<PopulationKind> ParsePopulationKind(absl::string_view name);

struct PopulationOptions {
  PopulationKind kind = PopulationKind::kZipf;
  int64_t num_agents = 0;       // ≥ 1
  uint32_t domain_size = 16;    // 2 to 2^20
  double zipf_exponent = 1.1;   // ≥ 0 (kZipf)
  // kGaussian: in item units; NaN = the domain's middle / a sixth of it.
  double gaussian_mean = std::numeric_limits<double>::quiet_NaN();
  double gaussian_stddev = std::numeric_limits<double>::quiet_NaN();
  // kCsv: the file's contents; every item must be in [0, domain_size).
  std::string csv_text{};
  uint64_t seed = 1;
};

// The truth over a set of agents: item counts and the sum of values.
struct PopulationTruth {
  std::vector<int64_t> item_counts;
  double value_sum = 0;
  int64_t num_agents = 0;

  explicit PopulationTruth(uint32_t domain_size) : item_counts(domain_size) {}
  void Add(uint32_t item, double value);
  void Merge(const PopulationTruth& other);
  // count / n per item (all zero when empty).
  std::vector<double> Frequencies() const;
  // Mean of `value` (0 when empty).
  double MeanValue() const;
};

class PopulationSource {
 public:
  // InvalidArgument with the reason for bad options or an unreadable CSV.
  static absl::StatusOr<std::unique_ptr<PopulationSource>> Create(
      const PopulationOptions& options);

  const RecordSchema& schema() const { return schema_; }
  uint32_t domain_size() const { return options_.domain_size; }
  int64_t num_agents() const { return options_.num_agents; }

  // Agent `index`'s item and record (index in [0, num_agents)).
  uint32_t ItemOf(int64_t index) const;
  double ValueOf(uint32_t item) const;
  Record RecordOf(int64_t index) const;

  // The truth over all agents.
  PopulationTruth Truth() const;

 private:
  PopulationSource(PopulationOptions options, RecordSchema schema)
      : options_(std::move(options)), schema_(std::move(schema)) {}

  PopulationOptions options_;
  RecordSchema schema_;
  std::vector<double> cumulative_;  // kZipf: CDF over items
  std::vector<uint32_t> rows_;      // kCsv
};

}  // namespace ldp

#endif  // LDP_CLIENT_POPULATION_SOURCE_H_

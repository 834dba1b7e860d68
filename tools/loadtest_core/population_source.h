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
// discretized Gaussian distribution, a weighted mixture of those three, the
// masked-parity learning example (below), or read from a CSV file (one item
// per row, an optional header line "item"; agent i takes row i mod rows;
// read as RFC 4180, common/csv/csv_reader.h, so quoted fields, CRLF and a
// UTF-8 BOM are fine).
//
// Masked parity (domain_size = 2^d, d ≥ 2). The bit workloads read the item
// as bool fields bit0..bit(d−1), bit0 the MOST significant bit. Here
//   x = bit0..bit(d−2) = item >> 1, uniform on {0,1}^(d−1),
//   y = bit(d−1)       = item & 1,  y = parity(x & mask) XOR noise,
// noise ~ Bernoulli(parity_noise). Written in binary with d−1 digits, the
// mask's digits line up with fields bit0..bit(d−2): for d = 4 and mask 0b101
// the label is bit0 ⊕ bit2 (⊕ noise), so the parity of {bit0, bit2, bit3} has
// mean ±1 value 1 − 2·parity_noise while every other nonempty parity of the
// fields has mean 0 — a --workload=parities run can find the mask.
//
// Not privacy-critical (it stands in for the agents' true data), so it
// samples with floating point freely, like common/estimation/population.h.
#ifndef LDP_TOOLS_LOADTEST_CORE_POPULATION_SOURCE_H_
#define LDP_TOOLS_LOADTEST_CORE_POPULATION_SOURCE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/queries/record_schema.h"

namespace ldp {

enum class PopulationKind {
  kUniform,
  kZipf,
  kGaussian,
  kCsv,
  kMixture,
  kMaskedParity,
};

// "uniform", "zipf", "gaussian", "csv", "mixture", "masked_parity";
// InvalidArgument otherwise.
absl::StatusOr<PopulationKind> ParsePopulationKind(absl::string_view name);
// The inverse of ParsePopulationKind.
absl::string_view PopulationKindName(PopulationKind kind);

// One component of a kMixture population. Only kUniform, kZipf and kGaussian
// may be mixed. A NaN parameter takes the PopulationOptions field of the same
// name (itself defaulted as documented there), so one --zipf flag can serve
// every Zipf component.
struct MixtureComponent {
  PopulationKind kind = PopulationKind::kUniform;
  double weight = 1;  // finite, > 0; weights are normalized over components
  double zipf_exponent = std::numeric_limits<double>::quiet_NaN();
  double gaussian_mean = std::numeric_limits<double>::quiet_NaN();
  double gaussian_stddev = std::numeric_limits<double>::quiet_NaN();
};

// Parses a mixture flag value:
//   mixture   := component ("," component)*
//   component := kind ["(" param ("," param)* ")"] ":" weight
//   kind      := "uniform" | "zipf" | "gaussian"
//   param     := "s=" number              (zipf: the exponent, ≥ 0)
//              | "mean=" number | "sd=" number   (gaussian, item units; sd > 0)
// e.g. "zipf:0.6,gaussian:0.3,uniform:0.1" or
//      "zipf(s=1.3):0.5, gaussian(mean=100,sd=8):0.5".
// Whitespace around tokens is ignored; weights are returned as written (> 0,
// normalized by PopulationSource). Omitted parameters are NaN. InvalidArgument
// quoting the offending component otherwise.
absl::StatusOr<std::vector<MixtureComponent>> ParseMixture(
    absl::string_view text);

struct PopulationOptions {
  PopulationKind kind = PopulationKind::kZipf;
  int64_t num_agents = 0;      // ≥ 1
  uint32_t domain_size = 16;   // 2 to 2^20
  double zipf_exponent = 1.1;  // ≥ 0 (kZipf)
  // kGaussian: in item units; NaN = the domain's middle / a sixth of it.
  double gaussian_mean = std::numeric_limits<double>::quiet_NaN();
  double gaussian_stddev = std::numeric_limits<double>::quiet_NaN();
  // kCsv: the file's contents; every item must be in [0, domain_size).
  std::string csv_text{};
  // kCsv: what errors call the file ("source:line: column C: …"), e.g. its
  // path.
  std::string csv_source = "CSV";
  uint64_t seed = 1;
  // kMixture: at least one component (ignored for other kinds).
  std::vector<MixtureComponent> components{};
  // kMaskedParity: P(label ≠ parity(x & mask)), in [0, 0.5).
  double parity_noise = 0.1;
  // kMaskedParity: nonzero and < 2^(d−1); 0 = a nonzero mask drawn from seed
  // (PopulationSource::parity_mask() reports it).
  uint32_t parity_mask = 0;
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
  // kMaskedParity: the mask in use (the seed's when options had 0); else 0.
  uint32_t parity_mask() const { return options_.parity_mask; }

  // Agent `index`'s item and record (index in [0, num_agents)).
  uint32_t ItemOf(int64_t index) const;
  double ValueOf(uint32_t item) const;
  Record RecordOf(int64_t index) const;

  // The truth over all agents.
  PopulationTruth Truth() const;

 private:
  // A uniform, Zipf or Gaussian distribution ready to sample by inversion.
  struct Sampler {
    PopulationKind kind = PopulationKind::kUniform;
    double gaussian_mean = 0;
    double gaussian_stddev = 1;
    std::vector<double> cumulative{};  // kZipf: CDF over items
  };

  PopulationSource(PopulationOptions options, RecordSchema schema)
      : options_(std::move(options)), schema_(std::move(schema)) {}

  uint32_t Sample(const Sampler& sampler, double u) const;

  PopulationOptions options_;
  RecordSchema schema_;
  // kUniform, kZipf, kGaussian: one; kMixture: one per component.
  std::vector<Sampler> samplers_;
  std::vector<double> mixture_cumulative_;  // kMixture: normalized weight CDF
  std::vector<uint32_t> rows_;              // kCsv
  uint32_t parity_bits_ = 0;                // kMaskedParity: d − 1
};

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_POPULATION_SOURCE_H_

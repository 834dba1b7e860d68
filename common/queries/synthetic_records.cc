// Synthetic records per schema field; see the header for the distributions.
#include "common/queries/synthetic_records.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>

namespace ldp {
namespace {

constexpr double kZipfExponent = 1.1;
constexpr uint64_t kMaxZipfValues = uint64_t{1} << 16;

std::vector<double> ZipfCdf(uint64_t values) {
  std::vector<double> cdf(values);
  double total = 0;
  for (uint64_t i = 0; i < values; ++i) {
    total += std::pow(static_cast<double>(i + 1), -kZipfExponent);
    cdf[i] = total;
  }
  for (double& c : cdf) c /= total;
  return cdf;
}

uint64_t Draw(const std::vector<double>& cdf, double u) {
  const auto it = std::lower_bound(cdf.begin(), cdf.end(), u);
  return std::min<uint64_t>(it - cdf.begin(), cdf.size() - 1);
}

// SplitMix64's finalizer: nearby (seed, id) pairs give unrelated streams.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// SplitMix64 as a URBG: one record needs a handful of draws, and seeding
// a Mersenne Twister (312 words) per record would dominate a simulation.
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~uint64_t{0}; }
  result_type operator()() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t x = state_;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace

SyntheticRecords::SyntheticRecords(RecordSchema schema, uint64_t seed)
    : schema_(std::move(schema)), seed_(seed) {
  for (const FieldSpec& f : schema_.fields()) {
    uint64_t values = 0;
    if (f.kind == FieldKind::kInt) {
      values = static_cast<uint64_t>(f.int_upper - f.int_lower) + 1;
    } else if (f.kind == FieldKind::kCategorical) {
      values = f.categories.size();
    }
    cdfs_.push_back(values > 0 && values <= kMaxZipfValues
                        ? ZipfCdf(values)
                        : std::vector<double>{});
  }
}

Record SyntheticRecords::Get(uint64_t agent_id) const {
  SplitMix64 gen(Mix(seed_ ^ Mix(agent_id)));
  std::uniform_real_distribution<double> uniform(0, 1);
  Record record;
  const auto fields = schema_.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldSpec& f = fields[i];
    FieldValue value;
    switch (f.kind) {
      case FieldKind::kBool:
        value = uniform(gen) < 0.3;
        break;
      case FieldKind::kInt: {
        if (!cdfs_[i].empty()) {
          value =
              f.int_lower + static_cast<int64_t>(Draw(cdfs_[i], uniform(gen)));
        } else {
          value = std::uniform_int_distribution<int64_t>(f.int_lower,
                                                         f.int_upper)(gen);
        }
        break;
      }
      case FieldKind::kCategorical:
        value = f.categories[Draw(cdfs_[i], uniform(gen))];
        break;
      case FieldKind::kReal: {
        const double u = uniform(gen);
        value = f.real_lower + (f.real_upper - f.real_lower) * u * u;
        break;
      }
      case FieldKind::kBitVector: {
        std::vector<bool> bits(f.bit_length);
        for (uint32_t b = 0; b < f.bit_length; ++b) {
          bits[b] = uniform(gen) < 0.25 + 0.25 * static_cast<double>(b % 3);
        }
        value = std::move(bits);
        break;
      }
    }
    record.values.emplace(f.name, std::move(value));
  }
  // Complete and in range by construction, so no Sanitize copy: a
  // simulation builds one record per agent per run.
  return record;
}

}  // namespace ldp

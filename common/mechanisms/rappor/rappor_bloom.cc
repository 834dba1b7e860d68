// RAPPOR's per-cohort Bloom filters; see rappor_bloom.h.
#include "common/mechanisms/rappor/rappor_bloom.h"

#include <algorithm>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/mechanisms/frequency/pairwise_hash.h"

namespace ldp {

RapporBloom::Bits RapporBloom::SetBits(uint32_t cohort, uint32_t item) const {
  Bits out;
  for (uint32_t j = 0; j < num_hashes_; ++j) {
    const uint64_t index = uint64_t{cohort} * num_hashes_ + j;
    out.bits[out.size++] = static_cast<uint16_t>(
        PairwiseHash::FromSeed(hash_seed_, index).Bucket(item, num_bits_));
  }
  std::sort(out.bits.begin(), out.bits.begin() + out.size);
  out.size = static_cast<uint32_t>(
      std::unique(out.bits.begin(), out.bits.begin() + out.size) -
      out.bits.begin());
  return out;
}

std::vector<uint64_t> RapporBloom::Filter(uint32_t cohort,
                                          uint32_t item) const {
  std::vector<uint64_t> words(num_words(), 0);
  for (uint16_t bit : SetBits(cohort, item)) {
    words[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  return words;
}

absl::Status RapporBloom::ValidateReport(const FrequencyReport& report) const {
  const auto* sketch = std::get_if<SketchReport>(&report);
  if (sketch == nullptr) {
    return absl::InvalidArgumentError(
        "rappor: a report must be a sketch report (cohort and filter bits)");
  }
  if (sketch->row >= num_cohorts_ || sketch->column != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: cohort ", sketch->row, " is not below ",
                     num_cohorts_, " or column ", sketch->column, " is not 0"));
  }
  const uint32_t used = num_bits_ % 64;
  if (sketch->num_bits != num_bits_ || sketch->bits.size() != num_words() ||
      (used != 0 && (sketch->bits.back() >> used) != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor: a report must carry exactly ", num_bits_, " filter bits"));
  }
  return absl::OkStatus();
}

}  // namespace ldp

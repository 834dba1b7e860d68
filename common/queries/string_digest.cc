// The digest is SplitMix64's finalizer chained over 64-bit words: cheap on
// a device, simple to restate in another language, and well mixed enough
// that the server can find a seed under which its candidates all differ.
#include "common/queries/string_digest.h"

#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string PackedBytes(const std::vector<bool>& bits) {
  std::string packed((bits.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) packed[i / 8] |= static_cast<char>(1 << (i % 8));
  }
  return packed;
}

absl::StatusOr<std::vector<bool>> StringBits(std::string_view text,
                                             uint32_t bit_length) {
  if (text.size() > bit_length / 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", std::string(text), "\" has ", text.size(), " bytes; a field of ",
        bit_length, " bits holds at most ", bit_length / 8));
  }
  std::vector<bool> bits(bit_length, false);
  for (size_t i = 0; i < text.size() * 8; ++i) {
    bits[i] = (static_cast<uint8_t>(text[i / 8]) >> (i % 8)) & 1;
  }
  return bits;
}

uint32_t StringDigest(std::string_view packed, uint64_t seed) {
  uint64_t h = seed;
  for (size_t start = 0; start < packed.size(); start += 8) {
    uint64_t word = 0;
    for (size_t b = 0; b < 8 && start + b < packed.size(); ++b) {
      word |= uint64_t{static_cast<uint8_t>(packed[start + b])} << (8 * b);
    }
    h = Finalize((h ^ word) + 0x9E3779B97F4A7C15ULL);
  }
  return static_cast<uint32_t>(h >> 33);
}

namespace {

// The candidates as their fields hold them; InvalidArgument for one too
// long or a repeat (these do not depend on the seed).
absl::StatusOr<std::vector<std::string>> PackedCandidates(
    const std::vector<std::string>& candidates, uint32_t bit_length) {
  std::vector<std::string> packed;
  packed.reserve(candidates.size());
  absl::flat_hash_map<std::string_view, size_t> seen;
  for (size_t c = 0; c < candidates.size(); ++c) {
    ASSIGN_OR_RETURN(const std::vector<bool> bits,
                     StringBits(candidates[c], bit_length));
    if (const auto [it, added] = seen.emplace(candidates[c], c); !added) {
      return absl::InvalidArgumentError(absl::StrCat("candidates ", it->second,
                                                     " and ", c, " are both \"",
                                                     candidates[c], "\""));
    }
    packed.push_back(PackedBytes(bits));
  }
  return packed;
}

// The digests, or the first two candidates that share one.
std::variant<std::vector<uint32_t>, std::pair<size_t, size_t>> Digests(
    const std::vector<std::string>& packed, uint64_t seed) {
  std::vector<uint32_t> digests;
  digests.reserve(packed.size());
  absl::flat_hash_map<uint32_t, size_t> first;
  for (size_t c = 0; c < packed.size(); ++c) {
    const uint32_t digest = StringDigest(packed[c], seed);
    const auto [it, added] = first.emplace(digest, c);
    if (!added) return std::make_pair(it->second, c);
    digests.push_back(digest);
  }
  return digests;
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> CandidateDigests(
    const std::vector<std::string>& candidates, uint32_t bit_length,
    uint64_t seed) {
  ASSIGN_OR_RETURN(const std::vector<std::string> packed,
                   PackedCandidates(candidates, bit_length));
  auto digests = Digests(packed, seed);
  if (auto* pair = std::get_if<std::pair<size_t, size_t>>(&digests)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "candidates \"", candidates[pair->first], "\" and \"",
        candidates[pair->second], "\" share a digest under hash_seed ", seed,
        "; leave hash_seed 0 for the server to pick one that tells them "
        "apart"));
  }
  return std::get<std::vector<uint32_t>>(std::move(digests));
}

absl::StatusOr<uint64_t> FirstDistinctSeed(
    const std::vector<std::string>& candidates, uint32_t bit_length) {
  ASSIGN_OR_RETURN(const std::vector<std::string> packed,
                   PackedCandidates(candidates, bit_length));
  constexpr uint64_t kTries = 256;
  for (uint64_t seed = 1; seed <= kTries; ++seed) {
    if (Digests(packed, seed).index() == 0) return seed;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no seed in 1..", kTries, " gives the ", candidates.size(),
                   " candidates distinct digests; list fewer candidates"));
}

}  // namespace ldp

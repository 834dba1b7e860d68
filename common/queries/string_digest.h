// Strings held in bit-vector fields, and their 31-bit digest: how an agent's
// string becomes an item of a RAPPOR question's open domain (DigestEncoding
// in types.proto states the same rule for clients in other languages).
//
// A string of at most bit_length/8 bytes is held as the bit vector whose
// packed bytes (bit i = bit i % 8 of byte i / 8) are the string's followed
// by zeros. The server tests candidate strings by the digest alone, so it
// never has to send its candidate list to agents.
#ifndef LDP_COMMON_QUERIES_STRING_DIGEST_H_
#define LDP_COMMON_QUERIES_STRING_DIGEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace ldp {

// Digests are below 2^31, the largest domain an encoding may have.
inline constexpr uint32_t kDigestDomainSize = uint32_t{1} << 31;

// The bits packed 8 to a byte, ceil(size / 8) bytes.
std::string PackedBytes(const std::vector<bool>& bits);

// The bit vector of `bit_length` bits holding `text`; InvalidArgument if
// text has more than bit_length / 8 bytes.
absl::StatusOr<std::vector<bool>> StringBits(std::string_view text,
                                             uint32_t bit_length);

// The item of packed bytes under `seed`, in [0, kDigestDomainSize): the
// bytes as zero-padded little-endian 64-bit words w_j, h = seed, then
// h = F((h ^ w_j) + 0x9E3779B97F4A7C15) with F SplitMix64's finalizer, and
// the item h >> 33. Every word counts, zero or not, so a candidate is
// digested as its field holds it (StringBits at the field's length).
uint32_t StringDigest(std::string_view packed, uint64_t seed);

// The digests of candidate strings as a field of `bit_length` bits holds
// them. InvalidArgument for a candidate too long for the field, or two
// candidates (equal or not) with one digest, naming them.
absl::StatusOr<std::vector<uint32_t>> CandidateDigests(
    const std::vector<std::string>& candidates, uint32_t bit_length,
    uint64_t seed);

// The first seed from 1 under which the candidates' digests all differ
// (CandidateDigests' errors if they are too long or repeat; among distinct
// strings a seed fails with probability about m²/2^32, so a few tries do).
absl::StatusOr<uint64_t> FirstDistinctSeed(
    const std::vector<std::string>& candidates, uint32_t bit_length);

}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_STRING_DIGEST_H_

// ldp.v1.BitVector <-> the two in-memory bit layouts the common/ types use
// (std::vector<bool> for record values and masks, 64-bit words for reports).
//
// The wire packs bits little-endian into bytes with zero padding; a reader
// must reject a byte count that disagrees with `bit_length` and any set
// padding bit, or two different messages would decode to the same report
// (and a forged report could smuggle data past the mechanism's checks).
#ifndef LDP_PROTO_CONVERT_BIT_VECTOR_CONVERT_H_
#define LDP_PROTO_CONVERT_BIT_VECTOR_CONVERT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// Largest bit vector accepted from the wire: 2^25 bits = 4 MiB, gRPC's
// default message limit.
inline constexpr uint32_t kMaxWireBitLength = uint32_t{1} << 25;

// InvalidArgument (naming `what`, e.g. "mask") unless packed.size() ==
// ceil(bit_length / 8), bit_length ≤ kMaxWireBitLength and every padding
// bit is zero.
absl::StatusOr<std::vector<bool>> BitsFromProto(const v1::BitVector& proto,
                                                std::string_view what);
void BitsToProto(const std::vector<bool>& bits, v1::BitVector* proto);

// The same checks; the bits packed into ceil(bit_length / 64) words (bit i
// is bit i % 64 of word i / 64), the layout of BitVectorReport/SketchReport.
// The length itself is proto.bit_length(): a report keeps it as num_bits
// and its mechanism requires it to be exactly the task's.
absl::StatusOr<std::vector<uint64_t>> WordsFromProto(const v1::BitVector& proto,
                                                     std::string_view what);
// Writes exactly `num_bits` bits: bit_length = num_bits and ceil(num_bits /
// 8) bytes (words past them are not sent, missing words are zeros, padding
// bits of the last byte are copied so a malformed report stays malformed).
// num_bits = 0 is a legacy report of unknown length (frequency_report.h):
// all 64 · words.size() bits are written, as before lengths were kept.
void WordsToProto(const std::vector<uint64_t>& words, uint32_t num_bits,
                  v1::BitVector* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_BIT_VECTOR_CONVERT_H_

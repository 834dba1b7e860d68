// Bearer credentials; see the header.
#include "server/core/credential.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "common/crypto/constant_time.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

constexpr size_t kSecretBytes = 32;

// The secret's 64 hex digits are decoded eight at a time, in one 64-bit
// word, with no branch and no table: the digits are random, so a branch per
// digit was often mispredicted (the parse was 5 % of the server's CPU in
// bulk ingest, two tokens per agent), and GCC compiled both a table lookup
// and a per-digit formula into long vector loops (3.5–8 % of the server's
// samples). The time taken does not depend on the digits.
constexpr uint64_t kOnes = 0x0101010101010101;
constexpr uint64_t kHigh = 0x8080808080808080;

// For words whose bytes are all below 0x80: each byte's high bit set where
// the byte is ≥ n (≤ n). No byte carries into the next.
constexpr uint64_t AtLeast(uint64_t x, uint64_t n) {
  return (x + (0x80 - n) * kOnes) & kHigh;
}
constexpr uint64_t AtMost(uint64_t x, uint64_t n) {
  return ((0x80 + n) * kOnes - x) & kHigh;
}

// Eight hex digits into four bytes. `invalid` gets a bit set unless every
// digit is one of 0-9a-f.
void DecodeEightDigits(const unsigned char* in, char* out, uint64_t& invalid) {
  uint64_t x;  // the first digit in the low byte
  std::memcpy(&x, in, sizeof(x));
  if constexpr (std::endian::native == std::endian::big)
    x = __builtin_bswap64(x);
  const uint64_t hex =
      (AtLeast(x, '0') & AtMost(x, '9')) | (AtLeast(x, 'a') & AtMost(x, 'f'));
  invalid |= (x & kHigh) | (hex ^ kHigh);
  // A digit's value: its low nibble, plus 9 for a letter (bit 6 set).
  const uint64_t v = (x & (0x0F * kOnes)) + 9 * ((x >> 6) & kOnes);
  // Pairs of digits into bytes, then the bytes packed together.
  constexpr uint64_t kEven = 0x00FF00FF00FF00FF;
  uint64_t w = ((v & kEven) << 4) | ((v >> 8) & kEven);
  w = (w | (w >> 8)) & 0x0000FFFF0000FFFF;
  w = (w | (w >> 16)) & 0x00000000FFFFFFFF;
  uint32_t bytes = static_cast<uint32_t>(w);
  if constexpr (std::endian::native == std::endian::big) {
    bytes = __builtin_bswap32(bytes);
  }
  std::memcpy(out, &bytes, sizeof(bytes));
}

// A nibble's lowercase hex digit, without a branch or a table.
char HexDigit(unsigned nibble) {
  const int n = static_cast<int>(nibble);
  return static_cast<char>(n + '0' + (((9 - n) >> 8) & ('a' - '0' - 10)));
}

absl::Status Malformed() {
  return absl::UnauthenticatedError("malformed bearer token");
}

}  // namespace

CredentialHash Sha256(std::string_view data) {
  // SHA-256 only fails when OpenSSL cannot allocate; a zero hash then
  // matches no issued credential, since a real secret's hash is never all
  // zeros.
  return Sha256Of(data).value_or(CredentialHash{});
}

bool SameCredentialHash(const CredentialHash& a, const CredentialHash& b) {
  return ConstantTimeEquals(DigestBytes(a), DigestBytes(b));
}

IssuedCredential IssueCredential(uint64_t agent_id, absl::BitGenRef gen) {
  std::array<char, kSecretBytes> secret;
  for (size_t i = 0; i < kSecretBytes / 8; ++i) {
    const uint64_t word = absl::Uniform<uint64_t>(gen);
    for (int b = 0; b < 8; ++b)
      secret[8 * i + b] = static_cast<char>(word >> (8 * b));
  }
  // Written in place, by arithmetic: a lookup table indexed by the secret's
  // bytes (BytesToHexString's spans several cache lines) would let the
  // secret's value show in which lines were touched.
  std::string token = absl::StrCat(agent_id, ".");
  const size_t start = token.size();
  token.resize(start + 2 * kSecretBytes);
  for (size_t i = 0; i < kSecretBytes; ++i) {
    const auto byte = static_cast<unsigned char>(secret[i]);
    token[start + 2 * i] = HexDigit(byte >> 4);
    token[start + 2 * i + 1] = HexDigit(byte & 0x0F);
  }
  return {.bearer_token = std::move(token),
          .hash = Sha256(std::string_view(secret.data(), secret.size()))};
}

absl::StatusOr<ParsedToken> ParseBearerToken(std::string_view token) {
  const size_t dot = token.find('.');
  if (dot == std::string_view::npos ||
      token.size() - dot - 1 != 2 * kSecretBytes) {
    return Malformed();
  }
  // Digits only (SimpleAtoi would also take a sign or spaces), at most 19
  // so the id cannot overflow.
  const std::string_view digits = token.substr(0, dot);
  if (digits.empty() || digits.size() > 19) return Malformed();
  ParsedToken parsed;
  for (char c : digits) {
    if (c < '0' || c > '9') return Malformed();
    parsed.agent_id = parsed.agent_id * 10 + static_cast<uint64_t>(c - '0');
  }
  if (parsed.agent_id == 0) return Malformed();
  std::array<char, kSecretBytes> secret;
  const auto* hex =
      reinterpret_cast<const unsigned char*>(token.data() + dot + 1);
  uint64_t invalid = 0;  // checked once, after every digit
  for (size_t i = 0; i < kSecretBytes / 4; ++i) {
    DecodeEightDigits(hex + 8 * i, secret.data() + 4 * i, invalid);
  }
  if (invalid != 0) return Malformed();
  parsed.hash = Sha256(std::string_view(secret.data(), secret.size()));
  return parsed;
}

}  // namespace ldp

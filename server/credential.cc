// Bearer credentials; see the header.
#include "server/credential.h"

#include <openssl/crypto.h>

#include <array>
#include <cstdint>

#include "absl/random/distributions.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

constexpr size_t kSecretBytes = 32;

// A lowercase hex digit's value, by arithmetic rather than branches: the
// secret's digits are random, so a branch per digit was often mispredicted
// (ParseBearerToken was 5% of the server's CPU in bulk ingest, two tokens
// per agent), and the parse's time does not depend on which digits the
// secret holds. A table lookup per digit did no better: GCC turned its 64
// lookups into stack-bound vector shuffles (8% of the server's samples).
// `invalid` gets bit 0 set for any byte that is not a lowercase hex digit.
inline uint32_t HexValue(unsigned char c, uint32_t& invalid) {
  const uint32_t digit = c - uint32_t{'0'};
  const uint32_t letter = c - uint32_t{'a'};
  const uint32_t is_digit = digit < 10;
  const uint32_t is_letter = letter < 6;
  invalid |= 1 ^ (is_digit | is_letter);
  return is_digit * digit + is_letter * (letter + 10);
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
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

IssuedCredential IssueCredential(uint64_t agent_id, absl::BitGenRef gen) {
  std::string secret;
  for (size_t i = 0; i < kSecretBytes / 8; ++i) {
    const uint64_t word = absl::Uniform<uint64_t>(gen);
    for (int b = 0; b < 8; ++b)
      secret.push_back(static_cast<char>(word >> (8 * b)));
  }
  std::string token = absl::StrCat(agent_id, ".", absl::BytesToHexString(secret));
  return {.bearer_token = std::move(token), .hash = Sha256(secret)};
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
  const auto* hex = reinterpret_cast<const unsigned char*>(token.data() + dot + 1);
  uint32_t invalid = 0;  // checked once, after every digit
  for (size_t i = 0; i < kSecretBytes; ++i) {
    const uint32_t high = HexValue(hex[2 * i], invalid);
    const uint32_t low = HexValue(hex[2 * i + 1], invalid);
    secret[i] = static_cast<char>(high * 16 + low);
  }
  if (invalid != 0) return Malformed();
  parsed.hash = Sha256(std::string_view(secret.data(), secret.size()));
  return parsed;
}

}  // namespace ldp

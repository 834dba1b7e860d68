// Bearer credentials; see the header.
#include "server/core/credential.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <tuple>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/constant_time.h"
#include "common/crypto/hmac_sha256.h"
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
  CredentialSecret secret;
  for (size_t i = 0; i < kSecretBytes / 8; ++i) {
    const uint64_t word = absl::Uniform<uint64_t>(gen);
    for (int b = 0; b < 8; ++b)
      secret[8 * i + b] = static_cast<uint8_t>(word >> (8 * b));
  }
  return CredentialFromSecret(agent_id, secret);
}

IssuedCredential CredentialFromSecret(uint64_t agent_id,
                                      const CredentialSecret& secret) {
  static_assert(std::tuple_size_v<CredentialSecret> == kSecretBytes);
  // Written in place, by arithmetic: a lookup table indexed by the secret's
  // bytes (BytesToHexString's spans several cache lines) would let the
  // secret's value show in which lines were touched.
  std::string token = absl::StrCat(agent_id, ".");
  const size_t start = token.size();
  token.resize(start + 2 * kSecretBytes);
  for (size_t i = 0; i < kSecretBytes; ++i) {
    const unsigned byte = secret[i];
    token[start + 2 * i] = HexDigit(byte >> 4);
    token[start + 2 * i + 1] = HexDigit(byte & 0x0F);
  }
  return {.bearer_token = std::move(token),
          .hash = Sha256(std::string_view(
              reinterpret_cast<const char*>(secret.data()), secret.size()))};
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

// ---- Retry-safe enrollment --------------------------------------------

namespace {

// Domain separation: neither value can stand for the other, or for any
// other SHA-256 or HMAC input in the project.
constexpr std::string_view kDigestLabel{"ldp.v1 enroll request\0", 22};
constexpr std::string_view kSecretLabel{"ldp.v1 enroll bearer\0", 21};

void AppendBe32(uint32_t value, std::string& out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

}  // namespace

absl::Status CheckEnrollmentRequestId(std::string_view request_id) {
  if (request_id.empty() ||
      (request_id.size() >= kMinEnrollmentRequestIdBytes &&
       request_id.size() <= kMaxEnrollmentRequestIdBytes)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "request_id has ", request_id.size(), " bytes; send ",
      kMinEnrollmentRequestIdBytes, " to ", kMaxEnrollmentRequestIdBytes,
      " bytes drawn from a CSPRNG once per enrollment (32 is usual), or none "
      "for an enrollment that is not safe to retry"));
}

absl::StatusOr<DerivedEnrollment> DeriveEnrollment(std::string_view batch_key,
                                                   std::string_view request_id,
                                                   int count,
                                                   std::string_view csr_pem) {
  RETURN_IF_ERROR(CheckEnrollmentRequestId(request_id));
  if (request_id.empty() || count < 1) {
    return absl::InvalidArgumentError(
        "DeriveEnrollment needs a request id and at least one agent");
  }
  const char id_length = static_cast<char>(request_id.size());
  std::string digest_input(kDigestLabel);
  digest_input.append(batch_key);
  digest_input.push_back(id_length);
  digest_input.append(request_id);
  ASSIGN_OR_RETURN(const Sha256Digest csr, Sha256Of(csr_pem));
  std::string secret_input(kSecretLabel);
  secret_input.append(batch_key);
  secret_input.push_back(id_length);
  AppendBe32(static_cast<uint32_t>(count), secret_input);
  const size_t digest_prefix = digest_input.size();
  const size_t secret_prefix = secret_input.size();

  DerivedEnrollment derived;
  derived.digests.reserve(count);
  derived.secrets.reserve(count);
  for (int i = 0; i < count; ++i) {
    digest_input.resize(digest_prefix);
    AppendBe32(static_cast<uint32_t>(i), digest_input);
    ASSIGN_OR_RETURN(const Sha256Digest digest, Sha256Of(digest_input));
    derived.digests.emplace_back(DigestBytes(digest));

    secret_input.resize(secret_prefix);
    AppendBe32(static_cast<uint32_t>(i), secret_input);
    secret_input.append(DigestBytes(csr));
    ASSIGN_OR_RETURN(const Sha256Digest secret,
                     HmacSha256(request_id, secret_input));
    derived.secrets.push_back(secret);
  }
  return derived;
}

absl::Status EnrollmentRequestReused() {
  return absl::FailedPreconditionError(
      "this request_id already enrolled agents with another count or CSR: "
      "a retry must repeat the first request exactly (same token, count and "
      "CSR); draw a new request_id for a new enrollment");
}

}  // namespace ldp

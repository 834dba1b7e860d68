#include "server/core/credential.h"

#include <set>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

TEST(Credential, IssuedTokensParseToTheirAgentAndHash) {
  SeededGenerator gen(1);
  const IssuedCredential credential = IssueCredential(42, gen);
  EXPECT_EQ(credential.bearer_token.size(), 3u + 64u);
  EXPECT_EQ(credential.bearer_token.substr(0, 3), "42.");
  absl::StatusOr<ParsedToken> parsed =
      ParseBearerToken(credential.bearer_token);
  ASSERT_OK(parsed);
  EXPECT_EQ(parsed->agent_id, 42u);
  EXPECT_TRUE(SameCredentialHash(parsed->hash, credential.hash));
  // Random secrets: every digit of every one decodes back to its byte.
  for (uint64_t id = 1; id <= 500; ++id) {
    const IssuedCredential issued = IssueCredential(id, gen);
    absl::StatusOr<ParsedToken> again = ParseBearerToken(issued.bearer_token);
    ASSERT_OK(again);
    EXPECT_EQ(again->agent_id, id);
    EXPECT_TRUE(SameCredentialHash(again->hash, issued.hash)) << id;
  }
}

TEST(Credential, SecretsAreFreshAndOnlyTheirHashIsKept) {
  SeededGenerator gen(2);
  std::set<std::string> tokens;
  for (int i = 0; i < 100; ++i) {
    IssuedCredential c = IssueCredential(7, gen);
    // The token's secret never appears in the stored hash.
    EXPECT_FALSE(SameCredentialHash(c.hash, Sha256(c.bearer_token)));
    tokens.insert(c.bearer_token);
  }
  EXPECT_EQ(tokens.size(), 100u);
}

TEST(Credential, AnyChangedSecretDigitFailsTheHash) {
  SeededGenerator gen(3);
  const IssuedCredential credential = IssueCredential(9, gen);
  std::string token = credential.bearer_token;
  token.back() = token.back() == '0' ? '1' : '0';
  absl::StatusOr<ParsedToken> parsed = ParseBearerToken(token);
  ASSERT_OK(parsed);
  EXPECT_FALSE(SameCredentialHash(parsed->hash, credential.hash));
}

TEST(Credential, RejectsMalformedTokens) {
  const std::string secret(64, 'a');
  for (const std::string& token :
       {std::string(""), secret, "x." + secret, "0." + secret, "+1." + secret,
        " 1." + secret, "1." + secret.substr(1), "1." + secret + "a",
        "1." + std::string(63, 'a') + "G", "1." + std::string(63, 'a') + "A",
        "99999999999999999999." + secret}) {
    EXPECT_THAT(ParseBearerToken(token),
                StatusIs(absl::StatusCode::kUnauthenticated))
        << token;
  }
}

// Every byte value at every digit of the secret: only 0-9 and a-f pass, and
// each digit decodes to its value (the hash is of the decoded bytes).
TEST(Credential, TakesExactlyTheLowercaseHexDigits) {
  const std::string hex = "0123456789abcdef";
  for (size_t position = 0; position < 64; ++position) {
    for (int b = 0; b < 256; ++b) {
      const char c = static_cast<char>(b);
      const bool digit = hex.find(c) != std::string::npos;
      std::string secret(64, '0');
      secret[position] = c;
      absl::StatusOr<ParsedToken> parsed = ParseBearerToken("5." + secret);
      ASSERT_EQ(parsed.ok(), digit) << position << " " << b;
      if (!digit) continue;
      std::string bytes(32, '\0');
      const int value = static_cast<int>(hex.find(c));
      bytes[position / 2] =
          static_cast<char>(position % 2 == 0 ? value * 16 : value);
      ASSERT_TRUE(SameCredentialHash(parsed->hash, Sha256(bytes)))
          << position << " " << b;
      EXPECT_EQ(parsed->agent_id, 5u);
    }
  }
}

std::string Sha256String(const std::string& text) {
  const CredentialHash hash = Sha256(text);
  return std::string(hash.begin(), hash.end());
}

TEST(Credential, Sha256MatchesTheStandardVector) {
  const CredentialHash hash = Sha256("abc");
  // FIPS 180-2 test vector: ba7816bf 8f01cfea ...
  EXPECT_EQ(hash[0], 0xba);
  EXPECT_EQ(hash[1], 0x78);
  EXPECT_EQ(hash[2], 0x16);
  EXPECT_EQ(hash[31], 0xad);
}

// A retry-safe enrollment's derivations: the same call derives the same
// digests and secrets; each agent of a call its own; the digest (the key a
// retry is found by) depends on the token, id and index only, the secret
// also on the count and the CSR, so a changed retry no longer matches.
TEST(Credential, EnrollmentDerivationsBindWhatARetryMustRepeat) {
  const std::string token = Sha256String("token");
  const std::string id(32, 'i');
  const auto derive = [](const std::string& batch, const std::string& id,
                         int count, const std::string& csr) {
    absl::StatusOr<DerivedEnrollment> d =
        DeriveEnrollment(batch, id, count, csr);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *d : DerivedEnrollment{};
  };
  const DerivedEnrollment base = derive(token, id, 3, "");
  ASSERT_EQ(base.digests.size(), 3u);
  ASSERT_EQ(base.secrets.size(), 3u);
  const DerivedEnrollment again = derive(token, id, 3, "");
  EXPECT_EQ(again.digests, base.digests);
  EXPECT_EQ(again.secrets, base.secrets);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(base.digests[i].size(), 32u);
    for (int j = 0; j < i; ++j) {
      EXPECT_NE(base.digests[i], base.digests[j]);
      EXPECT_NE(base.secrets[i], base.secrets[j]);
    }
  }
  const DerivedEnrollment more = derive(token, id, 4, "");
  EXPECT_EQ(more.digests[0], base.digests[0]);
  EXPECT_NE(more.secrets[0], base.secrets[0]);
  const DerivedEnrollment csr = derive(token, id, 3, "csr");
  EXPECT_EQ(csr.digests[0], base.digests[0]);
  EXPECT_NE(csr.secrets[0], base.secrets[0]);
  const DerivedEnrollment other_token = derive(Sha256String("t2"), id, 3, "");
  EXPECT_NE(other_token.digests[0], base.digests[0]);
  EXPECT_NE(other_token.secrets[0], base.secrets[0]);
  // An id one zero byte longer is another id (HMAC pads short keys with
  // zeros; the id's length is in both inputs).
  const DerivedEnrollment longer = derive(token, id + '\0', 3, "");
  EXPECT_NE(longer.digests[0], base.digests[0]);
  EXPECT_NE(longer.secrets[0], base.secrets[0]);

  // The derived secret is an ordinary bearer token.
  const IssuedCredential issued = CredentialFromSecret(77, base.secrets[1]);
  absl::StatusOr<ParsedToken> parsed = ParseBearerToken(issued.bearer_token);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->agent_id, 77u);
  EXPECT_TRUE(SameCredentialHash(parsed->hash, issued.hash));
}

TEST(Credential, EnrollmentRequestIdsHave16To64Bytes) {
  EXPECT_TRUE(CheckEnrollmentRequestId("").ok());
  EXPECT_TRUE(CheckEnrollmentRequestId(std::string(16, 'x')).ok());
  EXPECT_TRUE(CheckEnrollmentRequestId(std::string(64, 'x')).ok());
  for (size_t size : {1, 15, 65}) {
    EXPECT_EQ(CheckEnrollmentRequestId(std::string(size, 'x')).code(),
              absl::StatusCode::kInvalidArgument)
        << size;
  }
  EXPECT_FALSE(DeriveEnrollment("b", "", 1, "").ok());
  EXPECT_FALSE(DeriveEnrollment("b", std::string(16, 'x'), 0, "").ok());
}

}  // namespace
}  // namespace ldp

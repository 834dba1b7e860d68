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

TEST(Credential, Sha256MatchesTheStandardVector) {
  const CredentialHash hash = Sha256("abc");
  // FIPS 180-2 test vector: ba7816bf 8f01cfea ...
  EXPECT_EQ(hash[0], 0xba);
  EXPECT_EQ(hash[1], 0x78);
  EXPECT_EQ(hash[2], 0x16);
  EXPECT_EQ(hash[31], 0xad);
}

}  // namespace
}  // namespace ldp

#include "server/credential.h"

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

// Every byte value, first and last of the secret: only 0-9 and a-f pass, and
// each digit decodes to its value (the hash is of the decoded bytes).
TEST(Credential, TakesExactlyTheLowercaseHexDigits) {
  const std::string hex = "0123456789abcdef";
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool digit = hex.find(c) != std::string::npos;
    for (const bool first : {true, false}) {
      std::string secret(64, '0');
      (first ? secret.front() : secret.back()) = c;
      absl::StatusOr<ParsedToken> parsed = ParseBearerToken("5." + secret);
      ASSERT_EQ(parsed.ok(), digit) << b;
      if (!digit) continue;
      std::string bytes(32, '\0');
      const int value = static_cast<int>(hex.find(c));
      (first ? bytes.front() : bytes.back()) =
          static_cast<char>(first ? value * 16 : value);
      EXPECT_TRUE(SameCredentialHash(parsed->hash, Sha256(bytes))) << b;
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

// Ed25519 against RFC 8032 section 7.1 (TESTs 1 to 3: seed to public key,
// exact signatures, verification), then what must not verify: a flipped
// bit, another message, another key; and the lengths that are refused
// before OpenSSL sees them.
#include "common/crypto/ed25519.h"

#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

struct Ed25519Vector {
  const char* seed;
  const char* public_key;
  const char* message;
  const char* signature;
};

// RFC 8032, section 7.1, TEST 1, TEST 2 and TEST 3.
constexpr Ed25519Vector kEd25519Vectors[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
     "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
};

std::string Ed25519FromHex(const char* hex) {
  return absl::HexStringToBytes(hex);
}

std::string Ed25519ToHex(std::string_view bytes) {
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

std::string_view PublicKeyBytes(const Ed25519KeyPair& key) {
  return std::string_view(reinterpret_cast<const char*>(key.public_key.data()),
                          key.public_key.size());
}

Ed25519KeyPair Ed25519VectorKey(const Ed25519Vector& vector) {
  absl::StatusOr<Ed25519KeyPair> key =
      Ed25519KeyPairFromSeed(Ed25519FromHex(vector.seed));
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : Ed25519KeyPair{};
}

TEST(Ed25519, SeedGivesTheRfcPublicKey) {
  for (const Ed25519Vector& vector : kEd25519Vectors) {
    EXPECT_EQ(Ed25519ToHex(PublicKeyBytes(Ed25519VectorKey(vector))),
              vector.public_key);
  }
}

TEST(Ed25519, SignatureIsTheRfcSignature) {
  for (const Ed25519Vector& vector : kEd25519Vectors) {
    absl::StatusOr<std::string> signature =
        Ed25519Sign(Ed25519VectorKey(vector), Ed25519FromHex(vector.message));
    ASSERT_OK(signature);
    EXPECT_EQ(Ed25519ToHex(*signature), vector.signature);
  }
}

TEST(Ed25519, RfcSignatureVerifies) {
  for (const Ed25519Vector& vector : kEd25519Vectors) {
    EXPECT_OK(Ed25519Verify(Ed25519FromHex(vector.public_key),
                            Ed25519FromHex(vector.message),
                            Ed25519FromHex(vector.signature)));
  }
}

TEST(Ed25519, FlippedSignatureBitDoesNotVerify) {
  const Ed25519Vector& vector = kEd25519Vectors[1];
  std::string signature = Ed25519FromHex(vector.signature);
  for (size_t byte : {size_t{0}, size_t{31}, size_t{32}, size_t{63}}) {
    std::string flipped = signature;
    flipped[byte] = static_cast<char>(flipped[byte] ^ 0x01);
    EXPECT_THAT(Ed25519Verify(Ed25519FromHex(vector.public_key),
                              Ed25519FromHex(vector.message), flipped),
                StatusIs(absl::StatusCode::kUnauthenticated,
                         HasSubstr("does not verify")))
        << "byte " << byte;
  }
}

TEST(Ed25519, OtherMessageDoesNotVerify) {
  const Ed25519Vector& vector = kEd25519Vectors[2];
  EXPECT_THAT(
      Ed25519Verify(Ed25519FromHex(vector.public_key), Ed25519FromHex("af83"),
                    Ed25519FromHex(vector.signature)),
      StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_THAT(Ed25519Verify(Ed25519FromHex(vector.public_key), "",
                            Ed25519FromHex(vector.signature)),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(Ed25519, OtherKeyDoesNotVerify) {
  const Ed25519Vector& signer = kEd25519Vectors[0];
  const Ed25519Vector& other = kEd25519Vectors[1];
  EXPECT_THAT(Ed25519Verify(Ed25519FromHex(other.public_key),
                            Ed25519FromHex(signer.message),
                            Ed25519FromHex(signer.signature)),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(Ed25519, WrongLengthsAreInvalidArguments) {
  const Ed25519Vector& vector = kEd25519Vectors[0];
  const std::string public_key = Ed25519FromHex(vector.public_key);
  const std::string signature = Ed25519FromHex(vector.signature);
  EXPECT_THAT(Ed25519KeyPairFromSeed(std::string(31, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seed")));
  EXPECT_THAT(Ed25519KeyPairFromSeed(std::string(33, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      Ed25519Verify(public_key.substr(1), "", signature),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("public key")));
  EXPECT_THAT(
      Ed25519Verify(public_key, "", signature.substr(1)),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("signature")));
  EXPECT_THAT(Ed25519Verify(public_key, "", signature + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Ed25519, GeneratedKeySignsAndVerifies) {
  absl::StatusOr<Ed25519KeyPair> first = GenerateEd25519KeyPair();
  absl::StatusOr<Ed25519KeyPair> second = GenerateEd25519KeyPair();
  ASSERT_OK(first);
  ASSERT_OK(second);
  EXPECT_NE(first->seed, second->seed);
  EXPECT_NE(first->public_key, second->public_key);

  // The generated public key is the seed's, as a stored seed re-creates it.
  absl::StatusOr<Ed25519KeyPair> again = Ed25519KeyPairFromSeed(std::string(
      reinterpret_cast<const char*>(first->seed.data()), first->seed.size()));
  ASSERT_OK(again);
  EXPECT_EQ(again->public_key, first->public_key);

  const std::string message = "a shuffle ticket";
  absl::StatusOr<std::string> signature = Ed25519Sign(*first, message);
  ASSERT_OK(signature);
  EXPECT_EQ(signature->size(), kEd25519SignatureBytes);
  EXPECT_OK(Ed25519Verify(PublicKeyBytes(*first), message, *signature));
  EXPECT_THAT(Ed25519Verify(PublicKeyBytes(*second), message, *signature),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

}  // namespace
}  // namespace ldp

// HPKE base mode against RFC 9180 Appendix A.2.1 (hpke_test_vectors.h),
// part by part (DeriveKeyPair, Encap/Decap, key schedule, the AEAD at six
// sequence numbers) and end to end; then the payloads that must not open:
// altered, truncated, under another info, aad or key, or with a low-order
// key.
#include "common/crypto/hpke.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "common/crypto/hpke_key_schedule.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/crypto/hpke_test_vectors.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

namespace vectors = hpke_vectors;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr std::string_view kDoesNotOpen =
    "does not open with this key, info and aad";

std::string HpkeFromHex(const char* hex) { return absl::HexStringToBytes(hex); }

std::string HpkeToHex(std::string_view bytes) {
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

std::string HpkeToHex(const HpkeKey& key) {
  return HpkeToHex(HpkeKeyBytes(key));
}

HpkeKeyPair VectorKeyPair(const char* ikm_hex) {
  absl::StatusOr<HpkeKeyPair> pair = DeriveHpkeKeyPair(HpkeFromHex(ikm_hex));
  EXPECT_TRUE(pair.ok()) << pair.status();
  return pair.ok() ? *pair : HpkeKeyPair{};
}

hpke_internal::HpkeContext VectorContext() {
  absl::StatusOr<hpke_internal::Encapsulation> encapsulation =
      hpke_internal::Encap(HpkeFromHex(vectors::kPkRm),
                           VectorKeyPair(vectors::kIkmE));
  EXPECT_TRUE(encapsulation.ok()) << encapsulation.status();
  absl::StatusOr<hpke_internal::HpkeContext> context =
      hpke_internal::HpkeContext::FromSharedSecret(encapsulation->shared_secret,
                                                   HpkeFromHex(vectors::kInfo));
  EXPECT_TRUE(context.ok()) << context.status();
  return *context;
}

TEST(Hpke, DeriveKeyPairMatchesTheRfcVector) {
  const HpkeKeyPair ephemeral = VectorKeyPair(vectors::kIkmE);
  EXPECT_EQ(HpkeToHex(ephemeral.private_key), vectors::kSkEm);
  EXPECT_EQ(HpkeToHex(ephemeral.public_key), vectors::kPkEm);
  const HpkeKeyPair recipient = VectorKeyPair(vectors::kIkmR);
  EXPECT_EQ(HpkeToHex(recipient.private_key), vectors::kSkRm);
  EXPECT_EQ(HpkeToHex(recipient.public_key), vectors::kPkRm);
}

TEST(Hpke, EncapAndDecapMatchTheRfcVector) {
  absl::StatusOr<hpke_internal::Encapsulation> encapsulation =
      hpke_internal::Encap(HpkeFromHex(vectors::kPkRm),
                           VectorKeyPair(vectors::kIkmE));
  ASSERT_TRUE(encapsulation.ok()) << encapsulation.status();
  EXPECT_EQ(HpkeToHex(encapsulation->enc), vectors::kEnc);
  EXPECT_EQ(HpkeToHex(encapsulation->shared_secret.view()),
            vectors::kSharedSecret);
  absl::StatusOr<hpke_internal::SharedSecret> decapsulated =
      hpke_internal::Decap(HpkeFromHex(vectors::kEnc),
                           VectorKeyPair(vectors::kIkmR));
  ASSERT_TRUE(decapsulated.ok()) << decapsulated.status();
  EXPECT_EQ(HpkeToHex(decapsulated->view()), vectors::kSharedSecret);
}

TEST(Hpke, KeyScheduleMatchesTheRfcVector) {
  const hpke_internal::HpkeContext context = VectorContext();
  EXPECT_EQ(HpkeToHex(context.key().view()), vectors::kKey);
  EXPECT_EQ(HpkeToHex(context.base_nonce().view()), vectors::kBaseNonce);
  EXPECT_EQ(HpkeToHex(context.exporter_secret().view()),
            vectors::kExporterSecret);
  EXPECT_EQ(context.sequence_number(), 0u);
}

// Seals messages 0 to 256 and checks each one the RFC lists; the recipient
// opens every one in turn.
TEST(Hpke, EncryptionsMatchTheRfcVectorAtEverySequenceNumberListed) {
  hpke_internal::HpkeContext sender = VectorContext();
  hpke_internal::HpkeContext recipient = VectorContext();
  const std::string plaintext = HpkeFromHex(vectors::kPlaintext);
  size_t checked = 0;
  for (uint64_t seq = 0; seq <= 256; ++seq) {
    const std::string aad = "Count-" + std::to_string(seq);
    const std::string nonce = HpkeToHex(sender.NonceFor(seq).view());
    absl::StatusOr<std::string> sealed = sender.Seal(aad, plaintext);
    ASSERT_TRUE(sealed.ok()) << sealed.status();
    EXPECT_THAT(recipient.Open(aad, *sealed), testing::IsOkAndHolds(plaintext));
    for (const vectors::Encryption& line : vectors::kEncryptions) {
      if (line.sequence_number != seq) continue;
      ++checked;
      EXPECT_EQ(HpkeToHex(aad), line.aad) << seq;
      EXPECT_EQ(nonce, line.nonce) << seq;
      EXPECT_EQ(HpkeToHex(*sealed), line.ciphertext) << seq;
    }
  }
  EXPECT_EQ(checked, std::size(vectors::kEncryptions));
  EXPECT_EQ(sender.sequence_number(), 257u);
}

TEST(Hpke, SingleShotSealAndOpenReproduceTheFirstRfcEncryption) {
  const vectors::Encryption& first = vectors::kEncryptions[0];
  absl::StatusOr<HpkeSealed> sealed = SealBaseWithEphemeralForTesting(
      HpkeFromHex(vectors::kPkRm), VectorKeyPair(vectors::kIkmE),
      HpkeFromHex(vectors::kInfo), HpkeFromHex(first.aad),
      HpkeFromHex(vectors::kPlaintext));
  ASSERT_TRUE(sealed.ok()) << sealed.status();
  EXPECT_EQ(HpkeToHex(sealed->enc), vectors::kEnc);
  EXPECT_EQ(HpkeToHex(sealed->ciphertext), first.ciphertext);
  EXPECT_THAT(OpenBase(VectorKeyPair(vectors::kIkmR),
                       HpkeFromHex(vectors::kEnc), HpkeFromHex(vectors::kInfo),
                       HpkeFromHex(first.aad), HpkeFromHex(first.ciphertext)),
              testing::IsOkAndHolds(HpkeFromHex(vectors::kPlaintext)));
}

// A fresh recipient, and one payload sealed to it under a task's binding.
class HpkeSealedPayloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<HpkeKeyPair> pair = GenerateHpkeKeyPair();
    ASSERT_TRUE(pair.ok()) << pair.status();
    recipient_ = *pair;
    absl::StatusOr<HpkeSealed> sealed =
        SealBase(HpkeKeyBytes(recipient_.public_key), kInfo, kAad, kPlaintext);
    ASSERT_TRUE(sealed.ok()) << sealed.status();
    sealed_ = *sealed;
  }

  absl::StatusOr<std::string> Open(std::string_view enc,
                                   std::string_view ciphertext,
                                   std::string_view info = kInfo,
                                   std::string_view aad = kAad) const {
    return OpenBase(recipient_, enc, info, aad, ciphertext);
  }

  static constexpr std::string_view kInfo = "ldp study 7 round 2 task 3";
  static constexpr std::string_view kAad = "report 41";
  static constexpr std::string_view kPlaintext = "bit 5 of 16";
  HpkeKeyPair recipient_;
  HpkeSealed sealed_;
};

TEST_F(HpkeSealedPayloadTest, OpensWithTheRecipientsKeyInfoAndAad) {
  EXPECT_EQ(sealed_.enc.size(), kHpkeKeyBytes);
  EXPECT_EQ(sealed_.ciphertext.size(),
            kPlaintext.size() + hpke_internal::kAeadTagBytes);
  EXPECT_THAT(Open(sealed_.enc, sealed_.ciphertext),
              testing::IsOkAndHolds(std::string(kPlaintext)));
}

TEST_F(HpkeSealedPayloadTest, SealingTwiceUsesAFreshEphemeralKey) {
  absl::StatusOr<HpkeSealed> again =
      SealBase(HpkeKeyBytes(recipient_.public_key), kInfo, kAad, kPlaintext);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_NE(again->enc, sealed_.enc);
  EXPECT_NE(again->ciphertext, sealed_.ciphertext);
  EXPECT_THAT(Open(again->enc, again->ciphertext),
              testing::IsOkAndHolds(std::string(kPlaintext)));
}

TEST_F(HpkeSealedPayloadTest, EmptyPlaintextInfoAndAadRoundTrip) {
  absl::StatusOr<HpkeSealed> empty =
      SealBase(HpkeKeyBytes(recipient_.public_key), "", "", "");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->ciphertext.size(), hpke_internal::kAeadTagBytes);
  EXPECT_THAT(OpenBase(recipient_, empty->enc, "", "", empty->ciphertext),
              testing::IsOkAndHolds(std::string()));
}

TEST_F(HpkeSealedPayloadTest, EveryFlippedCiphertextBitIsRefused) {
  for (size_t byte = 0; byte < sealed_.ciphertext.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string altered = sealed_.ciphertext;
      altered[byte] = static_cast<char>(altered[byte] ^ (1 << bit));
      EXPECT_THAT(Open(sealed_.enc, altered),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr(std::string(kDoesNotOpen))))
          << "byte " << byte << " bit " << bit;
    }
  }
}

TEST_F(HpkeSealedPayloadTest, EveryFlippedEncBitIsRefused) {
  for (size_t byte = 0; byte < sealed_.enc.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string altered = sealed_.enc;
      altered[byte] = static_cast<char>(altered[byte] ^ (1 << bit));
      EXPECT_THAT(Open(altered, sealed_.ciphertext),
                  StatusIs(absl::StatusCode::kInvalidArgument))
          << "byte " << byte << " bit " << bit;
    }
  }
}

TEST_F(HpkeSealedPayloadTest, AnotherInfoOrAadIsRefused) {
  const auto refused = StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr(std::string(kDoesNotOpen)));
  EXPECT_THAT(
      Open(sealed_.enc, sealed_.ciphertext, "ldp study 7 round 2 task 4"),
      refused);
  EXPECT_THAT(Open(sealed_.enc, sealed_.ciphertext, "", kAad), refused);
  EXPECT_THAT(Open(sealed_.enc, sealed_.ciphertext, kInfo, "report 42"),
              refused);
  EXPECT_THAT(Open(sealed_.enc, sealed_.ciphertext, kInfo, ""), refused);
}

TEST_F(HpkeSealedPayloadTest, AnotherRecipientKeyIsRefused) {
  absl::StatusOr<HpkeKeyPair> other = GenerateHpkeKeyPair();
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->public_key, recipient_.public_key);
  EXPECT_THAT(OpenBase(*other, sealed_.enc, kInfo, kAad, sealed_.ciphertext),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(std::string(kDoesNotOpen))));
}

TEST_F(HpkeSealedPayloadTest, TruncatedOrPaddedEncIsRefusedBySize) {
  const std::string_view enc = sealed_.enc;
  for (std::string_view wrong :
       {enc.substr(0, 31), enc.substr(0, 0), std::string_view(enc.data(), 1)}) {
    EXPECT_THAT(Open(wrong, sealed_.ciphertext),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("an X25519 key has 32")));
  }
  EXPECT_THAT(
      Open(sealed_.enc + "x", sealed_.ciphertext),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 33 bytes")));
}

TEST_F(HpkeSealedPayloadTest, TruncatedCiphertextIsRefused) {
  const std::string& ciphertext = sealed_.ciphertext;
  for (size_t size = hpke_internal::kAeadTagBytes; size < ciphertext.size();
       ++size) {
    EXPECT_THAT(Open(sealed_.enc, ciphertext.substr(0, size)),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(std::string(kDoesNotOpen))))
        << size;
  }
  for (size_t size = 0; size < hpke_internal::kAeadTagBytes; ++size) {
    EXPECT_THAT(Open(sealed_.enc, ciphertext.substr(0, size)),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("it was truncated")))
        << size;
  }
}

// u = 0 and u = 1 are points of small order: X25519 with either is all
// zero, whatever the private key.
TEST_F(HpkeSealedPayloadTest, LowOrderKeysAreRefused) {
  const std::string zero(kHpkeKeyBytes, '\0');
  std::string one = zero;
  one[0] = 1;
  for (const std::string& low_order : {zero, one}) {
    EXPECT_THAT(SealBase(low_order, kInfo, kAad, kPlaintext),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("shared secret with the recipient's public "
                                   "key is all zero")));
    EXPECT_THAT(Open(low_order, sealed_.ciphertext),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("shared secret with enc is all zero")));
  }
}

TEST(Hpke, SealRefusesAPublicKeyOfTheWrongSize) {
  for (size_t size : {0, 16, 31, 33, 65}) {
    EXPECT_THAT(SealBase(std::string(size, '\x09'), "info", "aad", "text"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("the recipient's public key has " +
                                   std::to_string(size) + " bytes")));
  }
}

TEST(Hpke, DeriveKeyPairRefusesShortSeedsAndIsDeterministic) {
  EXPECT_THAT(DeriveHpkeKeyPair(std::string(31, 'k')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at least 32 bytes")));
  const HpkeKeyPair first = *DeriveHpkeKeyPair(std::string(40, 'k'));
  const HpkeKeyPair second = *DeriveHpkeKeyPair(std::string(40, 'k'));
  EXPECT_EQ(first.private_key, second.private_key);
  EXPECT_EQ(first.public_key, second.public_key);
  EXPECT_NE(DeriveHpkeKeyPair(std::string(40, 'j'))->public_key,
            first.public_key);
}

TEST(Hpke, GeneratedKeyPairsDifferAndTheirPublicKeyIsTheirOwn) {
  absl::StatusOr<HpkeKeyPair> first = GenerateHpkeKeyPair();
  absl::StatusOr<HpkeKeyPair> second = GenerateHpkeKeyPair();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->private_key, second->private_key);
  EXPECT_NE(first->public_key, second->public_key);
  // The public key is the private key's: the DH of an ephemeral key with
  // it is what Decap computes from the private key.
  absl::StatusOr<HpkeSealed> sealed =
      SealBase(HpkeKeyBytes(first->public_key), "i", "a", "p");
  ASSERT_TRUE(sealed.ok()) << sealed.status();
  EXPECT_THAT(OpenBase(*first, sealed->enc, "i", "a", sealed->ciphertext),
              testing::IsOkAndHolds(std::string("p")));
}

}  // namespace
}  // namespace ldp

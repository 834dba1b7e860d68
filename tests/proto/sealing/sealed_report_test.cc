// The shuffle model's sealing (types.proto, "The shuffle model"): a report
// opens only under its own study, round, task, question and key; its
// padded length is the same for every value of a question; malformed
// plaintexts are refused; the question digest ignores what differs between
// agents; and tickets verify only with the server's key.
#include "proto/sealing/sealed_report.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/crypto/hpke.h"
#include "common/crypto/random_bytes.h"
#include "common/crypto/sha256.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/sealing/padded_report.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr uint64_t kStudyId = 7;
constexpr uint64_t kRoundId = 3;
constexpr uint32_t kQuestion = 2;
constexpr std::string_view kDoesNotOpen = "sealed report does not open";

std::string RandomReportId() {
  std::string id(16, '\0');
  EXPECT_OK(FillRandomBytes(id.data(), id.size()));
  return id;
}

uint64_t RandomSeed() {
  absl::StatusOr<uint64_t> word = RandomWord();
  EXPECT_OK(word);
  return word.ok() ? *word : 0;
}

v1::Task SealingTask() {
  v1::Task task;
  task.set_study_id(kStudyId);
  task.set_round_id(kRoundId);
  task.set_task_id(123456);
  task.mutable_randomizer()->set_epsilon_nanos(1'000'000'000);
  task.mutable_randomizer()->set_domain_size(1000);
  task.mutable_randomizer()->mutable_grr();
  task.set_epsilon_nanos(1'000'000'000);
  task.mutable_deadline()->set_seconds(1'900'000'000);
  return task;
}

class SealedReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<HpkeKeyPair> hpke = GenerateHpkeKeyPair();
    absl::StatusOr<Ed25519KeyPair> signer = GenerateEd25519KeyPair();
    ASSERT_OK(hpke);
    ASSERT_OK(signer);
    server_key_ = *hpke;
    ticket_key_ = *signer;
    ticket_.set_agent_id(42);
    ticket_.set_study_id(kStudyId);
    ticket_.set_round_id(kRoundId);
    ticket_.set_shuffled_task_id(ShuffledTaskId(kRoundId, kQuestion));
    ticket_.set_key_id(HpkeKeyId(PublicKey()));
    ticket_.set_question_digest(QuestionDigest(SealingTask()));
    ticket_.set_min_batch(100);
    ticket_.mutable_deadline()->set_seconds(1'900'000'000);
    absl::StatusOr<v1::SignedShuffleTicket> signed_ticket =
        SignTicket(ticket_, ticket_key_);
    ASSERT_OK(signed_ticket);
    params_.set_hpke_public_key(std::string(PublicKey()));
    *params_.mutable_ticket() = *signed_ticket;
  }

  std::string_view PublicKey() const {
    return HpkeKeyBytes(server_key_.public_key);
  }

  std::string TicketPublicKey() const {
    return std::string(
        reinterpret_cast<const char*>(ticket_key_.public_key.data()),
        ticket_key_.public_key.size());
  }

  // The header a shuffler sends for the ticket's batch.
  v1::ShuffledBatchHeader Header() const {
    v1::ShuffledBatchHeader header;
    header.set_batch_id(std::string(16, 'b'));
    header.set_study_id(ticket_.study_id());
    header.set_round_id(ticket_.round_id());
    header.set_shuffled_task_id(ticket_.shuffled_task_id());
    header.set_key_id(ticket_.key_id());
    header.set_question_digest(ticket_.question_digest());
    header.set_num_reports(1);
    return header;
  }

  v1::Report BaseReport() const {
    v1::Report report;
    report.set_protocol_version(1);
    report.set_task_id(ticket_.shuffled_task_id());
    report.set_report_id(RandomReportId());
    return report;
  }

  v1::Report ItemReport(uint32_t item) const {
    v1::Report report = BaseReport();
    report.mutable_item()->set_item(item);
    return report;
  }

  v1::SealedPayload Seal(const v1::Report& report) const {
    absl::StatusOr<v1::SealedPayload> payload = SealReport(report, params_);
    EXPECT_OK(payload);
    return payload.ok() ? *payload : v1::SealedPayload();
  }

  HpkeKeyPair server_key_;
  Ed25519KeyPair ticket_key_;
  v1::ShuffleTicket ticket_;
  v1::ShuffleParams params_;
};

TEST_F(SealedReportTest, SealThenOpenReturnsTheReport) {
  std::vector<v1::Report> reports = {ItemReport(17), BaseReport(), BaseReport(),
                                     BaseReport()};
  reports[1].mutable_hashed()->set_seed(RandomSeed());
  reports[1].mutable_hashed()->set_bucket(5);
  reports[2].mutable_scalar()->set_level(-12345);
  reports[3].mutable_bit_vector()->set_packed(std::string("\x05\x80", 2));
  reports[3].mutable_bit_vector()->set_bit_length(9);
  for (const v1::Report& report : reports) {
    const v1::SealedPayload payload = Seal(report);
    EXPECT_EQ(payload.enc().size(), kHpkeKeyBytes);
    EXPECT_EQ(payload.ciphertext().size(), PadReport(report).size() + 16);
    absl::StatusOr<v1::Report> opened =
        OpenReport(server_key_, Header(), payload);
    ASSERT_OK(opened);
    EXPECT_TRUE(MessageDifferencer::Equals(*opened, report))
        << opened->DebugString() << " vs " << report.DebugString();
  }
}

TEST_F(SealedReportTest, TamperedPayloadDoesNotOpen) {
  const v1::SealedPayload payload = Seal(ItemReport(3));
  for (size_t byte : {size_t{0}, payload.ciphertext().size() / 2,
                      payload.ciphertext().size() - 1}) {
    v1::SealedPayload tampered = payload;
    (*tampered.mutable_ciphertext())[byte] ^= 0x01;
    EXPECT_THAT(
        OpenReport(server_key_, Header(), tampered),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kDoesNotOpen)))
        << "ciphertext byte " << byte;
  }
  v1::SealedPayload tampered = payload;
  (*tampered.mutable_enc())[5] ^= 0x01;
  EXPECT_THAT(
      OpenReport(server_key_, Header(), tampered),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kDoesNotOpen)));
}

TEST_F(SealedReportTest, PayloadDoesNotOpenUnderAnotherHeaderOrKey) {
  const v1::SealedPayload payload = Seal(ItemReport(3));
  std::vector<v1::ShuffledBatchHeader> others(5, Header());
  others[0].set_study_id(kStudyId + 1);
  others[1].set_round_id(kRoundId + 1);
  others[2].set_shuffled_task_id(ShuffledTaskId(kRoundId, kQuestion + 1));
  (*others[3].mutable_question_digest())[0] ^= 0x01;
  others[4].set_key_id("otherkey");
  for (const v1::ShuffledBatchHeader& header : others) {
    EXPECT_THAT(
        OpenReport(server_key_, header, payload),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kDoesNotOpen)))
        << header.DebugString();
  }
  absl::StatusOr<HpkeKeyPair> other_key = GenerateHpkeKeyPair();
  ASSERT_OK(other_key);
  EXPECT_THAT(
      OpenReport(*other_key, Header(), payload),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(kDoesNotOpen)));
}

TEST_F(SealedReportTest, OpenedReportMustCarryTheShuffledIdsOnly) {
  v1::Report report = ItemReport(3);
  report.set_agent_id(42);  // SealReport refuses it; seal by hand.
  absl::StatusOr<std::string> aad = SealedReportAad(ticket_);
  ASSERT_OK(aad);
  absl::StatusOr<HpkeSealed> sealed =
      SealBase(PublicKey(), SealedReportInfo(), *aad, PadReport(report));
  ASSERT_OK(sealed);
  v1::SealedPayload payload;
  payload.set_enc(sealed->enc);
  payload.set_ciphertext(sealed->ciphertext);
  EXPECT_THAT(
      OpenReport(server_key_, Header(), payload),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("agent_id 0")));
}

// Every padded length (and so every ciphertext length) of one question's
// reports is equal, whatever the value; `make` builds the report of value i.
template <typename MakeReport>
void ExpectOneLength(int from, int to, int step, MakeReport make,
                     const v1::ShuffleParams& params) {
  // The max-width sizes too: equal padded lengths could be rounding alone.
  std::set<size_t> max_widths;
  std::set<size_t> padded_lengths;
  std::set<size_t> sealed_lengths;
  for (int value = from; value <= to; value += step) {
    const v1::Report report = make(value);
    ASSERT_EQ(report.report_id().size(), 16u);
    max_widths.insert(sealing_internal::MaxWidthSize(report));
    padded_lengths.insert(PadReport(report).size());
    absl::StatusOr<v1::SealedPayload> payload = SealReport(report, params);
    ASSERT_OK(payload);
    sealed_lengths.insert(payload->ciphertext().size());
  }
  EXPECT_EQ(max_widths.size(), 1u) << "from " << from << " to " << to;
  EXPECT_EQ(padded_lengths.size(), 1u) << "from " << from << " to " << to;
  EXPECT_EQ(sealed_lengths.size(), 1u);
  EXPECT_EQ(*sealed_lengths.begin(), *padded_lengths.begin() + 16);
}

TEST_F(SealedReportTest, PaddedLengthDoesNotDependOnTheValue) {
  ExpectOneLength(
      0, 999, 1, [&](int item) { return ItemReport(item); }, params_);
  ExpectOneLength(
      0, 1023, 1,
      [&](int bucket) {
        v1::Report report = BaseReport();
        report.mutable_hashed()->set_seed(RandomSeed());
        report.mutable_hashed()->set_bucket(bucket);
        return report;
      },
      params_);
  ExpectOneLength(
      -100000, 100000, 1000,
      [&](int level) {
        v1::Report report = BaseReport();
        report.mutable_scalar()->set_level(level);
        return report;
      },
      params_);
  ExpectOneLength(
      0, 1, 1,
      [&](int fill) {
        v1::Report report = BaseReport();
        report.mutable_bit_vector()->set_packed(
            std::string(125, fill == 0 ? '\0' : '\xff'));
        report.mutable_bit_vector()->set_bit_length(1000);
        return report;
      },
      params_);
}

TEST_F(SealedReportTest, PaddedLengthIsTheMaxWidthRoundedUp) {
  // protocol_version, task_id, agent_id: 1 + 10 each; report_id: 1 + 5 +
  // 16; item (field 10): 1 + 5 + (1 + 10). 72 bytes, rounded up to 128.
  const v1::Report report = ItemReport(0);
  EXPECT_EQ(sealing_internal::MaxWidthSize(report), 72u);
  EXPECT_EQ(PadReport(report).size(), 4u + 128u);
  // The widest values still fit, and round trip.
  v1::Report widest = ItemReport(UINT32_MAX);
  widest.set_protocol_version(UINT32_MAX);
  widest.set_task_id(UINT64_MAX);
  widest.set_agent_id(UINT64_MAX);
  const std::string padded = PadReport(widest);
  EXPECT_EQ(padded.size(), 4u + 128u);
  absl::StatusOr<v1::Report> unpadded = UnpadReport(padded);
  ASSERT_OK(unpadded);
  EXPECT_TRUE(MessageDifferencer::Equals(*unpadded, widest));
}

TEST_F(SealedReportTest, UnpadRefusesMalformedPlaintexts) {
  const std::string padded = PadReport(ItemReport(9));
  ASSERT_OK(UnpadReport(padded));

  std::string nonzero = padded;
  nonzero.back() = '\x01';
  EXPECT_THAT(UnpadReport(nonzero), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("not all zero")));

  std::string overrun = padded;
  const size_t too_long = padded.size() - 3;
  overrun[2] = static_cast<char>(too_long >> 8);
  overrun[3] = static_cast<char>(too_long & 0xff);
  EXPECT_THAT(UnpadReport(overrun), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("length prefix")));

  EXPECT_THAT(UnpadReport(padded + std::string(64, '\0')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its report pads to")));
  EXPECT_THAT(UnpadReport(padded.substr(0, padded.size() - 1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its report pads to")));
  EXPECT_THAT(UnpadReport("abc"), StatusIs(absl::StatusCode::kInvalidArgument));

  std::string garbage(4 + 128, '\0');
  garbage[3] = 3;
  garbage[4] = garbage[5] = garbage[6] = '\xff';
  EXPECT_THAT(UnpadReport(garbage), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("does not parse")));

  // Field 1 written as an explicit zero: it parses to the empty report, whose
  // one encoding is zero bytes, so a second padding of it must be refused.
  std::string explicit_default(4 + 64, '\0');
  explicit_default[3] = 2;
  explicit_default[4] = '\x08';
  EXPECT_THAT(UnpadReport(explicit_default),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not the deterministic encoding")));
}

TEST(SealedReportIds, QuestionDigestIgnoresTaskIdAndShuffle) {
  const v1::Task task = SealingTask();
  const std::string digest = QuestionDigest(task);
  EXPECT_EQ(digest.size(), kSha256Bytes);

  v1::Task other_agent = task;
  other_agent.set_task_id(999999);
  other_agent.mutable_shuffle()->set_hpke_public_key(std::string(32, 'k'));
  other_agent.mutable_shuffle()->mutable_ticket()->set_ticket("agent 43");
  EXPECT_EQ(QuestionDigest(other_agent), digest);

  v1::Task other_epsilon = task;
  other_epsilon.mutable_randomizer()->set_epsilon_nanos(2'000'000'000);
  EXPECT_NE(QuestionDigest(other_epsilon), digest);
}

TEST(SealedReportIds, KeyIdTaskIdAndAadLayout) {
  const std::string public_key(32, 'p');
  absl::StatusOr<Sha256Digest> digest = Sha256Of(public_key);
  ASSERT_OK(digest);
  EXPECT_EQ(HpkeKeyId(public_key), DigestBytes(*digest).substr(0, 8));
  EXPECT_EQ(ShuffledTaskId(3, 2), (uint64_t{3} << 44) | 2);
  EXPECT_EQ(SealedReportInfo(), "ldp.v1 shuffled report");

  v1::ShuffleTicket ticket;
  ticket.set_study_id(0x0102030405060708);
  ticket.set_round_id(9);
  ticket.set_shuffled_task_id(ShuffledTaskId(9, 1));
  ticket.set_key_id("KEYID-08");
  ticket.set_question_digest(std::string(32, 'q'));
  absl::StatusOr<std::string> aad = SealedReportAad(ticket);
  ASSERT_OK(aad);
  EXPECT_EQ(*aad, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8) +
                      std::string("\0\0\0\0\0\0\0\x09", 8) +
                      std::string("\0\0\x90\0\0\0\0\x01", 8) + "KEYID-08" +
                      std::string(32, 'q'));
  ticket.set_key_id("short");
  EXPECT_THAT(SealedReportAad(ticket),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(SealedReportTest, SealRefusesMismatchedParamsAndReports) {
  v1::ShuffleTicket other_key = ticket_;
  other_key.set_key_id("otherkey");
  absl::StatusOr<v1::SignedShuffleTicket> signed_other =
      SignTicket(other_key, ticket_key_);
  ASSERT_OK(signed_other);
  v1::ShuffleParams params = params_;
  *params.mutable_ticket() = *signed_other;
  EXPECT_THAT(
      SealReport(ItemReport(1), params),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("another key")));

  params = params_;
  params.mutable_ticket()->set_ticket("\xff\xff");
  EXPECT_THAT(SealReport(ItemReport(1), params),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not parse")));

  params = params_;
  params.set_hpke_public_key(std::string(31, 'k'));
  EXPECT_THAT(SealReport(ItemReport(1), params),
              StatusIs(absl::StatusCode::kInvalidArgument));

  v1::Report with_agent = ItemReport(1);
  with_agent.set_agent_id(42);
  EXPECT_THAT(SealReport(with_agent, params_),
              StatusIs(absl::StatusCode::kInvalidArgument));
  v1::Report per_agent_task = ItemReport(1);
  per_agent_task.set_task_id(123456);
  EXPECT_THAT(SealReport(per_agent_task, params_),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(SealedReportTest, TicketVerifiesWithTheServersKeyOnly) {
  absl::StatusOr<v1::ShuffleTicket> verified =
      VerifyTicket(params_.ticket(), TicketPublicKey());
  ASSERT_OK(verified);
  EXPECT_TRUE(MessageDifferencer::Equals(*verified, ticket_));

  absl::StatusOr<Ed25519KeyPair> other = GenerateEd25519KeyPair();
  ASSERT_OK(other);
  const std::string other_public(
      reinterpret_cast<const char*>(other->public_key.data()), 32);
  EXPECT_THAT(VerifyTicket(params_.ticket(), other_public),
              StatusIs(absl::StatusCode::kUnauthenticated));

  v1::SignedShuffleTicket modified = params_.ticket();
  (*modified.mutable_ticket())[1] ^= 0x01;
  EXPECT_THAT(VerifyTicket(modified, TicketPublicKey()),
              StatusIs(absl::StatusCode::kUnauthenticated));
  modified = params_.ticket();
  modified.set_signature(modified.signature().substr(1));
  EXPECT_THAT(VerifyTicket(modified, TicketPublicKey()),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(SealedReportTest, TicketMissingAFieldIsRefused) {
  v1::ShuffleTicket no_deadline = ticket_;
  no_deadline.clear_deadline();
  EXPECT_THAT(
      SignTicket(no_deadline, ticket_key_),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deadline")));

  // Signed anyway (a server from before the check): the shuffler refuses.
  for (const std::string& bytes :
       {no_deadline.SerializeAsString(), std::string("\xff\xff")}) {
    v1::SignedShuffleTicket signed_ticket;
    signed_ticket.set_ticket(bytes);
    absl::StatusOr<std::string> signature = Ed25519Sign(ticket_key_, bytes);
    ASSERT_OK(signature);
    signed_ticket.set_signature(*signature);
    EXPECT_THAT(VerifyTicket(signed_ticket, TicketPublicKey()),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  v1::ShuffleTicket no_agent = ticket_;
  no_agent.set_agent_id(0);
  EXPECT_THAT(
      SignTicket(no_agent, ticket_key_),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("agent_id")));
}

}  // namespace
}  // namespace ldp

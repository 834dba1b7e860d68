// The wire's RAPPOR question is a histogram question in the domain types,
// so the planner, the tasks and the stores need nothing of their own for
// it; only the estimate (task_estimation) reads the candidates.
#include "proto/convert/rappor_question_convert.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/queries/string_digest.h"
#include "proto/convert/randomizer_convert.h"

namespace ldp {
namespace {

absl::Status CheckRandomizer(const v1::RandomizerSpec& randomizer) {
  v1::RandomizerSpec rest = randomizer;
  rest.clear_epsilon_nanos();
  if (rest.ByteSizeLong() != 0) {
    return absl::InvalidArgumentError(
        "a rappor question's randomizer may set only epsilon_nanos: its "
        "Bloom filter and ε∞ are in rappor.rappor");
  }
  return absl::OkStatus();
}

absl::StatusOr<CandidateStrings> CandidatesFromProto(
    const v1::RapporQuestion& proto) {
  if (proto.candidates().empty() ||
      proto.candidates_size() > static_cast<int>(kMaxRapporCandidates)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor.candidates needs 1 to ", kMaxRapporCandidates,
                     " strings, got ", proto.candidates_size()));
  }
  const double q = proto.false_discovery_rate();
  if (!(q >= 0 && q < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor.false_discovery_rate must be in (0, 1), or 0 for 0.05; got ",
        q));
  }
  return CandidateStrings{
      .strings = {proto.candidates().begin(), proto.candidates().end()},
      .false_discovery_rate = q == 0 ? 0.05 : q};
}

// The Bloom filter's seed, also the digest's: the analyst's, checked, or
// the first that tells the candidates apart.
absl::StatusOr<uint64_t> DigestSeed(const v1::RapporQuestion& proto,
                                    const CandidateStrings& candidates,
                                    uint32_t bit_length) {
  const uint64_t seed = proto.rappor().hash_seed();
  if (seed == 0) return FirstDistinctSeed(candidates.strings, bit_length);
  RETURN_IF_ERROR(
      CandidateDigests(candidates.strings, bit_length, seed).status());
  return seed;
}

}  // namespace

absl::StatusOr<HistogramQuestion> RapporQuestionFromProto(
    const v1::Question& proto, const RecordSchema& schema) {
  const v1::RapporQuestion& r = proto.rappor();
  RETURN_IF_ERROR(CheckRandomizer(proto.randomizer()));
  const FieldSpec* field = schema.Find(r.field());
  if (field == nullptr || field->kind != FieldKind::kBitVector) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor.field must name a bit-vector field holding the string; \"",
        r.field(), "\" ",
        field == nullptr ? "is not in the schema" : "is not a bit vector"));
  }
  ASSIGN_OR_RETURN(CandidateStrings candidates, CandidatesFromProto(r));
  ASSIGN_OR_RETURN(const uint64_t seed,
                   DigestSeed(r, candidates, field->bit_length));
  const uint64_t permanent = r.rappor().epsilon_permanent_nanos();
  if (permanent > uint64_t{std::numeric_limits<int64_t>::max()}) {
    return absl::InvalidArgumentError(
        "rappor.rappor.epsilon_permanent_nanos must be below 2^63");
  }
  ASSIGN_OR_RETURN(
      DomainEncoding encoding,
      DomainEncoding::Create(DigestEncoding{.field = r.field(), .seed = seed},
                             schema));
  FrequencyOracleSpec oracle{
      .kind = FrequencyOracleKind::kRappor,
      .domain_size = encoding.domain_size(),
      .num_hashes = r.rappor().num_hashes(),
      .num_columns = r.rappor().num_bits(),
      .hash_seed = seed,
      .epsilon_permanent = NanosToEpsilon(static_cast<int64_t>(permanent)),
      .num_cohorts = r.rappor().num_cohorts()};
  return HistogramQuestion{.encoding = std::move(encoding),
                           .oracle = oracle,
                           .candidates = std::move(candidates)};
}

void RapporQuestionToProto(const HistogramQuestion& question,
                           v1::Question* proto) {
  v1::RapporQuestion* r = proto->mutable_rappor();
  r->set_field(std::get<DigestEncoding>(question.encoding.spec()).field);
  for (const std::string& s : question.candidates->strings) {
    r->add_candidates(s);
  }
  r->set_false_discovery_rate(question.candidates->false_discovery_rate);
  const FrequencyOracleSpec& oracle = *question.oracle;
  v1::RapporSpec* spec = r->mutable_rappor();
  spec->set_epsilon_permanent_nanos(
      static_cast<uint64_t>(EpsilonToNanos(oracle.epsilon_permanent)));
  spec->set_num_bits(oracle.num_columns);
  spec->set_num_hashes(oracle.num_hashes);
  spec->set_num_cohorts(oracle.num_cohorts);
  spec->set_hash_seed(oracle.hash_seed);
}

}  // namespace ldp

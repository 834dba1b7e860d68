// The sequence-fragment puzzle: fragments tied to a hash, stitched, then
// checked; see the header for the protocol.
#include "planning/programs/sequence_fragments.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/frequency/pairwise_hash.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "planning/programs/bit_candidates.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

constexpr int64_t kMaxFragmentBits = 12;
constexpr int64_t kMaxHashBits = 12;
// A fragment question's domain is at most 2^20 items, so the server
// decodes it in one pass however the planner answers it.
constexpr int64_t kMaxFragmentItemBits = 20;
constexpr int64_t kMaxFragmentsKept = 4096;

struct SfpConfig {
  std::string field;
  int field_length = 0;
  int bits = 0;
  int k = 0;
  int hash_bits = 0;
  uint64_t hash_seed = 0;
  int fragments = 0;
  double threshold_sigmas = 0;
  int max_candidates = 0;
  std::vector<int> widths;  // of the P pieces; their sum is `bits`
};

bool MaskBit(uint64_t hash_seed, int bits, int j, int i) {
  return PairwiseHash::SplitMix64(hash_seed, uint64_t(j) * bits + i) & 1;
}

// Σ of `terms` as a balanced tree, so the depth grows as log |terms|.
QueryNode SumOf(std::vector<QueryNode>& terms, size_t begin, size_t end) {
  if (end - begin == 1) return std::move(terms[begin]);
  const size_t mid = (begin + end) / 2;
  return expr::Add(SumOf(terms, begin, mid), SumOf(terms, mid, end));
}

// Question t: the item H(x)·2^w + piece t of x.
absl::StatusOr<Question> FragmentQuestion(const SfpConfig& config, int t,
                                          int64_t epsilon_nanos,
                                          const RecordSchema& schema) {
  int begin = 0;
  for (int u = 0; u < t; ++u) begin += config.widths[u];
  const int w = config.widths[t];
  std::vector<QueryNode> terms;
  for (int j = 0; j < config.hash_bits; ++j) {
    std::vector<bool> mask(config.field_length, false);
    for (int i = 0; i < config.bits; ++i) {
      mask[i] = MaskBit(config.hash_seed, config.bits, j, i);
    }
    terms.push_back(
        expr::Mul(expr::Constant(std::ldexp(1.0, w + config.hash_bits - 1 - j)),
                  expr::MaskedParity(config.field, std::move(mask))));
  }
  for (int i = 0; i < w; ++i) {
    terms.push_back(expr::Mul(expr::Constant(std::ldexp(1.0, w - 1 - i)),
                              expr::BitAt(config.field, begin + i)));
  }
  const uint32_t items = uint32_t{1} << (config.hash_bits + w);
  const size_t count = terms.size();
  ASSIGN_OR_RETURN(Query query,
                   Query::Create(SumOf(terms, 0, count),
                                 {.lower = 0, .upper = items - 1.0}, schema));
  ASSIGN_OR_RETURN(
      DomainEncoding encoding,
      DomainEncoding::Create(
          QueryValueEncoding{.query = std::move(query), .domain_size = items},
          schema));
  return Question{.id = absl::StrCat("fragment_", t),
                  .kind = HistogramQuestion{.encoding = std::move(encoding)},
                  .epsilon_nanos = epsilon_nanos};
}

// A value being stitched: the hash it is stitched under, its pieces so far
// and the smallest estimate among them.
struct Partial {
  uint32_t hash = 0;
  std::vector<bool> bits{};
  double score = 0;
};

// Partials extended by the significant fragments of position t that share
// their hash (position 0 starts one partial per fragment), the
// max_candidates best kept.
std::vector<Partial> Stitch(const SfpConfig& config, int t,
                            const HistogramEstimate& h,
                            const std::vector<Partial>& partials) {
  const int w = config.widths[t];
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_hash;
  for (uint32_t item :
       TopItems(h, 0, config.fragments, config.threshold_sigmas)) {
    by_hash[item >> w].push_back(item);
  }
  std::vector<Partial> next;
  const auto extend = [&](const Partial& p, uint32_t item) {
    Partial q{.hash = item >> w,
              .bits = p.bits,
              .score = std::min(p.score, h.frequencies[item])};
    for (int j = w; j-- > 0;) q.bits.push_back((item >> j) & 1);
    next.push_back(std::move(q));
  };
  if (t == 0) {
    const Partial empty{.score = std::numeric_limits<double>::infinity()};
    for (const auto& [hash, items] : by_hash) {
      for (uint32_t item : items) extend(empty, item);
    }
  } else {
    for (const Partial& p : partials) {
      const auto it = by_hash.find(p.hash);
      if (it == by_hash.end()) continue;
      for (uint32_t item : it->second) extend(p, item);
    }
  }
  // Best first, ties by the bits, so that replays agree.
  std::sort(next.begin(), next.end(), [](const Partial& a, const Partial& b) {
    return a.score > b.score || (a.score == b.score && a.bits < b.bits);
  });
  if (next.size() > size_t(config.max_candidates)) {
    next.resize(config.max_candidates);
  }
  return next;
}

class SequenceFragmentsProgram final : public AnalystProgram {
 public:
  SequenceFragmentsProgram(ProgramContext context, SfpConfig config)
      : context_(std::move(context)), config_(std::move(config)) {}

  std::vector<ScheduledRound> Schedule() const override {
    const double p = static_cast<double>(config_.widths.size());
    const double split = p / (p + 1);
    return {{.name = "fragments",
             .slice = {.begin = 0, .end = split},
             .epsilon_nanos = context_.epsilon_cap_nanos},
            {.name = "words",
             .slice = {.begin = split, .end = 1},
             .epsilon_nanos = context_.epsilon_cap_nanos}};
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    if (history.empty()) {
      ProgramRound round;
      for (int t = 0; t < int(config_.widths.size()); ++t) {
        ASSIGN_OR_RETURN(
            Question q, FragmentQuestion(config_, t, context_.epsilon_cap_nanos,
                                         context_.schema));
        round.questions.push_back(std::move(q));
      }
      return ProgramStep{
          .round = std::move(round),
          .result = {.summary = absl::StrCat("asking ", config_.widths.size(),
                                             " fragments")}};
    }
    if (history.size() > 2) {
      return absl::InternalError(absl::StrCat(
          "sequence_fragments: ", history.size(), " rounds of history for 2"));
    }
    ASSIGN_OR_RETURN(std::vector<BitCandidate> candidates,
                     Candidates(history[0]));
    if (candidates.empty()) {
      return ProgramStep{.result =
                             RankedResult({}, config_.k, config_.field,
                                          config_.bits, context_.confidence)};
    }
    if (history.size() == 1) {
      ASSIGN_OR_RETURN(
          Question q,
          ExtensionQuestion("words", config_.field, candidates, 0,
                            context_.epsilon_cap_nanos, context_.schema));
      return ProgramStep{
          .round = ProgramRound{.questions = {std::move(q)}},
          .result = {.summary = absl::StrCat("checking ", candidates.size(),
                                             " stitched candidates")}};
    }
    ASSIGN_OR_RETURN(const HistogramEstimate* h,
                     HistogramAnswer(history[1], 0, 1 + candidates.size(),
                                     "sequence_fragments", 2));
    const std::vector<BitCandidate> found = Recounted(candidates, *h);
    return ProgramStep{.result =
                           RankedResult(found, config_.k, config_.field,
                                        config_.bits, context_.confidence)};
  }

 private:
  // Round 1's fragments stitched into whole candidates whose own hash
  // agrees, in stitching order.
  absl::StatusOr<std::vector<BitCandidate>> Candidates(
      const RoundAnswers& round) const {
    std::vector<Partial> partials;
    for (int t = 0; t < int(config_.widths.size()); ++t) {
      ASSIGN_OR_RETURN(
          const HistogramEstimate* h,
          HistogramAnswer(round, t,
                          size_t{1} << (config_.hash_bits + config_.widths[t]),
                          "sequence_fragments", 1));
      partials = Stitch(config_, t, *h, partials);
    }
    std::vector<BitCandidate> candidates;
    for (Partial& p : partials) {
      if (FragmentHash(p.bits, config_.bits, config_.hash_bits,
                       config_.hash_seed) == p.hash) {
        candidates.push_back({.bits = std::move(p.bits)});
      }
    }
    return candidates;
  }

  const ProgramContext context_;
  const SfpConfig config_;
};

absl::StatusOr<SfpConfig> ReadSfpConfig(ProgramParameters& params,
                                        const RecordSchema& schema) {
  SfpConfig config;
  ASSIGN_OR_RETURN(const SearchedBits searched,
                   ReadSearchedBits(params, schema, "sequence_fragments"));
  config.field = searched.field;
  config.field_length = searched.field_length;
  const int64_t bits = searched.bits;
  const int64_t k = searched.k;
  ASSIGN_OR_RETURN(const int64_t s,
                   params.Int("fragment_bits", 8, 1, kMaxFragmentBits));
  ASSIGN_OR_RETURN(const int64_t hash_bits,
                   params.Int("hash_bits", 8, 0, kMaxHashBits));
  ASSIGN_OR_RETURN(const int64_t fragments,
                   params.Int("fragments", std::min(4 * k, kMaxFragmentsKept),
                              1, kMaxFragmentsKept));
  ASSIGN_OR_RETURN(config.threshold_sigmas,
                   params.Real("threshold_sigmas", 3, 0, 100));
  ASSIGN_OR_RETURN(
      const int64_t max_candidates,
      params.Int("max_candidates", 16 * k, 1, kMaxPrefixCandidates));
  ASSIGN_OR_RETURN(
      const int64_t seed,
      params.Int("hash_seed", 1, 0, std::numeric_limits<int64_t>::max()));
  if (hash_bits + std::min(s, bits) > kMaxFragmentItemBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sequence_fragments: hash_bits + fragment_bits = ",
        hash_bits + std::min(s, bits),
        " makes fragment domains of more than 2^", kMaxFragmentItemBits,
        " items; lower hash_bits or fragment_bits"));
  }
  config.bits = static_cast<int>(bits);
  config.k = static_cast<int>(k);
  config.hash_bits = static_cast<int>(hash_bits);
  config.hash_seed = static_cast<uint64_t>(seed);
  config.fragments = static_cast<int>(fragments);
  config.max_candidates = static_cast<int>(max_candidates);
  config.widths = SplitBits(config.bits, static_cast<int>(std::min(s, bits)));
  return config;
}

}  // namespace

uint32_t FragmentHash(const std::vector<bool>& value, int bits, int hash_bits,
                      uint64_t hash_seed) {
  uint32_t hash = 0;
  for (int j = 0; j < hash_bits; ++j) {
    bool parity = false;
    for (int i = 0; i < bits && i < int(value.size()); ++i) {
      parity ^= value[i] && MaskBit(hash_seed, bits, j, i);
    }
    hash = hash * 2 + (parity ? 1 : 0);
  }
  return hash;
}

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateSequenceFragmentsProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ASSIGN_OR_RETURN(SfpConfig config, ReadSfpConfig(params, context.schema));
  RETURN_IF_ERROR(params.CheckAllUsed());
  return std::make_unique<SequenceFragmentsProgram>(context, std::move(config));
}

}  // namespace ldp

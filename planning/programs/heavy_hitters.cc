// Heavy hitters by prefix extension; see the header for the protocol.
#include "planning/programs/heavy_hitters.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/queries/domain_encoding.h"
#include "planning/programs/bit_candidates.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

// Largest bits_per_round: 2^20 extensions per candidate already needs a
// sketch-style oracle; wider rounds would not be decodable.
constexpr int64_t kMaxBitsPerRound = 20;

struct HeavyHittersConfig {
  std::string field;
  int bits = 0;
  int k = 0;
  int candidates = 0;
  // Bits each round adds, as even as possible; their sum is `bits`.
  std::vector<int> widths;
};

class HeavyHittersProgram final : public AnalystProgram {
 public:
  HeavyHittersProgram(ProgramContext context, HeavyHittersConfig config)
      : context_(std::move(context)), config_(std::move(config)) {}

  std::vector<ScheduledRound> Schedule() const override {
    std::vector<ScheduledRound> schedule;
    const int rounds = static_cast<int>(config_.widths.size());
    int end = 0;
    for (int t = 0; t < rounds; ++t) {
      const int begin = end;
      end += config_.widths[t];
      schedule.push_back({.name = absl::StrCat("bits ", begin, "-", end - 1),
                          .slice = EqualSlice(t, rounds),
                          .epsilon_nanos = context_.epsilon_cap_nanos});
    }
    return schedule;
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    const size_t rounds = config_.widths.size();
    if (history.size() > rounds) {
      return absl::InternalError(absl::StrCat("heavy_hitters: ", history.size(),
                                              " rounds of history for a ",
                                              rounds, "-round schedule"));
    }
    // Replay every closed round: the program keeps no state between calls.
    std::vector<BitCandidate> survivors = {BitCandidate{}};  // the empty prefix
    int prefix_bits = 0;
    for (size_t t = 0; t < history.size(); ++t) {
      const int width = config_.widths[t];
      ASSIGN_OR_RETURN(survivors, Extend(survivors, width, history[t], t));
      prefix_bits += width;
    }
    if (history.size() == rounds) {
      return ProgramStep{.result = Final(survivors)};
    }
    ASSIGN_OR_RETURN(
        Question question,
        QuestionFor(survivors, prefix_bits, config_.widths[history.size()]));
    return ProgramStep{
        .round = ProgramRound{.questions = {std::move(question)}},
        .result = {.summary =
                       absl::StrCat("round ", history.size() + 1, " of ",
                                    rounds, " extends ", survivors.size(),
                                    " prefixes of ", prefix_bits, " bits")}};
  }

 private:
  absl::StatusOr<Question> QuestionFor(
      const std::vector<BitCandidate>& survivors, int prefix_bits,
      int width) const {
    return ExtensionQuestion(absl::StrCat("prefix_", prefix_bits + width),
                             config_.field, survivors, width,
                             context_.epsilon_cap_nanos, context_.schema);
  }

  // The prefixes (survivors × every extension of `width` bits) with the
  // largest estimated frequencies, best first.
  absl::StatusOr<std::vector<BitCandidate>> Extend(
      const std::vector<BitCandidate>& survivors, int width,
      const RoundAnswers& round, size_t t) const {
    ASSIGN_OR_RETURN(const HistogramEstimate* h,
                     HistogramAnswer(round, 0, 1 + (survivors.size() << width),
                                     "heavy_hitters", t + 1));
    std::vector<BitCandidate> next;
    for (uint32_t item : TopItems(*h, 1, config_.candidates,
                                  -std::numeric_limits<double>::infinity())) {
      next.push_back(ExtendedCandidate(survivors, width, *h, item));
    }
    return next;
  }

  ProgramResult Final(const std::vector<BitCandidate>& survivors) const {
    return RankedResult(survivors, config_.k, config_.field, config_.bits,
                        context_.confidence);
  }

  const ProgramContext context_;
  const HeavyHittersConfig config_;
};

absl::StatusOr<HeavyHittersConfig> ReadConfig(ProgramParameters& params,
                                              const RecordSchema& schema) {
  HeavyHittersConfig config;
  ASSIGN_OR_RETURN(const SearchedBits searched,
                   ReadSearchedBits(params, schema, "heavy_hitters"));
  config.field = searched.field;
  const int64_t bits = searched.bits;
  const int64_t k = searched.k;
  ASSIGN_OR_RETURN(const int64_t s,
                   params.Int("bits_per_round", 8, 1, kMaxBitsPerRound));
  ASSIGN_OR_RETURN(const int64_t candidates,
                   params.Int("candidates", 4 * k, k, kMaxPrefixCandidates));
  config.bits = static_cast<int>(bits);
  config.k = static_cast<int>(k);
  config.candidates = static_cast<int>(candidates);
  config.widths = SplitBits(config.bits, static_cast<int>(std::min(s, bits)));
  // Every round after the first extends `candidates` prefixes.
  const uint64_t largest = 1 + (uint64_t(candidates) << config.widths[0]);
  if (config.widths.size() > 1 && largest > kMaxDomainSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "heavy_hitters: candidates = ", candidates, " with ", config.widths[0],
        " bits per round needs a domain of ", largest, " items, more than ",
        kMaxDomainSize, "; lower bits_per_round or candidates"));
  }
  return config;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateHeavyHittersProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ASSIGN_OR_RETURN(HeavyHittersConfig config,
                   ReadConfig(params, context.schema));
  RETURN_IF_ERROR(params.CheckAllUsed());
  return std::make_unique<HeavyHittersProgram>(context, std::move(config));
}

}  // namespace ldp

// TreeHist: a thresholded walk down the prefix tree, then a recount; see the
// header for the protocol.
#include "planning/programs/tree_hist.h"

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

constexpr int64_t kMaxBitsPerLevel = 8;

struct TreeHistConfig {
  std::string field;
  int bits = 0;
  int k = 0;
  double threshold_sigmas = 0;
  int max_candidates = 0;
  std::vector<int> widths;  // bits each level adds; their sum is `bits`
};

class TreeHistProgram final : public AnalystProgram {
 public:
  TreeHistProgram(ProgramContext context, TreeHistConfig config)
      : context_(std::move(context)), config_(std::move(config)) {}

  std::vector<ScheduledRound> Schedule() const override {
    const int levels = static_cast<int>(config_.widths.size());
    std::vector<ScheduledRound> schedule;
    int end = 0;
    for (int t = 0; t <= levels; ++t) {
      const int begin = end;
      if (t < levels) end += config_.widths[t];
      schedule.push_back(
          {.name = t < levels ? absl::StrCat("level bits ", begin, "-", end - 1)
                              : "recount",
           .slice = EqualSlice(t, levels + 1),
           .epsilon_nanos = context_.epsilon_cap_nanos});
    }
    return schedule;
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    const size_t levels = config_.widths.size();
    if (history.size() > levels + 1) {
      return absl::InternalError(absl::StrCat("treehist: ", history.size(),
                                              " rounds of history for ",
                                              levels + 1, " rounds"));
    }
    // Replay the walk: the program keeps no state between calls.
    std::vector<BitCandidate> survivors = {BitCandidate{}};
    int prefix_bits = 0;
    for (size_t t = 0; t < std::min(history.size(), levels); ++t) {
      ASSIGN_OR_RETURN(
          survivors, Descend(survivors, config_.widths[t], history[t], t + 1));
      prefix_bits += config_.widths[t];
    }
    if (history.size() == levels + 1) {
      ASSIGN_OR_RETURN(std::vector<BitCandidate> found,
                       Recount(survivors, history.back()));
      return ProgramStep{.result =
                             RankedResult(found, config_.k, config_.field,
                                          config_.bits, context_.confidence)};
    }
    const bool recount = history.size() == levels;
    const int width = recount ? 0 : config_.widths[history.size()];
    ASSIGN_OR_RETURN(
        Question question,
        ExtensionQuestion(
            recount ? "recount" : absl::StrCat("level_", prefix_bits + width),
            config_.field, survivors, width, context_.epsilon_cap_nanos,
            context_.schema));
    return ProgramStep{
        .round = ProgramRound{.questions = {std::move(question)}},
        .result = {.summary = absl::StrCat(
                       recount ? "recount of " : "level of ", survivors.size(),
                       " prefixes of ", prefix_bits, " bits")}};
  }

 private:
  // The extensions of `survivors` that pass the threshold (at most
  // max_candidates, at least the best one).
  absl::StatusOr<std::vector<BitCandidate>> Descend(
      const std::vector<BitCandidate>& survivors, int width,
      const RoundAnswers& round, size_t round_number) const {
    ASSIGN_OR_RETURN(const HistogramEstimate* h,
                     HistogramAnswer(round, 0, 1 + (survivors.size() << width),
                                     "treehist", round_number));
    std::vector<uint32_t> items =
        TopItems(*h, 1, config_.max_candidates, config_.threshold_sigmas);
    if (items.empty()) {
      items = TopItems(*h, 1, 1, -std::numeric_limits<double>::infinity());
    }
    std::vector<BitCandidate> next;
    for (uint32_t item : items) {
      next.push_back(ExtendedCandidate(survivors, width, *h, item));
    }
    return next;
  }

  // The leaves with the recount's estimates, largest first.
  absl::StatusOr<std::vector<BitCandidate>> Recount(
      const std::vector<BitCandidate>& leaves,
      const RoundAnswers& round) const {
    const size_t number = config_.widths.size() + 1;
    ASSIGN_OR_RETURN(
        const HistogramEstimate* h,
        HistogramAnswer(round, 0, 1 + leaves.size(), "treehist", number));
    return Recounted(leaves, *h);
  }

  const ProgramContext context_;
  const TreeHistConfig config_;
};

absl::StatusOr<TreeHistConfig> ReadTreeHistConfig(ProgramParameters& params,
                                                  const RecordSchema& schema) {
  TreeHistConfig config;
  ASSIGN_OR_RETURN(const SearchedBits searched,
                   ReadSearchedBits(params, schema, "treehist"));
  config.field = searched.field;
  const int64_t bits = searched.bits;
  const int64_t k = searched.k;
  ASSIGN_OR_RETURN(const int64_t s,
                   params.Int("bits_per_level", 1, 1, kMaxBitsPerLevel));
  ASSIGN_OR_RETURN(config.threshold_sigmas,
                   params.Real("threshold_sigmas", 3, 0, 100));
  // Every level extends at most max_candidates prefixes by s bits; with
  // s ≤ 8 that stays far below kMaxDomainSize.
  ASSIGN_OR_RETURN(
      const int64_t max_candidates,
      params.Int("max_candidates", 4 * k, 1, kMaxPrefixCandidates));
  config.bits = static_cast<int>(bits);
  config.k = static_cast<int>(k);
  config.max_candidates = static_cast<int>(max_candidates);
  config.widths = SplitBits(config.bits, static_cast<int>(std::min(s, bits)));
  return config;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateTreeHistProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ASSIGN_OR_RETURN(TreeHistConfig config,
                   ReadTreeHistConfig(params, context.schema));
  RETURN_IF_ERROR(params.CheckAllUsed());
  return std::make_unique<TreeHistProgram>(context, std::move(config));
}

}  // namespace ldp

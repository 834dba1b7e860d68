// Heavy hitters by prefix extension; see the header for the protocol.
#include "planning/programs/heavy_hitters.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/confidence_interval.h"
#include "common/domain_encoding.h"
#include "common/status_macros.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

using Bits = std::vector<bool>;

// Largest bits_per_round: 2^20 extensions per candidate already needs a
// sketch-style oracle; wider rounds would not be decodable.
constexpr int64_t kMaxBitsPerRound = 20;
constexpr int64_t kMaxK = 1000;

struct HeavyHittersConfig {
  std::string field;
  int bits = 0;
  int k = 0;
  int candidates = 0;
  // Bits each round adds, as even as possible; their sum is `bits`.
  std::vector<int> widths;
};

// `bits` split into ⌈bits / s⌉ rounds whose widths differ by at most one,
// so no round's domain is larger than it must be.
std::vector<int> RoundWidths(int bits, int s) {
  const int rounds = (bits + s - 1) / s;
  std::vector<int> widths(rounds, bits / rounds);
  for (int t = 0; t < bits % rounds; ++t) ++widths[t];
  return widths;
}

// 0x… when the length is a multiple of 4, else 0b….
std::string FormatBits(const Bits& bits) {
  std::string out;
  if (bits.size() % 4 == 0) {
    out = "0x";
    for (size_t i = 0; i < bits.size(); i += 4) {
      const int nibble =
          bits[i] * 8 + bits[i + 1] * 4 + bits[i + 2] * 2 + bits[i + 3];
      out.push_back("0123456789abcdef"[nibble]);
    }
    return out;
  }
  return "0b" + BitString(bits);
}

double BitsAsNumber(const Bits& bits) {
  double value = 0;
  for (bool b : bits) value = value * 2 + (b ? 1 : 0);
  return value;
}

// A surviving prefix and the last round's estimate of its frequency.
struct Survivor {
  Bits bits;
  double frequency = 0;
  double variance = 0;
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
      return absl::InternalError(absl::StrCat(
          "heavy_hitters: ", history.size(), " rounds of history for a ",
          rounds, "-round schedule"));
    }
    // Replay every closed round: the program keeps no state between calls.
    std::vector<Survivor> survivors = {Survivor{}};  // the empty prefix
    int prefix_bits = 0;
    for (size_t t = 0; t < history.size(); ++t) {
      const int width = config_.widths[t];
      ASSIGN_OR_RETURN(survivors, Extend(survivors, width, history[t], t));
      prefix_bits += width;
    }
    if (history.size() == rounds) {
      return ProgramStep{.result = Final(survivors)};
    }
    ASSIGN_OR_RETURN(Question question,
                     QuestionFor(survivors, prefix_bits,
                                 config_.widths[history.size()]));
    return ProgramStep{
        .round = ProgramRound{.questions = {std::move(question)}},
        .result = {.summary = absl::StrCat(
                       "round ", history.size() + 1, " of ", rounds,
                       " extends ", survivors.size(), " prefixes of ",
                       prefix_bits, " bits")}};
  }

 private:
  absl::StatusOr<Question> QuestionFor(const std::vector<Survivor>& survivors,
                                       int prefix_bits, int width) const {
    PrefixEncoding prefix{
        .field = config_.field,
        .prefix_bits = static_cast<uint32_t>(prefix_bits + width),
        .extension_bits = static_cast<uint32_t>(width)};
    for (const Survivor& s : survivors) prefix.candidates.push_back(s.bits);
    ASSIGN_OR_RETURN(DomainEncoding encoding,
                     DomainEncoding::Create(std::move(prefix), context_.schema));
    return Question{
        .id = absl::StrCat("prefix_", prefix_bits + width),
        .kind = HistogramQuestion{.encoding = std::move(encoding)},
        .epsilon_nanos = context_.epsilon_cap_nanos};
  }

  // The prefixes (survivors × every extension of `width` bits) with the
  // largest estimated frequencies, best first; ties go to the lower item
  // so that replays agree.
  absl::StatusOr<std::vector<Survivor>> Extend(
      const std::vector<Survivor>& survivors, int width,
      const RoundAnswers& round, size_t t) const {
    const HistogramEstimate* h =
        round.answers.size() == 1
            ? std::get_if<HistogramEstimate>(&round.answers[0].estimate)
            : nullptr;
    const size_t items = 1 + (survivors.size() << width);
    if (h == nullptr || h->frequencies.size() != items ||
        h->variances.size() != items) {
      return absl::InternalError(absl::StrCat(
          "heavy_hitters: round ", t + 1, " has no histogram of ", items,
          " items (1 + ", survivors.size(), " prefixes · 2^", width, ")"));
    }
    std::vector<uint32_t> order(items - 1);
    std::iota(order.begin(), order.end(), uint32_t{1});  // item 0 = no match
    const size_t keep = std::min<size_t>(order.size(), config_.candidates);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                      [&](uint32_t a, uint32_t b) {
                        const double fa = h->frequencies[a];
                        const double fb = h->frequencies[b];
                        return fa > fb || (fa == fb && a < b);
                      });
    std::vector<Survivor> next;
    for (size_t i = 0; i < keep; ++i) {
      const uint32_t item = order[i] - 1;
      Survivor s{.bits = survivors[item >> width].bits,
                 .frequency = h->frequencies[order[i]],
                 .variance = h->variances[order[i]]};
      for (int j = width; j-- > 0;) s.bits.push_back((item >> j) & 1);
      next.push_back(std::move(s));
    }
    return next;
  }

  ProgramResult Final(const std::vector<Survivor>& survivors) const {
    ProgramResult result;
    result.summary = absl::StrCat("top ", config_.k, " of ", config_.bits,
                                  " bits of \"", config_.field, "\" (share, ",
                                  context_.confidence * 100, "% interval):");
    const size_t k = std::min<size_t>(config_.k, survivors.size());
    for (size_t i = 0; i < k; ++i) {
      const Survivor& s = survivors[i];
      const Interval interval =
          NormalInterval(s.frequency, std::sqrt(std::max(s.variance, 0.0)),
                         context_.confidence);
      absl::StrAppendFormat(&result.summary, " %s %.5f [%.5f, %.5f];",
                            FormatBits(s.bits), s.frequency, interval.lower,
                            interval.upper);
      const std::string name = absl::StrCat("top[", i, "]");
      result.values.push_back({.name = absl::StrCat(name, ".count_fraction"),
                               .value = s.frequency,
                               .interval = interval});
      if (config_.bits <= 53) {
        result.values.push_back(
            {.name = absl::StrCat(name, ".value"), .value = BitsAsNumber(s.bits)});
      }
    }
    result.summary.pop_back();  // the last ';'
    return result;
  }

  const ProgramContext context_;
  const HeavyHittersConfig config_;
};

absl::StatusOr<HeavyHittersConfig> ReadConfig(ProgramParameters& params,
                                              const RecordSchema& schema) {
  HeavyHittersConfig config;
  ASSIGN_OR_RETURN(config.field, params.String("field", "value"));
  const FieldSpec* field = schema.Find(config.field);
  if (field == nullptr || field->kind != FieldKind::kBitVector) {
    return absl::InvalidArgumentError(absl::StrCat(
        "heavy_hitters needs a bit-vector field \"", config.field,
        "\" in the schema (set the parameter \"field\")"));
  }
  const int64_t length = field->bit_length;
  ASSIGN_OR_RETURN(const int64_t bits, params.Int("bits", length, 1, length));
  ASSIGN_OR_RETURN(const int64_t k, params.Int("k", 10, 1, kMaxK));
  ASSIGN_OR_RETURN(const int64_t s,
                   params.Int("bits_per_round", 8, 1, kMaxBitsPerRound));
  ASSIGN_OR_RETURN(const int64_t candidates,
                   params.Int("candidates", 4 * k, k, kMaxPrefixCandidates));
  config.bits = static_cast<int>(bits);
  config.k = static_cast<int>(k);
  config.candidates = static_cast<int>(candidates);
  config.widths = RoundWidths(config.bits, static_cast<int>(std::min(s, bits)));
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
  ASSIGN_OR_RETURN(HeavyHittersConfig config, ReadConfig(params, context.schema));
  RETURN_IF_ERROR(params.CheckAllUsed());
  return std::make_unique<HeavyHittersProgram>(context, std::move(config));
}

}  // namespace ldp

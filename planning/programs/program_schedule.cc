// Schedules and the cap check; see the header.
#include "planning/programs/program_schedule.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/tasks/task.h"

namespace ldp {
namespace {

// x·2^64 for x in [0, 1], exactly representable up to double rounding.
unsigned __int128 ToFixed(double x) {
  if (x >= 1.0) return static_cast<unsigned __int128>(1) << 64;
  if (x <= 0.0) return 0;
  return static_cast<unsigned __int128>(std::ldexp(x, 64));
}

}  // namespace

uint64_t AgentSlice::fixed_begin() const {
  return static_cast<uint64_t>(ToFixed(begin));
}
unsigned __int128 AgentSlice::fixed_end() const { return ToFixed(end); }

bool AgentSlice::Contains(uint64_t position) const {
  return position >= fixed_begin() && position < fixed_end();
}

uint64_t AgentSlice::Relative(uint64_t position) const {
  const unsigned __int128 offset = position - fixed_begin();
  const unsigned __int128 width = fixed_end() - fixed_begin();
  return static_cast<uint64_t>((offset << 64) / width);
}

AgentSlice EqualSlice(int i, int k) {
  return {.begin = static_cast<double>(i) / k,
          .end = i + 1 == k ? 1.0 : static_cast<double>(i + 1) / k};
}

absl::Status CheckSchedule(absl::Span<const ScheduledRound> schedule,
                           int64_t cap_nanos) {
  if (schedule.empty()) {
    return absl::InvalidArgumentError("the program schedules no rounds");
  }
  // Sweep the slices' end points; between two consecutive points the set of
  // covering rounds is constant.
  std::vector<double> points = {0.0, 1.0};
  for (size_t r = 0; r < schedule.size(); ++r) {
    const ScheduledRound& round = schedule[r];
    const AgentSlice& s = round.slice;
    if (!(s.begin >= 0 && s.begin < s.end && s.end <= 1)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "round %d (\"%s\") asks the slice [%g, %g), which is not a "
          "non-empty part of [0, 1)",
          r + 1, round.name, s.begin, s.end));
    }
    if (round.epsilon_nanos <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "round %d (\"%s\") has epsilon_nanos %d; it must be > 0", r + 1,
          round.name, round.epsilon_nanos));
    }
    points.push_back(s.begin);
    points.push_back(s.end);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (size_t p = 0; p + 1 < points.size(); ++p) {
    const double lo = points[p], hi = points[p + 1];
    int64_t total = 0;
    std::vector<std::string> names;
    for (size_t r = 0; r < schedule.size(); ++r) {
      const ScheduledRound& round = schedule[r];
      if (round.slice.begin <= lo && hi <= round.slice.end) {
        // Saturate: a sum past the cap is refused anyway.
        total = std::min<int64_t>(total, INT64_MAX - round.epsilon_nanos) +
                round.epsilon_nanos;
        names.push_back(absl::StrCat(r + 1, " (\"", round.name, "\", ε=",
                                     EpsilonText(round.epsilon_nanos), ")"));
      }
    }
    if (total > cap_nanos) {
      const std::string who =
          names.size() == 1
              ? absl::StrCat("round ", names[0], " asks")
              : absl::StrCat("rounds ", absl::StrJoin(names, " and "),
                             names.size() == 2 ? " both ask" : " all ask");
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s agents in [%g, %g) of the population: they need ε=%s but the "
          "per-agent cap is ε=%s (short by %s); raise the cap or give the "
          "rounds disjoint slices",
          who, lo, hi, EpsilonText(total), EpsilonText(cap_nanos),
          EpsilonText(total - cap_nanos)));
    }
  }
  return absl::OkStatus();
}

int64_t MaxScheduledSpend(absl::Span<const ScheduledRound> schedule) {
  std::vector<double> points = {0.0, 1.0};
  for (const ScheduledRound& r : schedule) {
    points.push_back(r.slice.begin);
    points.push_back(r.slice.end);
  }
  std::sort(points.begin(), points.end());
  int64_t best = 0;
  for (size_t p = 0; p + 1 < points.size(); ++p) {
    if (points[p] == points[p + 1]) continue;
    int64_t total = 0;
    for (const ScheduledRound& r : schedule) {
      if (r.slice.begin <= points[p] && points[p + 1] <= r.slice.end) {
        total += r.epsilon_nanos;
      }
    }
    best = std::max(best, total);
  }
  return best;
}

}  // namespace ldp

// The grouped strategies' randomizer (grouped_randomizer.h): the layout
// (grouped_layout.h) fixes levels, groups and inner oracles; this draws,
// prices and checks reports over it.
#include "common/workload/strategy_randomizers/grouped_randomizer.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/mechanisms/frequency/frequency_oracle.h"

namespace ldp {

using grouped::InnerKind;
using grouped::KindName;
using grouped::Layout;
using grouped::Level;

std::string GroupedRandomizer::Describe() const {
  const Layout& l = *layout_;
  const StrategySpec& s = l.spec;
  std::string what;
  switch (s.kind) {
    case StrategyKind::kHierarchical:
      what = absl::StrCat("hierarchical b=", s.branching, " N=", l.n, " (",
                          l.levels.size(), " levels)");
      break;
    case StrategyKind::kHaar:
      what = absl::StrCat("haar N=", l.n, " (", l.haar_bits, " levels)");
      break;
    case StrategyKind::kAttributeSampling:
      what = absl::StrCat("attribute_sampling d=", s.attribute_sizes.size(),
                          " (", absl::StrJoin(s.attribute_sizes, "×"), ")");
      break;
    case StrategyKind::kFourier:
      what = absl::StrCat("fourier d=", s.num_bits, " k=", s.order, " (",
                          l.num_groups(), " parities)");
      break;
    default:
      what = absl::StrCat("identity N=", l.n);
      break;
  }
  int grr = 0, oue = 0;
  for (const Level& level : l.levels) {
    (level.inner == InnerKind::kGrr ? grr : oue) += 1;
  }
  const char* inner = oue == 0 ? "GRR" : grr == 0 ? "OUE" : "GRR+OUE";
  return absl::StrCat(what, ", ", inner, ", epsilon=", l.epsilon);
}

WorkloadReport GroupedRandomizer::Randomize(uint32_t item,
                                            absl::BitGenRef gen) const {
  const Layout& l = *layout_;
  const uint32_t x = std::min(item, l.n - 1);
  const uint32_t g = grouped::SampleGroup(l, gen);
  const Level& level = l.levels[l.level_of[g]];
  return WorkloadReport{.group = g,
                        .inner = level.oracle->Randomize(l.ItemOf(g, x), gen)};
}

double GroupedRandomizer::Probability(uint32_t item,
                                      const WorkloadReport& report) const {
  if (!Validate(report).ok()) return 0;
  const Layout& l = *layout_;
  const uint32_t x = std::min(item, l.n - 1);
  const uint32_t g = report.group;
  return l.GroupProbability(g) * l.levels[l.level_of[g]].oracle->Probability(
                                     l.ItemOf(g, x), report.inner);
}

absl::Status GroupedRandomizer::Validate(const WorkloadReport& report) const {
  const Layout& l = *layout_;
  if (report.group >= l.num_groups()) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(l.spec.kind), " strategy: report group ",
                     report.group, " is outside [0, ", l.num_groups(), ")"));
  }
  const Level& level = l.levels[l.level_of[report.group]];
  if (absl::Status s = level.oracle->Validate(report.inner); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(l.spec.kind), " strategy, group ", report.group,
                     ": ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const GroupedRandomizer>>
CreateGroupedRandomizer(const StrategySpec& spec) {
  if (absl::Status s = grouped::ValidateSpec(spec); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const Layout>> layout =
      grouped::BuildLayout(spec);
  if (!layout.ok()) return layout.status();
  return std::make_shared<const GroupedRandomizer>(*std::move(layout));
}

}  // namespace ldp

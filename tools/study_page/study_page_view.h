// The live study page's content (`ldp page`, tools/study_page/page_command.h):
// what one poll of the server saw, rendered as an HTML fragment that the page's
// script swaps in. Pure functions of the snapshot, so a test checks the
// markup without a server or a browser.
//
// For each study: its state, mode, agents, reports and rounds; the ε charged
// (the largest spend of any agent against the cap); the latest round's
// progress per question against the quorum, and its fewest-reports count
// over time as a chart; every question's estimate (scalars as a table,
// histograms and workloads as the SVG charts `ldp results --plot` draws).
// Every number a reader or a test looks for carries a data-field attribute.
// Everything that came from the server or a study's creator is escaped.
#ifndef LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_VIEW_H_
#define LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_VIEW_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

// The latest round's progress at one poll: seconds since the page first saw
// the round, and the fewest reports any of its questions had (the round
// closes on quorum when that reaches the quorum).
struct ProgressPoint {
  double seconds = 0;
  uint64_t fewest_reports = 0;
};

struct StudySnapshot {
  v1::Study study{};
  // The latest round, or why it could not be read (OK and empty: no round).
  std::optional<v1::Round> round{};
  absl::Status round_status{};
  // Its estimates (null: none yet), or why there are none. Shared: a
  // workload's response can be megabytes, and a poll that finds the
  // round's reports unchanged keeps the previous one without copying it.
  std::shared_ptr<const v1::GetEstimatesResponse> estimates{};
  absl::Status estimates_status{};
  std::vector<ProgressPoint> progress{};
};

struct PageSnapshot {
  absl::Time polled_at = absl::InfinitePast();  // never polled
  // Of the last poll as a whole (e.g. the server is unreachable); studies
  // then still hold what the last good poll saw.
  absl::Status status{};
  std::vector<StudySnapshot> studies{};
};

// The fewest reports of any question in `round` (0 with no question).
uint64_t FewestReports(const v1::Round& round);

// Values beyond this per chart are not drawn (the subtitle says so).
inline constexpr size_t kPageMaxPlottedValues = 2000;

std::string RenderPageFragment(const PageSnapshot& snapshot);

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_VIEW_H_

// Polling the server for the live study page; see the header.
#include "tools/study_page/study_page_poller.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

namespace ldp {
namespace {

uint64_t TotalReports(const v1::Round& round) {
  uint64_t total = 0;
  for (const v1::QuestionProgress& p : round.progress())
    total += p.num_reports();
  return total;
}

// Whether the estimates `previous` holds are still those of `round`: the
// same round, in the same state, with the same reports.
bool EstimatesCurrent(const StudySnapshot* previous, const v1::Round& round) {
  if (previous == nullptr || !previous->round.has_value() ||
      previous->estimates == nullptr) {
    return false;
  }
  const v1::Round& before = *previous->round;
  return before.round_id() == round.round_id() &&
         before.state() == round.state() &&
         TotalReports(before) == TotalReports(round);
}

}  // namespace

StudyPagePoller::StudyPagePoller(const AnalystClient& analyst,
                                 const Clock& clock,
                                 StudyPagePollerOptions options)
    : analyst_(analyst), clock_(clock), options_(std::move(options)) {
  fragment_ = RenderPageFragment(PageSnapshot{});
}

StudyPagePoller::~StudyPagePoller() { Stop(); }

void StudyPagePoller::ReadEstimates(StudySnapshot& snapshot,
                                    const StudySnapshot* previous) {
  const v1::Round& round = *snapshot.round;
  if (TotalReports(round) == 0) return;  // nothing to estimate yet
  if (EstimatesCurrent(previous, round)) {
    snapshot.estimates = previous->estimates;  // shared, not copied
    return;
  }
  v1::GetEstimatesRequest request;
  request.set_study_id(snapshot.study.study_id());
  request.set_round_id(round.round_id());
  absl::StatusOr<v1::GetEstimatesResponse> estimates =
      analyst_.GetEstimates(request);
  if (estimates.ok()) {
    snapshot.estimates =
        std::make_shared<const v1::GetEstimatesResponse>(*std::move(estimates));
  } else {
    snapshot.estimates_status = estimates.status();
  }
}

std::vector<ProgressPoint> StudyPagePoller::RecordProgress(
    const StudySnapshot& snapshot) {
  const RoundKey key{snapshot.study.study_id(), snapshot.round->round_id()};
  const absl::Time now = clock_.Now();
  RoundProgress& progress =
      progress_.try_emplace(key, RoundProgress{.first_seen = now})
          .first->second;
  std::vector<ProgressPoint>& points = progress.points;
  points.push_back({.seconds = absl::ToDoubleSeconds(now - progress.first_seen),
                    .fewest_reports = FewestReports(*snapshot.round)});
  if (points.size() > options_.max_progress_points) {
    std::vector<ProgressPoint> thinned;
    for (size_t i = 0; i < points.size(); i += 2) thinned.push_back(points[i]);
    if (thinned.back().seconds != points.back().seconds)
      thinned.push_back(points.back());
    points = std::move(thinned);
  }
  return points;
}

StudySnapshot StudyPagePoller::PollStudy(const v1::Study& study) {
  StudySnapshot snapshot{.study = study};
  if (study.status().round_ids().empty()) return snapshot;
  v1::GetRoundRequest request;
  request.set_study_id(study.study_id());
  request.set_round_id(*study.status().round_ids().rbegin());
  absl::StatusOr<v1::Round> round = analyst_.GetRound(request);
  if (!round.ok()) {
    snapshot.round_status = round.status();
    return snapshot;
  }
  snapshot.round = *std::move(round);
  ReadEstimates(snapshot, Previous(study.study_id()));
  snapshot.progress = RecordProgress(snapshot);
  return snapshot;
}

absl::Status StudyPagePoller::PollOnce() {
  PageSnapshot page{.polled_at = clock_.Now()};
  v1::ListStudiesRequest request;
  request.set_page_size(static_cast<uint32_t>(options_.max_studies));
  absl::StatusOr<v1::ListStudiesResponse> list = analyst_.ListStudies(request);
  if (!list.ok()) {
    page.status = list.status();
    page.studies = last_;
    Publish(std::move(page));
    return list.status();
  }
  for (const v1::Study& study : list->studies()) {
    page.studies.push_back(PollStudy(study));
  }
  ForgetUnshown(page.studies);
  last_ = page.studies;  // cheap: the estimates are shared
  Publish(std::move(page));
  return absl::OkStatus();
}

const StudySnapshot* StudyPagePoller::Previous(uint64_t study_id) const {
  for (const StudySnapshot& s : last_) {
    if (s.study.study_id() == study_id) return &s;
  }
  return nullptr;
}

void StudyPagePoller::ForgetUnshown(const std::vector<StudySnapshot>& shown) {
  std::erase_if(progress_, [&shown](const auto& entry) {
    return std::none_of(shown.begin(), shown.end(),
                        [&entry](const StudySnapshot& s) {
                          return s.study.study_id() == entry.first.first;
                        });
  });
}

void StudyPagePoller::Publish(PageSnapshot page) {
  std::string fragment = RenderPageFragment(page);
  absl::MutexLock lock(&mutex_);
  fragment_ = std::move(fragment);
}

std::string StudyPagePoller::Fragment() const {
  absl::MutexLock lock(&mutex_);
  return fragment_;
}

void StudyPagePoller::Start() {
  {
    absl::MutexLock lock(&mutex_);
    if (thread_.joinable()) return;
    stopping_ = false;
  }
  thread_ = std::thread([this] { Loop(); });
}

void StudyPagePoller::Loop() {
  while (true) {
    (void)PollOnce();  // its status is on the page
    absl::MutexLock lock(&mutex_);
    mutex_.AwaitWithTimeout(absl::Condition(&stopping_), options_.interval);
    if (stopping_) return;
  }
}

void StudyPagePoller::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace ldp

// Polling the server for the live study page; see the header.
#include "tools/study_page_poller.h"

#include <algorithm>
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
      !previous->estimates.has_value()) {
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
    snapshot.estimates = previous->estimates;
    return;
  }
  v1::GetEstimatesRequest request;
  request.set_study_id(snapshot.study.study_id());
  request.set_round_id(round.round_id());
  absl::StatusOr<v1::GetEstimatesResponse> estimates =
      analyst_.GetEstimates(request);
  if (estimates.ok()) {
    snapshot.estimates = *std::move(estimates);
  } else {
    snapshot.estimates_status = estimates.status();
  }
}

std::vector<ProgressPoint> StudyPagePoller::RecordProgress(
    const StudySnapshot& snapshot) {
  const RoundKey key{snapshot.study.study_id(), snapshot.round->round_id()};
  const absl::Time now = clock_.Now();
  const absl::Time first = first_seen_.try_emplace(key, now).first->second;
  std::vector<ProgressPoint>& points = progress_[key];
  points.push_back({.seconds = absl::ToDoubleSeconds(now - first),
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
  const auto previous = last_.find(study.study_id());
  ReadEstimates(snapshot,
                previous == last_.end() ? nullptr : &previous->second);
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
    for (const auto& [id, snapshot] : last_) page.studies.push_back(snapshot);
    std::reverse(page.studies.begin(), page.studies.end());  // newest first
    Publish(std::move(page));
    return list.status();
  }
  std::map<uint64_t, StudySnapshot> current;
  for (const v1::Study& study : list->studies()) {
    StudySnapshot snapshot = PollStudy(study);
    current[study.study_id()] = snapshot;
    page.studies.push_back(std::move(snapshot));
  }
  last_ = std::move(current);
  Publish(std::move(page));
  return absl::OkStatus();
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

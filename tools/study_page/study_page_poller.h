// The live study page's view of the server: polls ldp.v1.AnalystService
// (through AnalystClient) every few seconds and keeps the rendered page
// fragment (tools/study_page/study_page_view.h) for the HTTP side to serve.
//
// The page therefore adds nothing to ldp-server: it is one more analyst
// client, and however many browsers watch, the server sees one ListStudies
// and, per shown study, one GetRound and (only when the round's reports
// changed) one GetEstimates per interval. The reports-over-time series is
// the page's own memory of what it polled, from when it started watching.
//
// Thread-safe: PollOnce runs on the poller's thread (or a test's), Fragment
// on the HTTP server's threads.
#ifndef LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_POLLER_H_
#define LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_POLLER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/base/clock.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/study_page/study_page_view.h"

namespace ldp {

struct StudyPagePollerOptions {
  // The newest this many studies are shown.
  int max_studies = 20;
  // Time between polls.
  absl::Duration interval = absl::Seconds(2);
  // Progress points kept per round; past it every other old point is
  // dropped, so a long round keeps its whole shape at a coarser step.
  size_t max_progress_points = 600;
};

class StudyPagePoller {
 public:
  // `analyst` and `clock` must outlive the poller.
  StudyPagePoller(const AnalystClient& analyst, const Clock& clock,
                  StudyPagePollerOptions options);
  ~StudyPagePoller();
  StudyPagePoller(const StudyPagePoller&) = delete;
  StudyPagePoller& operator=(const StudyPagePoller&) = delete;

  // One poll; its status is also shown on the page. A failed study call
  // shows on that study; a failed ListStudies keeps the last studies.
  absl::Status PollOnce();

  // PollOnce now and then every interval on a thread, until Stop (or the
  // destructor).
  void Start();
  void Stop();

  // The fragment rendered at the last poll.
  std::string Fragment() const;

 private:
  using RoundKey = std::pair<uint64_t, uint64_t>;  // study, round
  // A round's progress as the page has seen it.
  struct RoundProgress {
    absl::Time first_seen;
    std::vector<ProgressPoint> points;
  };

  StudySnapshot PollStudy(const v1::Study& study);
  void ReadEstimates(StudySnapshot& snapshot, const StudySnapshot* previous);
  std::vector<ProgressPoint> RecordProgress(const StudySnapshot& snapshot);
  // The last poll's snapshot of `study_id`, or null.
  const StudySnapshot* Previous(uint64_t study_id) const;
  // Forgets the progress of rounds whose study is no longer shown.
  void ForgetUnshown(const std::vector<StudySnapshot>& shown);
  void Publish(PageSnapshot page);
  void Loop();

  const AnalystClient& analyst_;
  const Clock& clock_;
  const StudyPagePollerOptions options_;

  // Touched only by the polling thread (PollOnce callers never overlap).
  std::vector<StudySnapshot> last_{};  // the last good poll, as shown
  std::map<RoundKey, RoundProgress> progress_{};

  mutable absl::Mutex mutex_;
  std::string fragment_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_{};
};

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_POLLER_H_

// What a released estimate looks like as a WorkloadPlot (tools/
// workload_plot.h): a workload's answers with their simultaneous band, or a
// histogram's frequencies as bars with each item's interval. `ldp results
// --plot` and the live study page (tools/study_page/study_page_view.h) draw the
// same picture of the same message through these.
#ifndef LDP_TOOLS_STUDY_PAGE_ESTIMATE_PLOTS_H_
#define LDP_TOOLS_STUDY_PAGE_ESTIMATE_PLOTS_H_

#include <cstddef>
#include <string>

#include "proto/ldp/v1/types.pb.h"
#include "tools/loadtest_core/workload_plot.h"

namespace ldp {

// Every value unless max_values > 0 is smaller than the estimate: then the
// first max_values (a page stays light; the subtitle says how many of how
// many are drawn). A RAPPOR question's histogram draws only the candidates
// its decode selected, largest first.
WorkloadPlot WorkloadEstimatePlot(const std::string& question_id,
                                  const v1::WorkloadEstimate& estimate,
                                  size_t max_values = 0);
WorkloadPlot HistogramEstimatePlot(const std::string& question_id,
                                   const v1::HistogramEstimate& estimate,
                                   size_t max_values = 0);

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_ESTIMATE_PLOTS_H_

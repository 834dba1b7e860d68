// `ldp results` as text: one block per question (scalar, histogram with its
// candidate test for RAPPOR questions, workload), and a shuffled study's
// guarantees.
#ifndef LDP_TOOLS_CLI_ESTIMATE_PRINTING_H_
#define LDP_TOOLS_CLI_ESTIMATE_PRINTING_H_

#include <string>

#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

void PrintScalar(const std::string& id, const v1::ScalarEstimate& e);
// The `top` largest items (0 = all).
void PrintHistogram(const std::string& id, const v1::HistogramEstimate& h,
                    int top);
// Up to `rows` answers (0 = all): the first and last halves.
void PrintWorkload(const std::string& id, const v1::WorkloadEstimate& w,
                   int rows);
void PrintShuffled(const v1::ShuffledGuarantee& g);

}  // namespace ldp

#endif  // LDP_TOOLS_CLI_ESTIMATE_PRINTING_H_

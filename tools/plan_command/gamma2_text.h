// γ₂(W)'s certified interval as the analyst reads it, in `ldp plan` and in
// `ldp results`: lower bound first, each end rounded outwards so that the
// printed interval still contains γ₂(W).
#ifndef LDP_TOOLS_PLAN_COMMAND_GAMMA2_TEXT_H_
#define LDP_TOOLS_PLAN_COMMAND_GAMMA2_TEXT_H_

#include <string>

namespace ldp {

// "gamma2(W) certified in [L, U] (dual lower bound, factorization found)",
// with L ≤ lower and U ≥ upper at 10 significant digits.
std::string Gamma2IntervalText(double lower, double upper);

}  // namespace ldp

#endif  // LDP_TOOLS_PLAN_COMMAND_GAMMA2_TEXT_H_

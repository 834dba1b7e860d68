// Consistency post-processing for histogram estimates.
//
// Raw unbiased frequencies can be negative and need not sum to one. These
// functions return a *new* consistent vector (non-negative, summing to one)
// and never touch the raw estimate, which stays available for unbiased
// downstream use (SQ composition, linear algebra). Post-processing cannot
// weaken privacy. It trades bias for variance: on skewed data it cuts the
// mean squared error several-fold (pure-LDP measured 8–10× for simplex
// projection on Zipf data).
#ifndef LDP_COMMON_ESTIMATION_CONSISTENCY_H_
#define LDP_COMMON_ESTIMATION_CONSISTENCY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace ldp {

enum class ConsistencyMethod {
  // Euclidean projection onto the probability simplex. Identical to the
  // "Norm-Sub" of Wang et al. (NDSS 2020): f_v ← max(f_v − δ, 0), δ chosen so
  // the result sums to one.
  kSimplexProjection,
  // Clip negatives to zero, then rescale to sum to one.
  kClipAndNormalize,
  // Iterative Bayesian update (Agrawal & Aggarwal 2001): expectation-
  // maximization of the likelihood of the observed support counts
  // (iterative_bayesian_update.h). A name only: the server refuses it.
  kIterativeBayesianUpdate,
};

std::string_view ConsistencyMethodName(ConsistencyMethod method);
// The method ConsistencyMethodName calls `name`; nullopt for any other name.
std::optional<ConsistencyMethod> ConsistencyMethodFromName(
    std::string_view name);
// Every method's name, ", "-separated, for error messages.
std::string ConsistencyMethodNames();

// O(N log N) projection (sort and threshold). An empty input gives an empty
// output; non-finite entries are treated as zero.
std::vector<double> ProjectOntoSimplex(absl::Span<const double> frequencies);

// If every entry is ≤ 0 the result is uniform.
std::vector<double> ClipAndNormalize(absl::Span<const double> frequencies);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_CONSISTENCY_H_

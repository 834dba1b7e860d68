// The non-private side of the logistic regression experiment: a train /
// held-out split of the CSV data (bench/studies/logistic/tabular_data.h) scaled
// by each feature's bounds, accuracy and log-loss, the full-batch gradient, and
// the Newton optimum the private runs are compared against.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_BASELINES_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_BASELINES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/studies/logistic/tabular_data.h"
#include "common/queries/record_schema.h"
#include "planning/programs/logistic_regression.h"

namespace ldp {

// A train / held-out split of the data. The training rows are both the
// non-private baselines' data (scaled to x̃ ∈ [−1, 1]) and the agents'
// records; held-out rows are scaled by the same bounds. The model uses the
// features `bounds` keeps (ResolveBounds: constant undeclared ones are
// left out).
struct Split {
  FeatureBounds bounds{};
  std::vector<std::string> features{};  // field names of bounds.columns
  std::string label{};                  // the label's field name
  std::vector<std::vector<double>> train_x{}, held_x{};  // scaled
  std::vector<int> train_y{}, held_y{};
  std::vector<Record> train_records{};  // raw values, for the agents
};

// InvalidArgument (naming the column where there is one) if either row
// list is empty or the bounds cannot be resolved (ResolveBounds).
absl::StatusOr<Split> MakeSplit(const TabularData& data,
                                const std::vector<size_t>& train_rows,
                                const std::vector<size_t>& held_rows,
                                const DeclaredBounds& declared);

// Whether every weight of m is finite.
bool IsFinite(const LogisticModel& m);

double Accuracy(const LogisticModel& m,
                const std::vector<std::vector<double>>& x,
                const std::vector<int>& y);

// Mean logistic loss (natural log) of m on (x, y).
double LogLoss(const LogisticModel& m,
               const std::vector<std::vector<double>>& x,
               const std::vector<int>& y);

// Mean logistic-loss gradient (θ-part then bias) over the train split.
std::vector<double> Gradient(const LogisticModel& m, const Split& s);

// argmin of mean logistic loss + (λ/2)‖θ‖² (bias unpenalized), by Newton.
LogisticModel Newton(const Split& s, double l2);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_BASELINES_H_

// The non-private side of the logistic regression experiment: the CSV data,
// its train / held-out split scaled by the training rows' bounds, accuracy
// and log-loss, the full-batch gradient, and the Newton optimum the private
// runs are compared against.
#ifndef LDP_BENCH_LOGISTIC_BASELINES_H_
#define LDP_BENCH_LOGISTIC_BASELINES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/record_schema.h"
#include "planning/programs/logistic_regression.h"

namespace ldp {

struct Data {
  std::vector<std::string> features{};
  std::vector<std::vector<double>> x{};  // raw rows
  std::vector<int> y{};
};

// A CSV with a header; every column but `label` is a real feature, `label`
// is 0 or 1.
absl::StatusOr<Data> ReadCsv(const std::string& path, const std::string& label);

// Training rows (scaled to x̃ ∈ [−1, 1] by their own bounds, and as agents'
// records) and held-out rows scaled by the same bounds.
struct Split {
  std::vector<double> lo{}, hi{};
  std::vector<std::vector<double>> train_x{}, held_x{};  // scaled
  std::vector<int> train_y{}, held_y{};
  std::vector<Record> train_records{};  // raw values, for the agents
};

Split MakeSplit(const Data& data, const std::vector<size_t>& train_rows,
                const std::vector<size_t>& held_rows, const std::string& label);

double Accuracy(const LogisticModel& m,
                const std::vector<std::vector<double>>& x,
                const std::vector<int>& y);

// Mean logistic loss (natural log) of m on (x, y).
double LogLoss(const LogisticModel& m, const std::vector<std::vector<double>>& x,
               const std::vector<int>& y);

// Mean logistic-loss gradient (θ-part then bias) over the train split.
std::vector<double> Gradient(const LogisticModel& m, const Split& s);

// argmin of mean logistic loss + (λ/2)‖θ‖² (bias unpenalized), by Newton.
LogisticModel Newton(const Split& s, double l2);

}  // namespace ldp

#endif  // LDP_BENCH_LOGISTIC_BASELINES_H_

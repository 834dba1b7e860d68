// Workload tests: every closed-form product (Answer, WeightedGram,
// QuadraticForms, ForEachProjectedBlock) against the plain matrix from
// Dense() for each kind at small sizes; the row definitions themselves
// (bit convention, range order); labels; validation messages; and all
// ranges at N = 1024 without materializing W.
#include "common/workload/strategies/workload.h"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::SeededGenerator;
using testing::StatusIs;

Workload Make(WorkloadSpec spec) {
  absl::StatusOr<Workload> w = Workload::Create(std::move(spec));
  EXPECT_OK(w);
  return *std::move(w);
}

WorkloadSpec Structured(WorkloadKind kind, uint32_t n) {
  return WorkloadSpec{.kind = kind, .domain_size = n};
}

WorkloadSpec Bits(WorkloadKind kind, uint32_t d, uint32_t k) {
  return WorkloadSpec{.kind = kind, .num_bits = d, .order = k};
}

Eigen::MatrixXd Random(Eigen::Index rows, Eigen::Index cols,
                       SeededGenerator& gen) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd out(rows, cols);
  for (Eigen::Index c = 0; c < cols; ++c) {
    for (Eigen::Index r = 0; r < rows; ++r) out(r, c) = normal(gen);
  }
  return out;
}

WorkloadSpec CustomDense() {
  WorkloadSpec spec{
      .kind = WorkloadKind::kCustom, .domain_size = 8, .num_queries = 5};
  for (int i = 0; i < 40; ++i) spec.dense.push_back((i * 7 % 11) - 5.0);
  return spec;
}

WorkloadSpec CustomSparse() {
  WorkloadSpec spec{
      .kind = WorkloadKind::kCustom, .domain_size = 8, .num_queries = 3};
  spec.sparse = {{0, 1, 1.0}, {0, 7, -2.5}, {2, 3, 0.5}, {1, 0, 4.0}};
  spec.labels = {"first", "second", "third"};
  return spec;
}

WorkloadSpec Attributes(std::vector<uint32_t> sizes) {
  return {.kind = WorkloadKind::kAttributeMarginals,
          .attribute_sizes = std::move(sizes)};
}

std::vector<WorkloadSpec> SmallSpecs() {
  return {
      Structured(WorkloadKind::kHistogram, 8),
      Structured(WorkloadKind::kPrefix, 16),
      Structured(WorkloadKind::kAllRange, 16),
      Structured(WorkloadKind::kAllRange, 1),
      Bits(WorkloadKind::kMarginals, 4, 2),
      Bits(WorkloadKind::kMarginals, 4, 1),
      Bits(WorkloadKind::kMarginals, 5, 3),
      Bits(WorkloadKind::kMarginals, 3, 3),
      Bits(WorkloadKind::kParities, 4, 2),
      Bits(WorkloadKind::kParities, 5, 5),
      CustomDense(),
      CustomSparse(),
      Attributes({3, 2, 4}),
  };
}

TEST(Workload, QueryCounts) {
  EXPECT_EQ(Make(Structured(WorkloadKind::kHistogram, 8)).num_queries(), 8u);
  EXPECT_EQ(Make(Structured(WorkloadKind::kPrefix, 16)).num_queries(), 16u);
  EXPECT_EQ(Make(Structured(WorkloadKind::kAllRange, 1024)).num_queries(),
            524800u);
  EXPECT_EQ(Make(Bits(WorkloadKind::kMarginals, 8, 2)).num_queries(), 112u);
  EXPECT_EQ(Make(Bits(WorkloadKind::kMarginals, 8, 3)).num_queries(), 448u);
  EXPECT_EQ(Make(Bits(WorkloadKind::kParities, 8, 2)).num_queries(), 36u);
  EXPECT_EQ(Make(Bits(WorkloadKind::kParities, 12, 12)).num_queries(), 4095u);
  const Workload marginals = Make(Bits(WorkloadKind::kMarginals, 8, 2));
  EXPECT_EQ(marginals.domain_size(), 256u);
  EXPECT_EQ(marginals.spec().domain_size, 256u);
  EXPECT_EQ(marginals.spec().num_queries, 112u);
}

TEST(Workload, ProductsMatchDenseMatrix) {
  SeededGenerator gen(20240501);
  for (const WorkloadSpec& spec : SmallSpecs()) {
    const Workload w = Make(spec);
    SCOPED_TRACE(w.Describe());
    absl::StatusOr<Eigen::MatrixXd> dense = w.Dense();
    ASSERT_OK(dense);
    const Eigen::MatrixXd& d = *dense;
    const auto m = static_cast<Eigen::Index>(w.num_queries());
    const Eigen::Index n = w.domain_size();
    ASSERT_EQ(d.rows(), m);
    ASSERT_EQ(d.cols(), n);

    const Eigen::VectorXd h = Random(n, 1, gen);
    EXPECT_LT((w.Answer(h) - d * h).cwiseAbs().maxCoeff(), 1e-10);

    const Eigen::VectorXd p = Random(m, 1, gen).cwiseAbs();
    const Eigen::MatrixXd expected_gram = d.transpose() * p.asDiagonal() * d;
    EXPECT_LT((w.WeightedGram(p) - expected_gram).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((w.Gram() - d.transpose() * d).cwiseAbs().maxCoeff(), 1e-9);

    const Eigen::MatrixXd a = Random(n, n, gen);
    const Eigen::MatrixXd s = a + a.transpose();
    const Eigen::VectorXd expected_forms = (d * s * d.transpose()).diagonal();
    EXPECT_LT((w.QuadraticForms(s) - expected_forms).cwiseAbs().maxCoeff(),
              1e-8);

    const Eigen::MatrixXd b = Random(n, 3, gen);
    const Eigen::MatrixXd expected_rows = d * b;
    for (int block : {1, 7, static_cast<int>(m), static_cast<int>(m) + 5}) {
      SCOPED_TRACE(block);
      uint64_t next = 0;
      w.ForEachProjectedBlock(
          b, block, [&](uint64_t first, const Eigen::MatrixXd& rows) {
            EXPECT_EQ(first, next);
            EXPECT_LE(rows.rows(), block);
            ASSERT_EQ(rows.cols(), 3);
            EXPECT_LT((rows - expected_rows.middleRows(first, rows.rows()))
                          .cwiseAbs()
                          .maxCoeff(),
                      1e-10);
            next = first + rows.rows();
          });
      EXPECT_EQ(next, w.num_queries());
    }
  }
}

TEST(Workload, PrefixAndRangeRows) {
  const Eigen::MatrixXd prefix =
      *Make(Structured(WorkloadKind::kPrefix, 4)).Dense();
  Eigen::MatrixXd lower(4, 4);
  lower << 1, 0, 0, 0,  //
      1, 1, 0, 0,       //
      1, 1, 1, 0,       //
      1, 1, 1, 1;
  EXPECT_EQ(prefix, lower);

  // Ordered by a, then b: [0,0] [0,1] [0,2] [1,1] [1,2] [2,2].
  const Eigen::MatrixXd ranges =
      *Make(Structured(WorkloadKind::kAllRange, 3)).Dense();
  Eigen::MatrixXd expected(6, 3);
  expected << 1, 0, 0,  //
      1, 1, 0,          //
      1, 1, 1,          //
      0, 1, 0,          //
      0, 1, 1,          //
      0, 0, 1;
  EXPECT_EQ(ranges, expected);
}

TEST(Workload, BitConventionFirstRecordBitIsMostSignificant) {
  // Marginals d=4, k=2: row 1 is S = {b0, b1}, v = 01: b0 = 0, b1 = 1, i.e.
  // x's top two bits are 01: x ∈ {4..7}.
  const Workload marginals = Make(Bits(WorkloadKind::kMarginals, 4, 2));
  const Eigen::MatrixXd d = *marginals.Dense();
  for (int x = 0; x < 16; ++x) {
    EXPECT_EQ(d(1, x), (x >= 4 && x < 8) ? 1 : 0) << x;
  }
  // Row 2·4 + 2 is S = {b0, b3} (third subset), v = 10: b0 = 1, b3 = 0.
  EXPECT_EQ(marginals.QueryLabel(10), "b0=1 b3=0");
  for (int x = 0; x < 16; ++x) {
    EXPECT_EQ(d(10, x), (x >= 8 && x % 2 == 0) ? 1 : 0) << x;
  }
  // Every subset's cells partition the domain.
  const Eigen::VectorXd column_sums = d.colwise().sum();
  EXPECT_TRUE((column_sums.array() == 6).all());

  // Parities d=4, k=2: b0, b1, b2, b3, then b0⊕b1, b0⊕b2, ...
  const Workload parities = Make(Bits(WorkloadKind::kParities, 4, 2));
  const Eigen::MatrixXd pd = *parities.Dense();
  EXPECT_EQ(parities.QueryLabel(0), "b0");
  EXPECT_EQ(parities.QueryLabel(4), "b0⊕b1");
  EXPECT_EQ(parities.QueryLabel(9), "b2⊕b3");
  for (int x = 0; x < 16; ++x) {
    EXPECT_EQ(pd(0, x), x >= 8 ? 1 : 0) << x;
    EXPECT_EQ(pd(9, x), ((x >> 1) ^ x) & 1) << x;
  }
  EXPECT_TRUE((pd.rowwise().sum().array() == 8).all());
}

TEST(Workload, GramClosedForms) {
  for (uint32_t n : {1u, 5u, 64u}) {
    const Eigen::MatrixXd prefix =
        Make(Structured(WorkloadKind::kPrefix, n)).Gram();
    const Eigen::MatrixXd ranges =
        Make(Structured(WorkloadKind::kAllRange, n)).Gram();
    for (uint32_t x = 0; x < n; ++x) {
      for (uint32_t y = 0; y < n; ++y) {
        const double lo = std::min(x, y), hi = std::max(x, y);
        EXPECT_EQ(prefix(x, y), n - hi);
        EXPECT_EQ(ranges(x, y), (lo + 1) * (n - hi));
      }
    }
  }
}

TEST(Workload, LabelsAreDistinctAndReadable) {
  for (const WorkloadSpec& spec : SmallSpecs()) {
    const Workload w = Make(spec);
    std::set<std::string> labels;
    for (uint64_t j = 0; j < w.num_queries(); ++j) {
      labels.insert(w.QueryLabel(j));
    }
    EXPECT_EQ(labels.size(), w.num_queries()) << w.Describe();
  }
  EXPECT_EQ(Make(Structured(WorkloadKind::kHistogram, 8)).QueryLabel(3),
            "x = 3");
  EXPECT_EQ(Make(Structured(WorkloadKind::kPrefix, 64)).QueryLabel(17),
            "x ≤ 17");
  const Workload ranges = Make(Structured(WorkloadKind::kAllRange, 16));
  EXPECT_EQ(ranges.QueryLabel(0), "0 ≤ x ≤ 0");
  EXPECT_EQ(ranges.QueryLabel(15), "0 ≤ x ≤ 15");
  EXPECT_EQ(ranges.QueryLabel(16), "1 ≤ x ≤ 1");
  EXPECT_EQ(ranges.QueryLabel(135), "15 ≤ x ≤ 15");
  EXPECT_EQ(Make(CustomSparse()).QueryLabel(1), "second");
  EXPECT_EQ(Make(CustomDense()).QueryLabel(2), "q2");
  const Workload attributes = Make(Attributes({3, 2, 4}));
  EXPECT_EQ(attributes.num_queries(), 9u);
  EXPECT_EQ(attributes.domain_size(), 24u);
  EXPECT_EQ(attributes.QueryLabel(0), "a0=0");
  EXPECT_EQ(attributes.QueryLabel(4), "a1=1");
  EXPECT_EQ(attributes.QueryLabel(8), "a2=3");
}

TEST(Workload, Describe) {
  EXPECT_EQ(Make(Structured(WorkloadKind::kPrefix, 1024)).Describe(),
            "prefix N=1024");
  EXPECT_EQ(Make(Structured(WorkloadKind::kAllRange, 256)).Describe(),
            "all ranges N=256");
  EXPECT_EQ(Make(Bits(WorkloadKind::kMarginals, 8, 2)).Describe(),
            "2-way marginals d=8");
  EXPECT_EQ(Make(CustomDense()).Describe(), "custom m=5 N=8");
  EXPECT_EQ(Make(Attributes({3, 2, 4})).Describe(),
            "1-way marginals of 3 attributes N=24");
}

TEST(Workload, AttributeMarginalsRefuseBadSizes) {
  EXPECT_THAT(Workload::Create(Attributes({})).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("1 to 12 attributes")));
  EXPECT_THAT(Workload::Create(Attributes({3, 1})).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at least 2 values")));
  EXPECT_THAT(
      Workload::Create(Attributes({64, 128})).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exceeds 4096")));
  WorkloadSpec mismatch = Attributes({3, 2});
  mismatch.domain_size = 7;
  EXPECT_THAT(Workload::Create(mismatch).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not match the attributes' product 6")));
}

TEST(Workload, SparseAndDenseCustomAgree) {
  WorkloadSpec dense_spec{
      .kind = WorkloadKind::kCustom, .domain_size = 8, .num_queries = 3};
  dense_spec.dense.assign(24, 0.0);
  for (const SparseEntry& e : CustomSparse().sparse) {
    dense_spec.dense[e.row * 8 + e.column] = e.value;
  }
  EXPECT_EQ(*Make(dense_spec).Dense(), *Make(CustomSparse()).Dense());
}

void ExpectInvalid(WorkloadSpec spec, const std::string& message) {
  absl::StatusOr<Workload> w = Workload::Create(std::move(spec));
  EXPECT_THAT(w, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr(message));
}

TEST(Workload, ValidationNamesTheField) {
  ExpectInvalid(Structured(WorkloadKind::kPrefix, 0), "workload.domain_size");
  ExpectInvalid(Structured(WorkloadKind::kAllRange, 5000),
                "workload.domain_size 5000 exceeds 4096");
  ExpectInvalid(Bits(WorkloadKind::kMarginals, 0, 1), "workload.num_bits 0");
  ExpectInvalid(Bits(WorkloadKind::kParities, 13, 2), "workload.num_bits 13");
  ExpectInvalid(Bits(WorkloadKind::kMarginals, 4, 0), "workload.order 0");
  ExpectInvalid(Bits(WorkloadKind::kMarginals, 4, 5), "workload.order 5");
  WorkloadSpec mismatch = Bits(WorkloadKind::kMarginals, 4, 2);
  mismatch.domain_size = 8;
  ExpectInvalid(mismatch, "workload.domain_size 8");

  WorkloadSpec short_dense = CustomDense();
  short_dense.dense.pop_back();
  ExpectInvalid(short_dense, "workload.dense has 39 values");
  WorkloadSpec nan = CustomDense();
  nan.dense[3] = std::nan("");
  ExpectInvalid(nan, "workload.dense[3]");
  WorkloadSpec no_queries = CustomDense();
  no_queries.num_queries = 0;
  ExpectInvalid(no_queries, "workload.num_queries 0");
  WorkloadSpec too_big{
      .kind = WorkloadKind::kCustom, .domain_size = 4096, .num_queries = 2000};
  ExpectInvalid(too_big, "entries");

  WorkloadSpec bad_row = CustomSparse();
  bad_row.sparse.push_back({3, 0, 1.0});
  ExpectInvalid(bad_row, "workload.sparse[4].row 3");
  WorkloadSpec bad_column = CustomSparse();
  bad_column.sparse.push_back({0, 8, 1.0});
  ExpectInvalid(bad_column, "workload.sparse[4].column 8");
  WorkloadSpec repeated = CustomSparse();
  repeated.sparse.push_back({2, 3, 1.0});
  ExpectInvalid(repeated, "repeats the entry (row 2, column 3)");
  WorkloadSpec infinite = CustomSparse();
  infinite.sparse[1].value = INFINITY;
  ExpectInvalid(infinite, "workload.sparse[1].value");
  WorkloadSpec zero = CustomSparse();
  for (SparseEntry& e : zero.sparse) e.value = 0;
  ExpectInvalid(zero, "all zero");
  WorkloadSpec both = CustomSparse();
  both.dense.assign(24, 1.0);
  ExpectInvalid(both, "both");

  WorkloadSpec labels = CustomSparse();
  labels.labels.pop_back();
  ExpectInvalid(labels, "workload.labels has 2 labels");
  WorkloadSpec dense_prefix = Structured(WorkloadKind::kPrefix, 4);
  dense_prefix.dense.assign(16, 1.0);
  ExpectInvalid(dense_prefix, "only for custom");
}

TEST(Workload, DenseRefusesHugeWorkloads) {
  // All ranges at N = 4096: 8.4M × 4096 entries.
  EXPECT_THAT(Make(Structured(WorkloadKind::kAllRange, 4096)).Dense(),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(Workload, AllRangesAtN1024WithoutMaterializing) {
  const uint32_t n = 1024;
  const Workload w = Make(Structured(WorkloadKind::kAllRange, n));
  SeededGenerator gen(7);
  const Eigen::MatrixXd b = Random(n, 2, gen);
  Eigen::MatrixXd cum = Eigen::MatrixXd::Zero(n + 1, 2);
  for (uint32_t x = 0; x < n; ++x) cum.row(x + 1) = cum.row(x) + b.row(x);
  uint64_t covered = 0;
  double worst = 0;
  w.ForEachProjectedBlock(
      b, 3000, [&](uint64_t first, const Eigen::MatrixXd& rows) {
        EXPECT_EQ(first, covered);
        covered += rows.rows();
        // Spot-check the first and last rows of each block.
        for (Eigen::Index r : {Eigen::Index{0}, rows.rows() - 1}) {
          std::string label = w.QueryLabel(first + r);  // "a ≤ x ≤ b"
          const uint32_t a = std::stoul(label);
          const uint32_t last = std::stoul(label.substr(label.rfind(' ') + 1));
          worst =
              std::max(worst, (rows.row(r) - (cum.row(last + 1) - cum.row(a)))
                                  .cwiseAbs()
                                  .maxCoeff());
        }
      });
  EXPECT_EQ(covered, 524800u);
  EXPECT_LT(worst, 1e-9);

  // The Gram's closed form at full size.
  const Eigen::MatrixXd gram = w.Gram();
  EXPECT_EQ(gram(0, 0), 1024.0);
  EXPECT_EQ(gram(100, 900), 101.0 * 124.0);
  EXPECT_EQ(gram(1023, 1023), 1024.0);
}

TEST(Workload, CopiesShareData) {
  const Workload w = Make(CustomDense());
  const Workload copy = w;
  EXPECT_EQ(&w.spec(), &copy.spec());
}

}  // namespace
}  // namespace ldp

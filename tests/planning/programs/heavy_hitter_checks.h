// Test helpers for the heavy-hitter programs: populations of a few planted
// values with stated shares over uniform noise on 2^bits values, the ranked
// result read back (bit_candidates.h, RankedResult), and the check that bad
// parameters are refused.
#ifndef LDP_TESTS_PLANNING_PROGRAMS_HEAVY_HITTER_CHECKS_H_
#define LDP_TESTS_PLANNING_PROGRAMS_HEAVY_HITTER_CHECKS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_registry.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// `v`'s low `bits` bits, most significant first.
inline std::vector<bool> PlantedBits(uint64_t v, int bits) {
  std::vector<bool> out(bits);
  for (int j = 0; j < bits; ++j) out[j] = (v >> (bits - 1 - j)) & 1;
  return out;
}

struct PlantedPopulation {
  int bits = 0;
  std::vector<uint32_t> values{};  // agent a holds values[a], a ≥ 1
  std::map<uint32_t, int64_t> counts{};

  double Share(uint32_t v) const {
    const auto it = counts.find(v);
    return it == counts.end() ? 0 : double(it->second) / (values.size() - 1);
  }
  RecordSource Records() const {
    return [this](uint64_t agent) {
      Record r;
      r.values["value"] = PlantedBits(values[agent], bits);
      return r;
    };
  }
};

// Each agent holds planted value i with probability heavy[i].second, else a
// uniform value of `bits` bits.
inline PlantedPopulation DrawPlanted(
    const std::vector<std::pair<uint32_t, double>>& heavy, int bits,
    int64_t agents, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<uint32_t> any(0, (uint32_t{1} << bits) - 1);
  PlantedPopulation p{.bits = bits};
  p.values.resize(agents + 1);
  for (int64_t a = 1; a <= agents; ++a) {
    double x = u(gen);
    p.values[a] = any(gen);
    for (const auto& [value, share] : heavy) {
      if (x < share) {
        p.values[a] = value;
        break;
      }
      x -= share;
    }
    ++p.counts[p.values[a]];
  }
  return p;
}

// One released value: top[i].value, its share and the share's standard
// error (the 95% interval's half-width over 1.96).
struct FoundValue {
  uint32_t value = 0;
  double share = 0;
  double se = 0;
};

inline std::vector<FoundValue> ReadFound(const ProgramResult& result) {
  std::vector<FoundValue> found;
  for (int i = 0;; ++i) {
    const std::string name = absl::StrCat("top[", i, "]");
    const ProgramValue* share = nullptr;
    const ProgramValue* value = nullptr;
    for (const ProgramValue& v : result.values) {
      if (v.name == name + ".count_fraction") share = &v;
      if (v.name == name + ".value") value = &v;
    }
    if (share == nullptr || value == nullptr || !share->interval) break;
    found.push_back({.value = static_cast<uint32_t>(value->value),
                     .share = share->value,
                     .se = (share->interval->upper - share->interval->lower) /
                           (2 * 1.959964)});
  }
  return found;
}

// The tests' schema: a 16-bit "value", the field the programs search, and
// an int "n", a field they must refuse to search.
inline RecordSchema SixteenBitSchema() {
  return *RecordSchema::Create(
      {FieldSpec::BitVector("value", 16), FieldSpec::Int("n", 0, 3)});
}

// `program` with `parameters` over SixteenBitSchema at a cap of ε = 4.
inline absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateSearch(
    const std::string& program, std::map<std::string, std::string> parameters) {
  return CreateAnalystProgram(
      ProgramSpec{.name = program, .parameters = std::move(parameters)},
      ProgramContext{.schema = SixteenBitSchema(),
                     .epsilon_cap_nanos = 4 * kEps});
}

// Parameters, and a text the refusal must name.
using ParameterCase =
    std::pair<std::map<std::string, std::string>, std::string>;

// `program` (CreateSearch) refuses every case with InvalidArgument naming
// its text.
inline void ExpectRefused(const std::string& program,
                          const std::vector<ParameterCase>& cases) {
  for (const auto& [parameters, message] : cases) {
    absl::StatusOr<std::unique_ptr<AnalystProgram>> created =
        CreateSearch(program, parameters);
    EXPECT_THAT(created, StatusIs(absl::StatusCode::kInvalidArgument))
        << message;
    EXPECT_THAT(created.status().message(), ::testing::HasSubstr(message));
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_PLANNING_PROGRAMS_HEAVY_HITTER_CHECKS_H_

#include "common/longitudinal.h"

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(Placeholder, Builds) {}

}  // namespace
}  // namespace ldp

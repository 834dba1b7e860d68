// The one source of ldp_test_pch, the target that owns the tests'
// precompiled header (precompiled.h); every test reuses what it builds.
#include "tests/testing/precompiled.h"

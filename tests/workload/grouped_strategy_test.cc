// Placeholder: tests land with the implementation (issue 5).
#include "gtest/gtest.h"

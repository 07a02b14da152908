// The one source of pyramid_test_pch, the target that builds tests/test_pch.h
// into the precompiled header every test reuses (CMakeLists.txt). It compiles
// to nothing.
#include "tests/test_pch.h"

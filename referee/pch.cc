// The one source of pyramid_pch, the target that builds referee/pch.h into
// the precompiled header our libraries and programs reuse (CMakeLists.txt).
// It compiles to nothing.
#include "referee/pch.h"

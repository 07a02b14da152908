// The headers most of our libraries and programs include, parsed once per
// build instead of once per source file: the root CMakeLists.txt precompiles
// this file (target pyramid_pch) and every library and program of ours
// reuses it (pyramid_precompile_headers). Only a build speed-up: each source
// still includes what it uses, and compiles the same without it (configure
// with -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON to check). Tests have their
// own (tests/test_pch.h, with GoogleTest).
#ifndef PYRAMID_REFEREE_PCH_H_
#define PYRAMID_REFEREE_PCH_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"

#endif  // PYRAMID_REFEREE_PCH_H_

// The headers nearly every test includes, parsed once per build instead of
// once per test file: CMakeLists.txt's pyramid_test() precompiles this file
// (target pyramid_test_pch) and every test target reuses it. Only a build
// speed-up: each test file still includes what it uses, and compiles the
// same without it (configure with -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON to
// check). gRPC's headers stay out; few tests include them and they would
// make the precompiled header every test loads half as large again.
#ifndef PYRAMID_TESTS_TEST_PCH_H_
#define PYRAMID_TESTS_TEST_PCH_H_

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"

#endif  // PYRAMID_TESTS_TEST_PCH_H_

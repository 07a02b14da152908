// The valid ranges of a match's ClockSettings (docs/protocol.md,
// "Deadlines"). Every way a match is created (CreateMatch, the tournament
// file, the referee's default clock flags, in-process matches) checks its
// clocks here, so a setting no clock can honour is refused before a match
// starts instead of stalling or overflowing one.
#ifndef PYRAMID_REFEREE_CORE_CLOCK_SETTINGS_H_
#define PYRAMID_REFEREE_CORE_CLOCK_SETTINGS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// A commit or reveal timeout is 0 (no deadline) or within these bounds: a
// deadline shorter than a round trip cannot be met, one longer than a day is
// a mistake (2^32 - 1 ms, what -1 becomes in a uint32, is 49.7 days).
inline constexpr uint32_t kMinTimeoutMs = 50;
inline constexpr uint32_t kMaxTimeoutMs = 24 * 60 * 60 * 1000;
// The time bank a seat starts with, and what each decision adds to it.
inline constexpr uint32_t kMaxTimeBankMs = 24 * 60 * 60 * 1000;
inline constexpr uint32_t kMaxTimeBankIncrementMs = 60 * 60 * 1000;

// OK when `clocks` is within the ranges above and consistent (a time bank
// or an increment needs a commit timeout, which it extends). Otherwise
// INVALID_ARGUMENT naming the field (`clocks.<field>`) and the valid range.
absl::Status ValidateClockSettings(const referee::v1::ClockSettings& clocks);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_CLOCK_SETTINGS_H_

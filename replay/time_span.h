// A log's times, and the span between two of them, as text, for `replay
// show` and the match viewer. The log's times are any int64 the referee
// wrote (the verifier does not judge them), so the difference of two may
// not fit in one.
#ifndef PYRAMID_REPLAY_TIME_SPAN_H_
#define PYRAMID_REPLAY_TIME_SPAN_H_

#include <cstdint>
#include <string>

namespace pyramid {

// The time `unix_ms` as "YYYY-MM-DD HH:MM:SS.mmm UTC" ("-" for 0).
std::string UtcTime(int64_t unix_ms);

// "N ms" from `from` to `to`; a forged pair of times whose difference int64
// cannot hold (INT64_MIN to INT64_MAX) is "an impossible span" instead.
std::string MsBetween(int64_t from, int64_t to);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_TIME_SPAN_H_

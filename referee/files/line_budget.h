// A budget of lines written where others can make a program write: at
// most so many per window, those refused counted, to be said with the next
// line allowed. Not thread-safe: its user holds a lock.
#ifndef PYRAMID_REFEREE_FILES_LINE_BUDGET_H_
#define PYRAMID_REFEREE_FILES_LINE_BUDGET_H_

#include <cstdint>

#include "absl/time/time.h"

namespace pyramid {

// A budget of lines: at most `lines` lines per `window`, the first
// line that opens a window beginning it.
class LineBudget {
 public:
  LineBudget(int lines, absl::Duration window)
      : lines_(lines), window_(window) {}

  // Whether a line may be written at `now`; if so, `*held_back` is the
  // count of lines refused since the last one allowed (to be said first).
  bool Allow(absl::Time now, int64_t* held_back);

  // A line that is written whatever the budget (one before the program
  // aborts): it takes a line of the budget if one is left, and is never
  // counted as held back. Returns the count of lines refused since the last
  // one allowed (to be said first), now zero.
  int64_t Force(absl::Time now);

  // The lines refused since the last one allowed, now zero.
  int64_t TakeHeldBack();

  // Counts `lines` as held back after all: allowed, but not written
  // (stderr did not take them at once).
  void HoldBack(int64_t lines);

 private:
  // Opens a new window at `now` if the last one has passed.
  void StartWindowIfDue(absl::Time now);

  int lines_;
  absl::Duration window_;
  absl::Time window_start_ = absl::InfinitePast();
  int used_ = 0;
  int64_t held_back_ = 0;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_FILES_LINE_BUDGET_H_

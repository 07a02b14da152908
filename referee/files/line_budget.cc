#include "referee/files/line_budget.h"

namespace pyramid {

void LineBudget::StartWindowIfDue(absl::Time now) {
  if (now - window_start_ >= window_) {
    window_start_ = now;
    used_ = 0;
  }
}

bool LineBudget::Allow(absl::Time now, int64_t* held_back) {
  StartWindowIfDue(now);
  if (used_ >= lines_) {
    ++held_back_;
    return false;
  }
  ++used_;
  *held_back = TakeHeldBack();
  return true;
}

int64_t LineBudget::Force(absl::Time now) {
  StartWindowIfDue(now);
  if (used_ < lines_) ++used_;
  return TakeHeldBack();
}

int64_t LineBudget::TakeHeldBack() {
  const int64_t held_back = held_back_;
  held_back_ = 0;
  return held_back;
}

void LineBudget::HoldBack(int64_t lines) { held_back_ += lines; }

}  // namespace pyramid

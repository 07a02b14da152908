#include "referee/games/pyramid_scheme_goals.h"

#include <algorithm>
#include <array>
#include <map>

namespace pyramid {
namespace pss {
namespace {

// Counts over one pyramid, computed once per check.
struct Tally {
  std::array<int, kNumColours> victims_by_colour = {};
  std::map<int, int> victims_by_number;
  std::array<int, kNumColours> flipped_by_colour = {};
  // Numbers of every smart-ass (flipped Victims, Founder and Police).
  std::map<int, int> flipped_by_number;
  int flipped_police = 0;
};

Tally Count(const Edition& edition, const Pyramid& pyramid) {
  Tally tally;
  for (const Node& node : pyramid.nodes()) {
    const CardSpec& spec = edition.Spec(node.card);
    if (edition.IsVictim(node.card)) {
      ++tally.victims_by_colour[spec.colour];
      ++tally.victims_by_number[spec.number];
      if (node.flipped) ++tally.flipped_by_colour[spec.colour];
    }
    if (!node.flipped) continue;
    ++tally.flipped_by_number[spec.number];
    if (edition.IsPolice(node.card)) ++tally.flipped_police;
  }
  return tally;
}

int VictimsNumbered(const Tally& tally, int number) {
  auto it = tally.victims_by_number.find(number);
  return it == tally.victims_by_number.end() ? 0 : it->second;
}

// The most non-Police cards on one path down from node `index` (flipped
// Police on the path are skipped; unflipped Police are leaves and add 0).
int LongestBranch(const Edition& edition, const Pyramid& pyramid, int index) {
  int below = 0;
  for (int child : pyramid.Children(index)) {
    below = std::max(below, LongestBranch(edition, pyramid, child));
  }
  return (edition.IsPolice(pyramid.node(index).card) ? 0 : 1) + below;
}

bool ThreeSmartAssesBelowOneCard(const Pyramid& pyramid) {
  for (int index = 0; index < pyramid.size(); ++index) {
    int flipped = 0;
    for (int child : pyramid.Children(index)) {
      flipped += pyramid.node(child).flipped ? 1 : 0;
    }
    if (flipped >= 3) return true;
  }
  return false;
}

}  // namespace

bool GoalSatisfied(const Edition& edition, int goal, const Pyramid& pyramid,
                   int reset_tokens) {
  if (pyramid.empty()) return false;
  const Tally tally = Count(edition, pyramid);
  switch (goal) {
    case 0:  // Five Victims of one colour: green / blue / pink / yellow.
    case 1:
    case 2:
    case 3:
      return tally.victims_by_colour[goal] >= 5;
    case 4:  // Smart-ass Victims of all four colours.
      return std::all_of(tally.flipped_by_colour.begin(),
                         tally.flipped_by_colour.end(),
                         [](int n) { return n >= 1; });
    case 5:  // Four smart-ass Victims of the same colour.
      return std::any_of(tally.flipped_by_colour.begin(),
                         tally.flipped_by_colour.end(),
                         [](int n) { return n >= 4; });
    case 6:  // Four smart-asses with the same number.
      return std::any_of(tally.flipped_by_number.begin(),
                         tally.flipped_by_number.end(),
                         [](const auto& entry) { return entry.second >= 4; });
    case 7:  // Four smart-asses with different numbers.
      return tally.flipped_by_number.size() >= 4;
    case 8:  // Five Victims numbered 1.
      return VictimsNumbered(tally, 1) >= 5;
    case 9:  // Four numbered 2.
      return VictimsNumbered(tally, 2) >= 4;
    case 10:  // Three numbered 3 (Police excluded).
      return VictimsNumbered(tally, 3) >= 3;
    case 11:  // One Victim of each number 1-5.
      for (int number = 1; number <= 5; ++number) {
        if (VictimsNumbered(tally, number) < 1) return false;
      }
      return true;
    case 12:  // Two Victims of each colour.
      return std::all_of(tally.victims_by_colour.begin(),
                         tally.victims_by_colour.end(),
                         [](int n) { return n >= 2; });
    case 13:  // A branch of six non-Police cards, Founder included.
      return LongestBranch(edition, pyramid, 0) >= 6;
    case 14:  // Three capacity tokens on cards of the pyramid.
      return pyramid.CapacityTokens() >= 3;
    case 15:  // Three reset tokens held.
      return reset_tokens >= 3;
    case 16:  // Three smart-asses directly below one card.
      return ThreeSmartAssesBelowOneCard(pyramid);
    case 17:  // Two flipped Police.
      return tally.flipped_police >= 2;
    default:
      return false;
  }
}

}  // namespace pss
}  // namespace pyramid

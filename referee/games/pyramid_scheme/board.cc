#include "referee/games/pyramid_scheme/board.h"

#include <algorithm>
#include <array>
#include <vector>

namespace pyramid::scheme {

Pyramid Pyramid::WithFounder(const Edition& edition) {
  Pyramid pyramid;
  pyramid.Add(edition.founder_id(), kNoParent);
  return pyramid;
}

int Pyramid::Find(int card) const {
  for (int i = 0; i < size(); ++i) {
    if (nodes_[i].card == card) return i;
  }
  return -1;
}

void Pyramid::Add(int card, int parent) {
  Node node;
  node.card = card;
  node.parent = parent;
  nodes_.push_back(node);
}

void Pyramid::Remove(int index) { nodes_.erase(nodes_.begin() + index); }

std::vector<int> Pyramid::Children(int index) const {
  std::vector<int> children;
  ForEachChild(index, [&](int child) { children.push_back(child); });
  return children;
}

bool Pyramid::HasChildren(int index) const {
  const int card = nodes_[index].card;
  for (int i = index + 1; i < size(); ++i) {
    if (nodes_[i].parent == card) return true;
  }
  return false;
}

std::vector<int> Pyramid::PyramidOrder() const {
  std::vector<int> order;
  if (nodes_.empty()) return order;
  order.push_back(0);
  for (size_t next = 0; next < order.size(); ++next) {
    ForEachChild(order[next], [&](int child) { order.push_back(child); });
  }
  return order;
}

int Pyramid::Limit(const Edition& edition, int index) const {
  const Node& node = nodes_[index];
  int limit = edition.Spec(node.card).number;
  for (int token : node.capacity_tokens) limit += token;
  return limit;
}

int Pyramid::ChildSum(const Edition& edition, int index) const {
  int sum = 0;
  ForEachChild(index, [&](int child) {
    sum += edition.Spec(nodes_[child].card).number;
  });
  return sum;
}

bool Pyramid::Fits(const Edition& edition, int index, int number) const {
  const Node& node = nodes_[index];
  if (edition.IsPolice(node.card) && !node.flipped) return false;  // Rule 3.
  return ChildSum(edition, index) + number <= Limit(edition, index);
}

bool Pyramid::ColourFreeAbove(const Edition& edition, int index,
                              int colour) const {
  for (int i = index; i >= 0;) {
    const Node& node = nodes_[i];
    if (edition.IsVictim(node.card) && !node.flipped &&
        edition.Spec(node.card).colour == colour) {
      return false;
    }
    i = node.parent == kNoParent ? -1 : Find(node.parent);
  }
  return true;
}

bool Pyramid::CanPlaceVictim(const Edition& edition, int card, int index,
                             bool ignore_colour) const {
  const CardSpec& spec = edition.Spec(card);
  if (!Fits(edition, index, spec.number)) return false;
  return ignore_colour || ColourFreeAbove(edition, index, spec.colour);
}

bool Pyramid::ConditionMet(const Edition& edition, int index) const {
  const CardSpec& spec = edition.Spec(nodes_[index].card);
  std::array<int, kNumColours> below = {};
  int victims = 0;
  ForEachChild(index, [&](int child) {
    const int card = nodes_[child].card;
    if (!edition.IsVictim(card)) return;
    ++below[edition.Spec(card).colour];
    ++victims;
  });
  // Named colours take their own Victims; `any` takes what is left.
  int named = 0;
  for (int colour = 0; colour < kNumColours; ++colour) {
    if (below[colour] < spec.need[colour]) return false;
    named += spec.need[colour];
  }
  return victims - named >= spec.need_any;
}

std::vector<int> Pyramid::Qualifying(const Edition& edition) const {
  std::vector<int> qualifying;
  for (int index : PyramidOrder()) {
    const Node& node = nodes_[index];
    if (node.flipped || edition.IsPolice(node.card)) continue;
    if (ConditionMet(edition, index)) qualifying.push_back(index);
  }
  return qualifying;
}

bool Pyramid::AnyQualifying(const Edition& edition) const {
  for (int index = 0; index < size(); ++index) {
    const Node& node = nodes_[index];
    if (node.flipped || edition.IsPolice(node.card)) continue;
    if (ConditionMet(edition, index)) return true;
  }
  return false;
}

int Pyramid::SmartAsses() const {
  int count = 0;
  for (const Node& node : nodes_) count += node.flipped ? 1 : 0;
  return count;
}

int Pyramid::CapacityTokens() const {
  int count = 0;
  for (const Node& node : nodes_) {
    count += static_cast<int>(node.capacity_tokens.size());
  }
  return count;
}

// The 18 Goals (goals of board.h).

namespace {

// The most non-Police cards on one path down from node `index` (flipped
// Police on the path are skipped; unflipped Police are leaves and add 0).
int LongestBranch(const Edition& edition, const Pyramid& pyramid, int index) {
  int below = 0;
  pyramid.ForEachChild(index, [&](int child) {
    below = std::max(below, LongestBranch(edition, pyramid, child));
  });
  return (edition.IsPolice(pyramid.node(index).card) ? 0 : 1) + below;
}

bool ThreeSmartAssesBelowOneCard(const Pyramid& pyramid) {
  for (int index = 0; index < pyramid.size(); ++index) {
    int flipped = 0;
    pyramid.ForEachChild(index, [&](int child) {
      flipped += pyramid.node(child).flipped ? 1 : 0;
    });
    if (flipped >= 3) return true;
  }
  return false;
}

}  // namespace

bool GoalSatisfied(const Edition& edition, int goal, const Pyramid& pyramid,
                   int reset_tokens) {
  return GoalCheck(edition, pyramid, reset_tokens).Satisfied(goal);
}

GoalCheck::GoalCheck(const Edition& edition, const Pyramid& pyramid,
                     int reset_tokens)
    : edition_(edition), pyramid_(pyramid), reset_tokens_(reset_tokens) {
  for (const Node& node : pyramid.nodes()) {
    const CardSpec& spec = edition.Spec(node.card);
    if (edition.IsVictim(node.card)) {
      ++victims_by_colour_[spec.colour];
      if (spec.number >= 1 && spec.number <= kMaxGoalNumber) {
        ++victims_by_number_[spec.number];
      }
      if (node.flipped) ++flipped_by_colour_[spec.colour];
    }
    if (node.flipped && edition.IsPolice(node.card)) ++flipped_police_;
  }
}

int GoalCheck::SmartAssesNumbered(int number, size_t among_first) const {
  const std::vector<Node>& nodes = pyramid_.nodes();
  int count = 0;
  for (size_t i = 0; i < among_first; ++i) {
    if (nodes[i].flipped && edition_.Spec(nodes[i].card).number == number) {
      ++count;
    }
  }
  return count;
}

int GoalCheck::MostSmartAssesWithOneNumber() const {
  const std::vector<Node>& nodes = pyramid_.nodes();
  int most = 0;
  for (const Node& node : nodes) {
    if (!node.flipped) continue;
    most = std::max(most, SmartAssesNumbered(edition_.Spec(node.card).number,
                                             nodes.size()));
  }
  return most;
}

int GoalCheck::SmartAssNumbers() const {
  const std::vector<Node>& nodes = pyramid_.nodes();
  int numbers = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    // Each number counted at its first smart-ass only.
    if (nodes[i].flipped &&
        SmartAssesNumbered(edition_.Spec(nodes[i].card).number, i) == 0) {
      ++numbers;
    }
  }
  return numbers;
}

bool GoalCheck::Satisfied(int goal) const {
  if (pyramid_.empty()) return false;
  switch (goal) {
    case 0:  // Five Victims of one colour: green / blue / pink / yellow.
    case 1:
    case 2:
    case 3:
      return victims_by_colour_[goal] >= 5;
    case 4:  // Smart-ass Victims of all four colours.
      return std::all_of(flipped_by_colour_.begin(), flipped_by_colour_.end(),
                         [](int n) { return n >= 1; });
    case 5:  // Four smart-ass Victims of the same colour.
      return std::any_of(flipped_by_colour_.begin(), flipped_by_colour_.end(),
                         [](int n) { return n >= 4; });
    case 6:  // Four smart-asses with the same number.
      return MostSmartAssesWithOneNumber() >= 4;
    case 7:  // Four smart-asses with different numbers.
      return SmartAssNumbers() >= 4;
    case 8:  // Five Victims numbered 1.
      return VictimsNumbered(1) >= 5;
    case 9:  // Four numbered 2.
      return VictimsNumbered(2) >= 4;
    case 10:  // Three numbered 3 (Police excluded).
      return VictimsNumbered(3) >= 3;
    case 11:  // One Victim of each number 1-5.
      for (int number = 1; number <= 5; ++number) {
        if (VictimsNumbered(number) < 1) return false;
      }
      return true;
    case 12:  // Two Victims of each colour.
      return std::all_of(victims_by_colour_.begin(), victims_by_colour_.end(),
                         [](int n) { return n >= 2; });
    case 13:  // A branch of six non-Police cards, Founder included.
      return LongestBranch(edition_, pyramid_, 0) >= 6;
    case 14:  // Three capacity tokens on cards of the pyramid.
      return pyramid_.CapacityTokens() >= 3;
    case 15:  // Three reset tokens held.
      return reset_tokens_ >= 3;
    case 16:  // Three smart-asses directly below one card.
      return ThreeSmartAssesBelowOneCard(pyramid_);
    case 17:  // Two flipped Police.
      return flipped_police_ >= 2;
    default:
      return false;
  }
}

}  // namespace pyramid::scheme

#include "referee/games/pyramid_scheme_pyramid.h"

#include <array>
#include <vector>

namespace pyramid {
namespace pss {

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
  const int card = nodes_[index].card;
  for (int i = index + 1; i < size(); ++i) {
    if (nodes_[i].parent == card) children.push_back(i);
  }
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
    for (int child : Children(order[next])) order.push_back(child);
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
  for (int child : Children(index)) {
    sum += edition.Spec(nodes_[child].card).number;
  }
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
  for (int child : Children(index)) {
    const int card = nodes_[child].card;
    if (!edition.IsVictim(card)) continue;
    ++below[edition.Spec(card).colour];
    ++victims;
  }
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

}  // namespace pss
}  // namespace pyramid

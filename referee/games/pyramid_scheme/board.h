// One seat's pyramid in Pyramid Scheme: the tree of cards below its Founder,
// with the placement rules, flip conditions and counts the rules and goals
// need. Cards are named by card id (tables.h); nodes are kept
// in placement order, so a node's parent always comes before it and
// siblings are in the order they were placed.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_BOARD_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_BOARD_H_

#include <array>
#include <cstddef>
#include <vector>

#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {

inline constexpr int kNoParent = -1;

struct Node {
  int card = 0;
  int parent = kNoParent;  // The parent's card id; kNoParent for the root.
  bool flipped = false;
  std::vector<int> capacity_tokens;  // Values (2 or 3), in order placed.
};

class Pyramid {
 public:
  // An empty pyramid (an eliminated seat's).
  Pyramid() = default;
  // A pyramid holding only an unflipped Founder.
  static Pyramid WithFounder(const Edition& edition);

  const std::vector<Node>& nodes() const { return nodes_; }
  bool empty() const { return nodes_.empty(); }
  int size() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int index) const { return nodes_[index]; }
  Node& mutable_node(int index) { return nodes_[index]; }

  // The index of `card`, or -1 when it is not in this pyramid.
  int Find(int card) const;

  // Appends `card`, unflipped, below the card `parent` (kNoParent for the
  // root). Does not check any rule.
  void Add(int card, int parent);
  // Removes the node at `index`, which must have no children.
  void Remove(int index);
  void Clear() { nodes_.clear(); }

  // Indices of the children of node `index`, in placement order.
  std::vector<int> Children(int index) const;
  // Calls `visit(child)` for each of them, in the same order, without
  // making the list.
  template <typename Visit>
  void ForEachChild(int index, Visit visit) const {
    const int card = nodes_[index].card;
    for (int i = index + 1; i < size(); ++i) {
      if (nodes_[i].parent == card) visit(i);
    }
  }
  bool HasChildren(int index) const;
  // Every index in pyramid order: breadth-first from the Founder, children
  // in the order they were placed.
  std::vector<int> PyramidOrder() const;

  // The node's number plus its capacity tokens.
  int Limit(const Edition& edition, int index) const;
  // The sum of the numbers of its direct children.
  int ChildSum(const Edition& edition, int index) const;
  // Whether a card numbered `number` may become a child of node `index`
  // under placement rules 1 and 3: the node is the Founder, a Victim or a
  // flipped Police, and the children's sum stays within its limit.
  bool Fits(const Edition& edition, int index, int number) const;
  // Placement rule 2: no unflipped Victim of `colour` is node `index` or
  // one of its ancestors.
  bool ColourFreeAbove(const Edition& edition, int index, int colour) const;
  // Rules 1-3 for Victim `card` below node `index`; rule 2 is skipped when
  // `ignore_colour` (an armed bypass).
  bool CanPlaceVictim(const Edition& edition, int card, int index,
                      bool ignore_colour) const;

  // Whether the Victims directly below node `index` meet its condition.
  bool ConditionMet(const Edition& edition, int index) const;
  // Indices of the unflipped Victims and Founder whose condition is met, in
  // pyramid order.
  std::vector<int> Qualifying(const Edition& edition) const;
  // Whether Qualifying() is not empty, without listing it.
  bool AnyQualifying(const Edition& edition) const;

  // Flipped cards of every kind.
  int SmartAsses() const;
  // Capacity tokens on all cards.
  int CapacityTokens() const;

 private:
  std::vector<Node> nodes_;
};

// Pyramid Scheme's 18 Goals (rules page, "Goals").
inline constexpr int kNumGoals = 18;

// True iff `pyramid`, with `reset_tokens` held, satisfies goal `goal`
// (0..kNumGoals-1; false for any other id).
bool GoalSatisfied(const Edition& edition, int goal, const Pyramid& pyramid,
                   int reset_tokens);

// GoalSatisfied for one pyramid and any number of goals: the pyramid is
// counted once, when the check is made. `edition` and `pyramid` must
// outlive it, unchanged.
class GoalCheck {
 public:
  GoalCheck(const Edition& edition, const Pyramid& pyramid, int reset_tokens);

  // GoalSatisfied(edition, goal, pyramid, reset_tokens).
  bool Satisfied(int goal) const;

 private:
  // Victims numbered `number` (1..kMaxGoalNumber).
  int VictimsNumbered(int number) const { return victims_by_number_[number]; }
  // Goals 6 and 7, on the smart-asses' numbers (flipped Victims, Founder and
  // Police): the most that share one number, and how many numbers differ.
  // Counted from the pyramid when asked, pair by pair: a pyramid holds a few
  // dozen cards, and the check is made after every action, where a map of
  // the numbers cost an allocation per number.
  int MostSmartAssesWithOneNumber() const;
  int SmartAssNumbers() const;
  // The smart-asses numbered `number` among the pyramid's first
  // `among_first` nodes.
  int SmartAssesNumbered(int number, size_t among_first) const;

  // The highest Victim number a goal counts.
  static constexpr int kMaxGoalNumber = 5;

  const Edition& edition_;
  const Pyramid& pyramid_;
  int reset_tokens_;
  std::array<int, kNumColours> victims_by_colour_ = {};
  // By number, 1..kMaxGoalNumber (index 0 and higher numbers: not counted).
  std::array<int, kMaxGoalNumber + 1> victims_by_number_ = {};
  std::array<int, kNumColours> flipped_by_colour_ = {};
  int flipped_police_ = 0;
};

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_BOARD_H_

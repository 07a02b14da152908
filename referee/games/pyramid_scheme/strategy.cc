#include "referee/games/pyramid_scheme/strategy.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>
#include <vector>

namespace pyramid {
namespace {

using Observation = v1::PyramidSchemeObservation;

constexpr int kNumColours = 4;
constexpr int kPoliceNumber = 3;

// Weights of the value function and of the action scores, in smart-asses.
constexpr double kLackFactor = 0.5;      // Per Victim a condition lacks.
constexpr double kBlockedFactor = 0.25;  // A needed colour is barred above.
constexpr double kGoalWeight = 0.5;      // A goal claimed.
constexpr double kNoPoliceRoom = 3.0;    // No card can take a Police.
constexpr double kOnePoliceRoom = 0.3;   // Only one card can.
constexpr double kHandShare = 0.5;       // Of a hand card's best placement.
constexpr double kHandSlot = 0.05;       // What a free hand slot is worth.
constexpr double kStuck = 10.0;          // A full hand that cannot be placed.
constexpr double kResetScore = -0.2;     // Spending a reset instead.
constexpr double kBypassCost = 0.3;      // Spending a bypass.

// What flipping a card's reward is worth beyond the smart-ass itself.
double RewardWorth(v1::PssReward reward) {
  switch (reward) {
    case v1::PSS_FLIP_OTHER_WITH_BONUS:
      return 1.3;
    case v1::PSS_FLIP_OTHER:
      return 1.0;
    case v1::PSS_FLIP_POLICE:
      return 0.5;
    case v1::PSS_CAPACITY_3:
      return 0.4;
    case v1::PSS_CAPACITY_2:
    case v1::PSS_HAND_LIMIT_1:
    case v1::PSS_DISCARD_POLICE:
      return 0.3;
    case v1::PSS_TAKE_RESET:
    case v1::PSS_TAKE_BYPASS:
    case v1::PSS_RESERVE_GOAL:
      return 0.2;
    case v1::PSS_DISCARD_HAND:
      return 0.1;
    default:
      return 0.0;
  }
}

// Card faces, from the observation's card table. Ids outside the table
// read as blank cards.
class Faces {
 public:
  explicit Faces(const v1::PssCardTable& table) : table_(table) {}

  // 0 for no colour, else 1..4 (PssColour).
  int colour(int card) const {
    return In(card, table_.colours_size()) ? table_.colours(card) : 0;
  }
  int number(int card) const {
    return In(card, table_.numbers_size())
               ? static_cast<int>(table_.numbers(card))
               : 0;
  }
  v1::PssReward reward(int card) const {
    return In(card, table_.rewards_size()) ? table_.rewards(card)
                                           : v1::PSS_NO_REWARD;
  }
  // Victims of `colour` (1..4) the card's condition needs below it.
  int need(int card, int colour) const {
    const int index = kNumColours * card + colour - 1;
    return In(card, table_.colours_size()) &&
                   In(index, table_.condition_needs_size())
               ? static_cast<int>(table_.condition_needs(index))
               : 0;
  }
  // Further Victims of any colour it needs.
  int any(int card) const {
    return In(card, table_.condition_any_size())
               ? static_cast<int>(table_.condition_any(card))
               : 0;
  }

 private:
  static bool In(int index, int size) { return index >= 0 && index < size; }

  const v1::PssCardTable& table_;
};

// The goals open to us: in play, unclaimed, not reserved by another seat.
std::vector<int> OpenGoals(const v1::PssBoard& board, uint32_t me) {
  std::vector<int> open;
  for (const v1::PssGoalView& goal : board.goals()) {
    if (goal.has_claimed_by()) continue;
    if (goal.has_reserved_by() && goal.reserved_by() != me) continue;
    open.push_back(static_cast<int>(goal.goal()));
  }
  return open;
}

// One seat's pyramid as the heuristic sees it, with the placement rules,
// conditions and the value function.
class Model {
 public:
  Model(const v1::PssSeatView& seat, const Faces& faces,
        std::vector<int> open_goals)
      : faces_(&faces),
        open_goals_(std::move(open_goals)),
        reset_tokens_(static_cast<int>(seat.reset_tokens())) {
    for (const v1::PssNode& node : seat.pyramid()) {
      nodes_.push_back({.card = static_cast<int>(node.card().id()),
                        .kind = node.kind(),
                        .parent = node.has_parent()
                                      ? Find(static_cast<int>(node.parent()))
                                      : -1,
                        .flipped = node.flipped(),
                        .limit = static_cast<int>(node.limit()),
                        .tokens = node.capacity_tokens_size()});
    }
  }

  // The index of `card`, or -1.
  int Find(int card) const {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].card == card && !nodes_[i].gone) return static_cast<int>(i);
    }
    return -1;
  }

  // Placement rules 1 and 3: a card numbered `number` may go below `index`.
  bool Fits(int index, int number) const {
    const Node& node = nodes_[index];
    if (node.kind == v1::PSS_POLICE && !node.flipped) return false;
    return Spare(index) >= number;
  }

  // Placement rule 2: no unflipped Victim of `colour` at `index` or above.
  bool ColourFree(int index, int colour) const {
    for (int i = index; i >= 0; i = nodes_[i].parent) {
      const Node& node = nodes_[i];
      if (node.kind == v1::PSS_VICTIM && !node.flipped &&
          faces_->colour(node.card) == colour) {
        return false;
      }
    }
    return true;
  }

  bool CanPlace(int card, int index, bool bypass) const {
    return Fits(index, faces_->number(card)) &&
           (bypass || ColourFree(index, faces_->colour(card)));
  }

  // Victim `card` below node `index`; when that meets the parent's
  // condition the parent flips, as the flip window would let us do.
  void Place(int card, int index) {
    nodes_.push_back({.card = card, .kind = v1::PSS_VICTIM, .parent = index});
    Node& parent = nodes_[index];
    if (!parent.flipped && parent.kind != v1::PSS_POLICE &&
        Lacking(index) == 0) {
      Flip(index, /*with_reward=*/true);
    }
  }

  void PlacePolice(int index) {
    nodes_.push_back({.card = -1, .kind = v1::PSS_POLICE, .parent = index});
  }

  void Flip(int index, bool with_reward) {
    nodes_[index].flipped = true;
    if (with_reward) {
      credited_ += RewardWorth(faces_->reward(nodes_[index].card));
    }
  }

  void AddCapacity(int index, int value) {
    nodes_[index].limit += value;
    ++nodes_[index].tokens;
  }

  void Remove(int index) { nodes_[index].gone = true; }

  // What the pyramid is worth, in smart-asses (see the header).
  double Worth() const {
    double worth = credited_;
    int police_rooms = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      if (node.gone) continue;
      if (node.flipped) {
        worth += 1;
      } else if (node.kind != v1::PSS_POLICE) {
        worth += Prospect(static_cast<int>(i));
      }
      if (Fits(static_cast<int>(i), kPoliceNumber)) ++police_rooms;
    }
    if (police_rooms == 0) worth -= kNoPoliceRoom;
    if (police_rooms == 1) worth -= kOnePoliceRoom;
    for (int goal : open_goals_) {
      const double progress = GoalProgress(goal);
      worth += kGoalWeight * progress * progress;
    }
    return worth;
  }

  int size() const { return static_cast<int>(nodes_.size()); }
  bool gone(int index) const { return nodes_[index].gone; }

  // How far along goal `goal` (rules page, "Goals") the pyramid is, 0..1.
  double GoalProgress(int goal) const {
    std::array<int, kNumColours + 1> victims = {};
    std::array<int, kNumColours + 1> flipped_victims = {};
    std::map<int, int> victims_by_number;
    std::map<int, int> smart_by_number;
    int flipped_police = 0;
    int most_flipped_below = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      if (node.gone) continue;
      const int number = node.kind == v1::PSS_POLICE
                             ? kPoliceNumber
                             : faces_->number(node.card);
      if (node.kind == v1::PSS_VICTIM) {
        ++victims[faces_->colour(node.card)];
        ++victims_by_number[number];
        if (node.flipped) ++flipped_victims[faces_->colour(node.card)];
      }
      if (node.flipped) {
        ++smart_by_number[number];
        if (node.kind == v1::PSS_POLICE) ++flipped_police;
      }
      int flipped_below = 0;
      for (const Node& child : nodes_) {
        if (child.parent == static_cast<int>(i) && !child.gone &&
            child.flipped) {
          ++flipped_below;
        }
      }
      most_flipped_below = std::max(most_flipped_below, flipped_below);
    }
    auto count = [](const std::map<int, int>& counts, int key) {
      auto it = counts.find(key);
      return it == counts.end() ? 0 : it->second;
    };
    auto most = [](const auto& counts) {
      int best = 0;
      for (const auto& entry : counts) best = std::max(best, entry.second);
      return best;
    };
    double progress = 0;
    switch (goal) {
      case 0:
      case 1:
      case 2:
      case 3:
        progress = victims[goal + 1] / 5.0;
        break;
      case 4: {
        int colours = 0;
        for (int c = 1; c <= kNumColours; ++c) {
          colours += flipped_victims[c] > 0;
        }
        progress = colours / 4.0;
        break;
      }
      case 5:
        progress =
            *std::max_element(flipped_victims.begin(), flipped_victims.end()) /
            4.0;
        break;
      case 6:
        progress = most(smart_by_number) / 4.0;
        break;
      case 7:
        progress = static_cast<double>(smart_by_number.size()) / 4.0;
        break;
      case 8:
        progress = count(victims_by_number, 1) / 5.0;
        break;
      case 9:
        progress = count(victims_by_number, 2) / 4.0;
        break;
      case 10:
        progress = count(victims_by_number, 3) / 3.0;
        break;
      case 11: {
        int numbers = 0;
        for (int n = 1; n <= 5; ++n) numbers += count(victims_by_number, n) > 0;
        progress = numbers / 5.0;
        break;
      }
      case 12: {
        int pairs = 0;
        for (int c = 1; c <= kNumColours; ++c) pairs += std::min(victims[c], 2);
        progress = pairs / 8.0;
        break;
      }
      case 13:
        progress = LongestBranch(0) / 6.0;
        break;
      case 14: {
        int tokens = 0;
        for (const Node& node : nodes_) tokens += node.gone ? 0 : node.tokens;
        progress = tokens / 3.0;
        break;
      }
      case 15:
        progress = reset_tokens_ / 3.0;
        break;
      case 16:
        progress = most_flipped_below / 3.0;
        break;
      case 17:
        progress = flipped_police / 2.0;
        break;
      default:
        break;
    }
    return std::min(progress, 1.0);
  }

 private:
  struct Node {
    int card = 0;  // -1 for a Police we imagine placing.
    v1::PssCardKind kind = v1::PSS_VICTIM;
    int parent = -1;  // Index; -1 for the Founder.
    bool flipped = false;
    int limit = 0;
    int tokens = 0;  // Capacity tokens on it.
    bool gone = false;
  };

  int Spare(int index) const {
    int sum = 0;
    for (const Node& node : nodes_) {
      if (node.parent != index || node.gone) continue;
      sum += node.kind == v1::PSS_POLICE ? kPoliceNumber
                                         : faces_->number(node.card);
    }
    return nodes_[index].limit - sum;
  }

  // Victims still missing below node `index` for its condition.
  int Lacking(int index) const {
    std::array<int, kNumColours + 1> below = {};
    for (const Node& node : nodes_) {
      if (node.parent == index && !node.gone && node.kind == v1::PSS_VICTIM) {
        ++below[faces_->colour(node.card)];
      }
    }
    const int card = nodes_[index].card;
    int lacking = 0;
    int spare_victims = 0;
    for (int colour = 1; colour <= kNumColours; ++colour) {
      const int need = faces_->need(card, colour);
      lacking += std::max(0, need - below[colour]);
      spare_victims += std::max(0, below[colour] - need);
    }
    return lacking + std::max(0, faces_->any(card) - spare_victims);
  }

  // What an unflipped Victim or Founder may still bring: its flip (1 and
  // its reward), halved per missing Victim, quartered when a colour it
  // needs is barred above it, nothing when its spare capacity cannot hold
  // the missing Victims.
  double Prospect(int index) const {
    const int card = nodes_[index].card;
    const double flip = 1 + RewardWorth(faces_->reward(card));
    const int lacking = Lacking(index);
    if (lacking == 0) return flip;
    if (Spare(index) < lacking) return 0;
    double prospect = flip;
    for (int i = 0; i < lacking; ++i) prospect *= kLackFactor;
    for (int colour = 1; colour <= kNumColours; ++colour) {
      if (faces_->need(card, colour) > 0 && !ColourFree(index, colour)) {
        prospect *= kBlockedFactor;
        break;
      }
    }
    return prospect;
  }

  // Non-Police cards on the longest path down from node `index`.
  int LongestBranch(int index) const {
    if (index < 0 || index >= size()) return 0;
    int below = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].parent == index && !nodes_[i].gone) {
        below = std::max(below, LongestBranch(static_cast<int>(i)));
      }
    }
    return (nodes_[index].kind == v1::PSS_POLICE ? 0 : 1) + below;
  }

  const Faces* faces_;
  std::vector<int> open_goals_;
  int reset_tokens_ = 0;
  std::vector<Node> nodes_;
  double credited_ = 0;  // Rewards of the flips we imagined.
};

// Everything a decision needs about the deciding seat.
class Situation {
 public:
  Situation(const v1::DecisionRequest& request, const Faces& faces)
      : observation_(request.observation().pyramid_scheme()),
        me_(request.seat()),
        seat_(observation_.board().seats(me_)),
        model_(seat_, faces, OpenGoals(observation_.board(), me_)),
        worth_(model_.Worth()) {
    for (const v1::PssCard& card : observation_.hand()) {
      hand_.push_back(static_cast<int>(card.id()));
    }
  }

  const Observation& observation() const { return observation_; }
  const Model& model() const { return model_; }
  const std::vector<int>& hand() const { return hand_; }
  int hand_limit() const { return static_cast<int>(seat_.hand_limit()); }

  // How much the value rises when Victim `card` goes below node `index`.
  double PlacementGain(int card, int index) const {
    Model next = model_;
    next.Place(card, index);
    return next.Worth() - worth_;
  }

  // What holding `card` is worth: a share of its best legal placement now.
  double HandWorth(int card) {
    auto it = hand_worth_.find(card);
    if (it != hand_worth_.end()) return it->second;
    double best = 0;
    for (int i = 0; i < model_.size(); ++i) {
      if (!model_.gone(i) && model_.CanPlace(card, i, /*bypass=*/false)) {
        best = std::max(best, PlacementGain(card, i));
      }
    }
    return hand_worth_[card] = kHandShare * best;
  }

  // Whether `hand` is at the limit with no card placeable anywhere (a
  // bypass we hold counts): the next owed action would crumble us.
  bool Stuck(const std::vector<int>& hand) const {
    if (static_cast<int>(hand.size()) < hand_limit()) return false;
    const bool bypass = seat_.bypass_tokens() > 0;
    for (int card : hand) {
      for (int i = 0; i < model_.size(); ++i) {
        if (!model_.gone(i) && model_.CanPlace(card, i, bypass)) return false;
      }
    }
    return true;
  }

 private:
  const Observation& observation_;
  const uint32_t me_;
  const v1::PssSeatView& seat_;
  Model model_;
  double worth_;
  std::vector<int> hand_;
  std::map<int, double> hand_worth_;
};

double ScoreAction(const v1::PyramidSchemeAction& action,
                   Situation& situation) {
  const Model& model = situation.model();
  const v1::PssBoard& board = situation.observation().board();
  switch (action.decision_case()) {
    case v1::PyramidSchemeAction::kTake: {
      const uint32_t slot = action.take().slot();
      if (slot >= static_cast<uint32_t>(board.display_size())) return -kStuck;
      const int card = static_cast<int>(board.display(slot).card().id());
      std::vector<int> hand = situation.hand();
      hand.push_back(card);
      if (situation.Stuck(hand)) return -kStuck;
      return situation.HandWorth(card) - kHandSlot;
    }
    case v1::PyramidSchemeAction::kPlace: {
      const int card = static_cast<int>(action.place().card());
      const int index = model.Find(static_cast<int>(action.place().parent()));
      if (index < 0) return -kStuck;
      return situation.PlacementGain(card, index) - situation.HandWorth(card) +
             kHandSlot;
    }
    case v1::PyramidSchemeAction::kArmBypass: {
      // The best placement only a bypass allows.
      double best = -kStuck;
      for (int card : situation.hand()) {
        for (int i = 0; i < model.size(); ++i) {
          if (model.gone(i) || !model.CanPlace(card, i, /*bypass=*/true) ||
              model.CanPlace(card, i, /*bypass=*/false)) {
            continue;
          }
          best = std::max(best, situation.PlacementGain(card, i) -
                                    situation.HandWorth(card) + kHandSlot);
        }
      }
      return best - kBypassCost;
    }
    case v1::PyramidSchemeAction::kUseReset:
      return kResetScore;
    default:
      return -kStuck;
  }
}

double ScoreReward(const v1::PyramidSchemeAction& action, v1::PssReward reward,
                   Situation& situation) {
  const Model& model = situation.model();
  switch (action.decision_case()) {
    case v1::PyramidSchemeAction::kRewardTarget: {
      const int index =
          model.Find(static_cast<int>(action.reward_target().card()));
      if (index < 0) return 0;
      Model next = model;
      switch (reward) {
        case v1::PSS_FLIP_OTHER:
        case v1::PSS_FLIP_POLICE:
          next.Flip(index, /*with_reward=*/false);
          break;
        case v1::PSS_FLIP_OTHER_WITH_BONUS:
          next.Flip(index, /*with_reward=*/true);
          break;
        case v1::PSS_CAPACITY_2:
          next.AddCapacity(index, 2);
          break;
        case v1::PSS_CAPACITY_3:
          next.AddCapacity(index, 3);
          break;
        case v1::PSS_DISCARD_POLICE:
          next.Remove(index);
          break;
        default:
          break;
      }
      return next.Worth();
    }
    case v1::PyramidSchemeAction::kReserveGoal:
      // The goal we are closest to.
      return model.GoalProgress(static_cast<int>(action.reserve_goal().goal()));
    case v1::PyramidSchemeAction::kDiscardHand: {
      double score = 0;
      for (uint32_t card : action.discard_hand().cards()) {
        score += kHandSlot - situation.HandWorth(static_cast<int>(card));
      }
      return score;
    }
    default:
      return 0;
  }
}

}  // namespace

v1::Action PyramidSchemeStrategy::Choose(const v1::DecisionRequest& request,
                                         RandomStream& stream) {
  if (request.legal_actions().empty()) return v1::Action();
  const Observation& observation = request.observation().pyramid_scheme();
  const Faces faces(observation.cards());
  Situation situation(request, faces);
  std::vector<double> scores;
  for (const v1::Action& legal : request.legal_actions()) {
    const v1::PyramidSchemeAction& action = legal.pyramid_scheme();
    switch (observation.decision().phase()) {
      case v1::PSS_PHASE_ACTION:
        scores.push_back(ScoreAction(action, situation));
        break;
      case v1::PSS_PHASE_FLIP_WINDOW:
        // Every flip is a smart-ass; the best reward first.
        scores.push_back(action.has_flip()
                             ? 1 + RewardWorth(faces.reward(
                                       static_cast<int>(action.flip().card())))
                             : 0);
        break;
      case v1::PSS_PHASE_REWARD:
        scores.push_back(
            ScoreReward(action, observation.decision().reward(), situation));
        break;
      case v1::PSS_PHASE_POLICE: {
        Model next = situation.model();
        const int index =
            next.Find(static_cast<int>(action.place_police().parent()));
        if (index >= 0) next.PlacePolice(index);
        scores.push_back(index >= 0 ? next.Worth() : -kStuck);
        break;
      }
      default:  // End of turn: end it.
        scores.push_back(action.has_end_turn() ? 1 : 0);
        break;
    }
  }
  return request.legal_actions(PickBest(scores, stream));
}

}  // namespace pyramid

// The State of Pyramid Scheme (internal to the game's library; use
// MakeGame or scheme::NewStateForTesting from game.h).
//
// A turn is a chain of single-seat decisions (PssPhase). Between decisions
// the state runs every forced step itself: refills and reshuffles, rewards
// without a choice, goal claims, elimination of a seat that owes an action
// or a Police it cannot give, the end of the turn and of the game. What
// happened is collected as PssEvents and returned by Apply.
//
// Members are defined by topic, as in every game: state.cc (setup, the
// checks of an action, legal and default actions, the ranking, test
// positions), moves.cc (applying each action and the forced steps that
// follow it: the flow of a turn, eliminations, the end of the game) and
// observation.cc (what each seat sees).
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STATE_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STATE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_scheme/board.h"
#include "referee/games/pyramid_scheme/game.h"
#include "referee/games/pyramid_scheme/tables.h"

namespace pyramid::scheme {

inline constexpr int kNoCard = -1;
inline constexpr int kNoSeat = -1;

// The actions a seat may send, as LegalActions lists them.
v1::Action TakeAction(int slot);
v1::Action PlaceAction(int card, int parent);
v1::Action UseResetAction();
v1::Action ArmBypassAction();
v1::Action FlipAction(int card);
v1::Action StopFlippingAction();
// A reward's target: the goal for RESERVE_GOAL, else a card.
v1::Action TargetAction(v1::PssReward reward, int target);
// DISCARD_HAND of the cards of `hand` whose positions are set in `mask`.
v1::Action DiscardAction(const std::vector<int>& hand, uint32_t mask);
v1::Action PlacePoliceAction(int parent);
v1::Action EndTurnAction();

class PyramidSchemeState final : public State {
 public:
  // A new game: the setup draws of the rules page, in its order.
  PyramidSchemeState(const Edition& edition, const Options& options,
                     int num_seats, RandomStream stream);

  // The state of a checked test position under `options` (see game.h).
  static absl::StatusOr<std::unique_ptr<PyramidSchemeState>> FromPosition(
      const Edition& edition, const Options& options,
      const TestPosition& position, RandomStream stream);

  int num_seats() const override { return static_cast<int>(seats_.size()); }
  bool IsTerminal() const override { return phase_ == Phase::kOver; }
  std::vector<int> ActingSeats() const override;
  bool IsSimultaneous() const override { return false; }
  bool IsActing(int seat) const override {
    return seat != kNoSeat && ActingSeat() == seat;
  }
  void LegalActionsInto(
      int seat,
      google::protobuf::RepeatedPtrField<v1::Action>& out) const override;
  std::optional<v1::Action> SoleLegalAction(int seat) const override;
  v1::Action DefaultAction(int seat) const override;
  v1::Outcome Outcome() const override {
    return RankedOutcome(end_reason_ == v1::PSS_TURN_LIMIT
                             ? v1::TERMINATION_MOVE_LIMIT
                             : v1::TERMINATION_NORMAL);
  }
  v1::Outcome StoppedOutcome() const override {
    return RankedOutcome(v1::TERMINATION_MOVE_LIMIT);
  }
  std::unique_ptr<State> Clone() const override {
    return std::make_unique<PyramidSchemeState>(*this);
  }

 protected:
  void ViewInto(std::optional<int> seat,
                v1::Observation& observation) const override;
  absl::Status DoValidateAction(int seat,
                                const v1::Action& action) const override;
  void DoApply(absl::Span<const SeatAction> actions,
               v1::Result& result) override;

 private:
  enum class Phase { kAction, kFlip, kReward, kPolice, kEndTurn, kOver };
  // Where the turn resumes once the Police owed for new claims are placed.
  enum class Resume { kAfterAction, kAfterTokenUse, kAfterEndOfTurnReset };

  struct Seat {
    bool live = true;
    int eliminated_order = 0;  // 0 while live.
    std::vector<int> hand;     // Increasing ids.
    int hand_limit_bonus = 0;
    int reset_tokens = 0;
    int bypass_tokens = 0;
    Pyramid pyramid;
  };

  struct Goal {
    int id = 0;
    int claimed_by = kNoSeat;
    int reserved_by = kNoSeat;
  };

  struct Supply {
    std::vector<bool> police;  // By Police index (card id - first id).
    int reset_tokens = 0;
    int bypass_tokens = 0;
    int capacity_2_tokens = 0;
    int capacity_3_tokens = 0;
  };

  // A Police still owed: `seat` places one for the claim of `goal`.
  struct PoliceDue {
    int goal = 0;
    int seat = 0;
  };

  explicit PyramidSchemeState(const Edition& edition, const Options& options,
                              RandomStream stream);

  // FromPosition's parts, in its order, on a state made by the constructor
  // above: each checks its part of `position` and sets it. `victim_seen`
  // (by Victim id) marks the Victims named so far, each at most once.
  absl::Status SetSeats(const TestPosition& position,
                        std::vector<bool>& victim_seen);
  // The display, the deck and the discard pile; out of the game, every
  // Victim the position does not name.
  absl::Status SetCards(const TestPosition& position,
                        std::vector<bool>& victim_seen);
  absl::Status SetGoals(const TestPosition& position);
  // The active seat and the turn, then every hand against its limit.
  absl::Status SetTurn(const TestPosition& position);

  // The one seat that acts (the active seat, or the seat that owes a
  // Police); kNoSeat once the game is over. ActingSeats() without the
  // vector, for the checks made on every action.
  int ActingSeat() const;
  int HandLimit(int seat) const;
  int LiveSeats() const;
  int PoliceInSupply() const;

  // Legality, shared by ValidateAction, LegalActions and DefaultAction.
  bool CanTake(int slot) const;
  bool CanPlace(int card, int parent, bool ignore_colour) const;
  bool HasOwedAction() const;
  // The pending reward's legal targets: card ids in pyramid order (hand
  // order for DISCARD_HAND), goal ids increasing for RESERVE_GOAL.
  std::vector<int> RewardTargets() const;
  // Where `seat` may place a Police, in pyramid order (none when the
  // supply has no Police, which the rules make impossible).
  std::vector<int> PoliceParents(int seat) const;
  // A legal action of the acting seat as ForEachChoice names it: what is
  // decided and its operands, without the message (ToAction makes it), so
  // that counting the choices (SoleLegalAction, after every decision)
  // builds none.
  struct Choice {
    v1::PyramidSchemeAction::DecisionCase decision =
        v1::PyramidSchemeAction::DECISION_NOT_SET;
    // The slot (kTake), the card (kPlace, kFlip, kRewardTarget), the parent
    // (kPlacePolice) or the goal (kReserveGoal).
    int target = 0;
    int parent = 0;          // kPlace: the card placed below.
    uint32_t hand_mask = 0;  // kDiscardHand: the hand positions discarded.
  };
  // The action `choice` names, in this state (the one that named it).
  v1::Action ToAction(const Choice& choice) const;
  // Calls `visit` with every legal action of the acting seat, each once
  // (SoleLegalAction relies on it), in no particular order, until it
  // returns false.
  void ForEachChoice(absl::FunctionRef<bool(const Choice&)> visit) const;

  // DoValidateAction's checks, one per kind of decision (the reward's
  // target and RESERVE_GOAL's goal in one, as ApplyRewardTarget), each in
  // the order its refusals are made.
  absl::Status ValidateTake(uint32_t slot) const;
  absl::Status ValidatePlace(uint32_t card, uint32_t parent) const;
  absl::Status ValidateUseReset() const;
  absl::Status ValidateArmBypass() const;
  absl::Status ValidateFlip(uint32_t card) const;
  absl::Status ValidateStopFlipping() const;
  absl::Status ValidateRewardTarget(
      const v1::PyramidSchemeAction& action) const;
  absl::Status ValidateDiscardHand(const v1::PssDiscardHand& discard) const;
  absl::Status ValidatePlacePolice(uint32_t parent) const;
  absl::Status ValidateEndTurn() const;

  // Transitions: each runs forced steps until the next decision or the end.
  void ApplyTake(int slot);
  void ApplyPlace(int card, int parent);
  void ApplyUseReset();
  void ApplyArmBypass();
  void ApplyFlip(int card);
  void ApplyRewardTarget(const v1::PyramidSchemeAction& action);
  void ApplyPlacePolice(int parent);

  void StartTurn(int seat);
  void EnterAction();
  void EnterEndOfTurn();
  void EndTurn();
  void FinishAction();
  void ServePolice(Resume resume);
  void AdvancePolice();
  void ContinueFlipWindow();
  void GrantReward(int card);
  void ResolveSimpleReward(int card, v1::PssReward reward);
  void ClaimGoals();
  void Eliminate(int seat, v1::PssEliminationReason reason);
  void EndGame(v1::PssEndReason reason);
  // Fills display slot `slot` from the deck, reshuffling the discard pile
  // when the deck is empty. False (and the game is over) when the deck
  // cannot be rebuilt.
  bool FillSlot(int slot);
  void Discard(const std::vector<int>& cards);
  void FlipNode(int index, v1::PssReward by_reward);

  // A new event of the Apply in progress; outside one (the setup, a
  // restored position), an event that is dropped.
  v1::PssEvent& AddEvent() {
    if (events_ != nullptr) return *events_->Add();
    dropped_event_.Clear();
    return dropped_event_;
  }
  // Builds the public board in `board` (empty; made in place, so that a
  // result on an arena holds it without a copy).
  void Board(v1::PssBoard& board) const;
  v1::PssDecision Decision() const;
  std::vector<int32_t> Scores() const;
  v1::Outcome RankedOutcome(v1::Termination termination) const;

  const Edition* edition_;
  Options options_;
  RandomStream stream_;

  std::vector<Seat> seats_;
  std::vector<int> display_;      // Card per slot, kNoCard when empty.
  std::vector<int> deck_;         // Top card first.
  std::vector<int> discard_;      // Oldest first.
  std::vector<int> out_of_game_;  // Victims of eliminated seats.
  std::vector<Goal> goals_;       // In play, increasing ids.
  Supply supply_;
  int eliminations_ = 0;

  // The turn.
  int active_ = 0;
  int turn_ = 0;  // Turns started.
  int actions_done_ = 0;
  bool bypass_armed_ = false;
  Phase phase_ = Phase::kAction;
  // kReward: the reward asked for and the card that granted it.
  v1::PssReward reward_ = v1::PSS_NO_REWARD;
  int reward_card_ = kNoCard;
  // Goals claimed during the current action or token use, not yet served.
  std::vector<int> unserved_claims_;
  std::deque<PoliceDue> police_due_;
  Resume resume_ = Resume::kAfterAction;
  v1::PssEndReason end_reason_ = v1::PSS_END_UNSPECIFIED;

  // The events of the result the Apply in progress builds; null outside
  // DoApply.
  google::protobuf::RepeatedPtrField<v1::PssEvent>* events_ = nullptr;
  v1::PssEvent dropped_event_;  // What AddEvent() returns outside an Apply.
};

}  // namespace pyramid::scheme

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_STATE_H_

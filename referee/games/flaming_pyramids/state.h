// Flaming Pyramids' State: the table, hands, piles and the turn under way.
// A turn is a placement decision of the active seat, then zero or more fall
// decisions of the chooser (docs/rules/flaming_pyramids.md). state.cc holds
// the deal and the checks of an action, moves.cc a placement's mayhem and
// the falls, observation.cc what each seat sees.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STATE_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STATE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp {

enum class Phase { kPlace, kFall, kOver };

// A seat's pile, top first. The first `dealt_left` tiles are still face down
// from the deal; the rest went under the pile face up, in that order.
struct Pile {
  std::deque<int> tiles;
  int dealt_left = 0;
};

v1::FpEventKind EventKindProto(MayhemKind kind);
void SetCell(Cell cell, int tile, v1::FpCell& out);
void AddLayout(const Board& board,
               google::protobuf::RepeatedPtrField<v1::FpCell>& out);
v1::FpTileMove* AddMove(int tile, Cell from, v1::FpDestination to,
                        v1::FpEvent& event);

// The actions a seat may send, as LegalActions lists them.
v1::Action PlaceAction(int tile, Cell spot);
v1::Action FallAction(v1::FpDirection direction);

class FlamingPyramidsState final : public State {
 public:
  // A new game: the deal and the first player, drawn from `stream`. These
  // are the game's only draws, so the stream is not kept.
  FlamingPyramidsState(const Options& options, int num_seats,
                       RandomStream& stream);

  // A game at the start of a turn of a validated `position`.
  FlamingPyramidsState(const Options& options, const TestPosition& position);

  int num_seats() const override { return num_seats_; }
  bool IsTerminal() const override { return phase_ == Phase::kOver; }

  std::vector<int> ActingSeats() const override {
    const std::optional<int> seat = ActingSeat();
    if (!seat.has_value()) return {};
    return {*seat};
  }

  bool IsSimultaneous() const override { return false; }

  bool IsActing(int seat) const override { return ActingSeat() == seat; }
  void LegalActionsInto(
      int seat,
      google::protobuf::RepeatedPtrField<v1::Action>& out) const override;
  std::optional<v1::Action> SoleLegalAction(int seat) const override;
  v1::Action DefaultAction(int seat) const override;

  v1::Outcome Outcome() const override {
    return RankedOutcome(winner_.has_value() ? v1::TERMINATION_NORMAL
                                             : v1::TERMINATION_MOVE_LIMIT);
  }

  v1::Outcome StoppedOutcome() const override {
    return RankedOutcome(v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<FlamingPyramidsState>(*this);
  }

  // game.h's one reader of a state's whole position.
  friend TestPosition PositionOf(const State& state);

 protected:
  void ViewInto(std::optional<int> seat,
                v1::Observation& observation) const override;
  absl::Status DoValidateAction(int seat,
                                const v1::Action& action) const override;
  void DoApply(absl::Span<const SeatAction> actions,
               v1::Result& result) override;

 private:
  // The one seat that acts (the placer, or the chooser of a fall); nullopt
  // once the game is over. ActingSeats() without the vector, for the checks
  // made on every action.
  std::optional<int> ActingSeat() const {
    switch (phase_) {
      case Phase::kPlace:
        return active_;
      case Phase::kFall:
        return receiver_;
      case Phase::kOver:
        return std::nullopt;
    }
    return std::nullopt;
  }
  int PreviousSeat() const { return (active_ + num_seats_ - 1) % num_seats_; }
  int Held(int seat) const {
    return static_cast<int>(hands_[seat].size() + piles_[seat].tiles.size());
  }
  bool InHand(int seat, int tile) const {
    return std::binary_search(hands_[seat].begin(), hands_[seat].end(), tile);
  }

  void Deal(RandomStream& stream);
  int Draw(int seat);
  void Place(const v1::FpPlace& place, v1::FlamingPyramidsResult& result);
  void ResolveMayhem(v1::FlamingPyramidsResult& result);
  void ApplyEvent(const Mayhem& mayhem, v1::FpDirection direction,
                  v1::FpEvent& event);
  void EndTurn(v1::FlamingPyramidsResult& result);
  void SetPending(v1::FpPendingFall& pending) const;
  v1::Outcome RankedOutcome(v1::Termination termination) const;

  Options options_;
  int num_seats_;
  Board board_;
  std::vector<std::vector<int>> hands_;  // Each sorted ascending.
  std::vector<Pile> piles_;
  std::vector<int> removed_;  // In the order the tiles left the game.
  int active_ = 0;
  // Receiver of this turn's mayhem tiles and chooser of its falls.
  int receiver_ = 0;
  int turns_completed_ = 0;
  Phase phase_ = Phase::kPlace;
  // The fall the chooser must direct (phase kFall).
  std::optional<Mayhem> pending_;
  // Rules version 2: the tiles of pending_->to_pile (a collapse's supports),
  // which went under the receiver's pile when the collapse happened.
  std::vector<int> pending_supports_;
  std::optional<int> winner_;
  // The public record of the turn in progress (from its placement on).
  v1::FpTurn current_turn_;
  // The last completed turns, oldest first: at most num_seats_ of them.
  std::deque<v1::FpTurn> recent_turns_;
};

}  // namespace pyramid::fp

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_STATE_H_

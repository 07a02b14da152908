// What the rules say happens next in a match, shared by the referee (which
// writes it into the log) and the verifier (which recomputes it and compares).
// Wraps a game State and applies DESIGN.md's decision rules on top of it:
// automatic moves for a seat with a single legal action, the default action
// of the forfeit policy, and the outcome after forfeits.
#ifndef PYRAMID_REFEREE_CORE_GAME_SESSION_H_
#define PYRAMID_REFEREE_CORE_GAME_SESSION_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/games/game.h"

namespace pyramid {

class GameSession {
 public:
  // Starts `game` for `num_seats` seats with the match seed `seed`.
  static absl::StatusOr<GameSession> Start(const Game& game, int num_seats,
                                           const Digest& seed);

  // Applies every automatic move due now (a single acting seat with exactly
  // one legal action) and returns them as Applied records, in order.
  std::vector<v1::Applied> TakeAutomaticMoves();
  // Applies the next automatic move due now, if any, building its Applied
  // record in `applied` (empty; it may live on an arena). False when none is
  // due; `applied` is then left empty. TakeAutomaticMoves, one at a time.
  bool TakeAutomaticMove(v1::Applied& applied);

  // The decision due now: its seats and whether it is simultaneous.
  // Requires !IsTerminal() and no automatic move pending.
  bool IsTerminal() const { return state_->IsTerminal(); }
  std::vector<int> ActingSeats() const { return state_->ActingSeats(); }
  bool IsSimultaneous() const { return state_->IsSimultaneous(); }

  // Applies one move per acting seat (ascending) as decision `decision_id`.
  // Moves whose source is MOVE_DEFAULT get the default action (validated);
  // a MOVE_REVEALED move's action must already have been accepted by
  // ValidateAction on this state, and is not validated again.
  absl::StatusOr<v1::Applied> ApplyDecision(uint64_t decision_id,
                                            std::vector<v1::Move> moves);
  // As above, building the Applied record in `applied` (empty; it may live
  // on an arena, where building it allocates nothing on the heap). On error
  // `applied` is left empty.
  absl::Status ApplyDecision(uint64_t decision_id, std::vector<v1::Move> moves,
                             v1::Applied& applied);

  const State& state() const { return *state_; }

 private:
  explicit GameSession(std::unique_ptr<State> state)
      : state_(std::move(state)) {}
  std::unique_ptr<State> state_;
};

// The outcome when the seats in `forfeited` (non-empty) forfeit at one
// decision: they share the last rank; the others are ranked as the game's
// move limit would rank them now (by `state`; with no state yet, i.e. at the
// seed decision, they share rank 1 with score 0). Scores are the game's.
v1::Outcome ForfeitOutcome(const State* state, int num_seats,
                           const std::vector<int>& forfeited);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_GAME_SESSION_H_

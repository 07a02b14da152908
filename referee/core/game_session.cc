#include "referee/core/game_session.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pyramid {

absl::StatusOr<GameSession> GameSession::Start(const Game& game, int num_seats,
                                               const Digest& seed) {
  absl::StatusOr<std::unique_ptr<State>> state =
      game.NewInitialState(num_seats, RandomStream(seed));
  if (!state.ok()) return state.status();
  return GameSession(*std::move(state));
}

std::vector<v1::Applied> GameSession::TakeAutomaticMoves() {
  std::vector<v1::Applied> applied;
  v1::Applied next;
  while (TakeAutomaticMove(next)) applied.push_back(std::exchange(next, {}));
  return applied;
}

bool GameSession::TakeAutomaticMove(v1::Applied& applied) {
  if (state_->IsTerminal()) return false;
  const std::vector<int> acting = state_->ActingSeats();
  if (acting.size() != 1) return false;
  std::optional<v1::Action> sole = state_->SoleLegalAction(acting[0]);
  if (!sole.has_value()) return false;
  SeatAction seat_action{acting[0], *std::move(sole)};
  if (!state_
           ->ApplyPrevalidated({&seat_action, 1}, 0, *applied.mutable_result())
           .ok()) {
    // A game bug; the seat will be asked instead.
    applied.Clear();
    return false;
  }
  v1::Move* move = applied.add_moves();
  move->set_seat(acting[0]);
  move->set_source(v1::MOVE_AUTOMATIC);
  *move->mutable_action() = std::move(seat_action.action);
  return true;
}

absl::StatusOr<v1::Applied> GameSession::ApplyDecision(
    uint64_t decision_id, std::vector<v1::Move> moves) {
  v1::Applied applied;
  if (absl::Status s = ApplyDecision(decision_id, std::move(moves), applied);
      !s.ok()) {
    return s;
  }
  return applied;
}

absl::Status GameSession::ApplyDecision(uint64_t decision_id,
                                        std::vector<v1::Move> moves,
                                        v1::Applied& applied) {
  // The actions travel into the SeatActions and back into the moves by
  // move, not copy: this runs for every decision of every replayed log.
  std::vector<SeatAction> actions;
  actions.reserve(moves.size());
  uint64_t prevalidated = 0;
  for (v1::Move& move : moves) {
    if (move.source() == v1::MOVE_REVEALED && actions.size() < 64) {
      prevalidated |= uint64_t{1} << actions.size();
    }
    SeatAction& action = actions.emplace_back();
    action.seat = static_cast<int>(move.seat());
    action.action = move.source() == v1::MOVE_DEFAULT
                        ? state_->DefaultAction(move.seat())
                        : std::move(*move.mutable_action());
  }
  if (absl::Status s = state_->ApplyPrevalidated(actions, prevalidated,
                                                 *applied.mutable_result());
      !s.ok()) {
    applied.Clear();
    return s;
  }
  applied.set_decision_id(decision_id);
  applied.mutable_moves()->Reserve(static_cast<int>(moves.size()));
  for (size_t i = 0; i < moves.size(); ++i) {
    *moves[i].mutable_action() = std::move(actions[i].action);
    *applied.add_moves() = std::move(moves[i]);
  }
  return absl::OkStatus();
}

v1::Outcome ForfeitOutcome(const State* state, int num_seats,
                           const std::vector<int>& forfeited) {
  v1::Outcome stopped;
  if (state != nullptr) {
    stopped = state->StoppedOutcome();
  } else {
    for (int seat = 0; seat < num_seats; ++seat)
      stopped.add_seats()->set_rank(1);
  }
  auto is_forfeited = [&forfeited](int seat) {
    return std::find(forfeited.begin(), forfeited.end(), seat) !=
           forfeited.end();
  };
  // Rank the remaining seats among themselves by their stopped rank.
  std::vector<int64_t> keys;
  for (int seat = 0; seat < num_seats; ++seat) {
    if (!is_forfeited(seat)) keys.push_back(stopped.seats(seat).rank());
  }
  const std::vector<uint32_t> ranks = CompetitionRanks(keys);
  const uint32_t last_rank = static_cast<uint32_t>(keys.size()) + 1;
  v1::Outcome outcome;
  outcome.set_termination(v1::TERMINATION_FORFEIT);
  size_t next = 0;
  for (int seat = 0; seat < num_seats; ++seat) {
    v1::SeatOutcome* result = outcome.add_seats();
    result->set_score(stopped.seats(seat).score());
    if (is_forfeited(seat)) {
      result->set_rank(last_rank);
      result->set_forfeited(true);
    } else {
      result->set_rank(ranks[next++]);
    }
  }
  return outcome;
}

}  // namespace pyramid

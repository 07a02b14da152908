#include "referee/games/pyramid_shambo/testing.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/state.h"

namespace pyramid::shambo::testing {
namespace {

inline constexpr std::string_view kLetters = "rygbkwopcx";

Piece Parse(std::string_view name) {
  EXPECT_EQ(name.size(), 2u) << name;
  const size_t colour = kLetters.find(name[0]);
  EXPECT_NE(colour, std::string_view::npos) << name;
  return {static_cast<int>(colour), name[1] - '0'};
}

}  // namespace

PieceSet Set(std::string_view names) {
  PieceSet set = 0;
  for (absl::string_view name :
       absl::StrSplit(absl::string_view(names.data(), names.size()), ' ',
                      absl::SkipEmpty())) {
    set |= Bit(Parse(std::string_view(name.data(), name.size())));
  }
  return set;
}

std::string Names(PieceSet set) {
  std::vector<std::string> names;
  for (const Piece& piece : Pieces(set)) {
    names.push_back(
        absl::StrCat(std::string(1, kLetters[piece.colour]), piece.size));
  }
  return absl::StrJoin(names, " ");
}

std::string Names(
    const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces) {
  std::vector<std::string> names;
  for (const v1::ShamboPiece& piece : pieces) {
    names.push_back(absl::StrCat(std::string(1, kLetters[piece.colour() - 1]),
                                 static_cast<int>(piece.size())));
  }
  return absl::StrJoin(names, " ");
}

TestPosition Pos(const std::vector<std::string>& holdings, int active,
                 const std::vector<int>& groups) {
  TestPosition position;
  position.num_seats = static_cast<int>(holdings.size());
  for (const std::string& names : holdings) {
    position.holdings.push_back(Pieces(Set(names)));
  }
  position.elimination_group = groups;
  position.active = active;
  return position;
}

std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config) {
  absl::StatusOr<std::unique_ptr<State>> state =
      NewStateForTesting(config, position);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

v1::Action Challenge(int target) { return ChallengeAction(target); }

v1::Action Hand(v1::ShamboHand hand) { return HandAction(hand); }

v1::Action Pay(std::string_view pay) {
  PaymentOption option;
  option.pay = Set(pay);
  return PaymentAction(option);
}

v1::Action Change(int provider, std::string_view payer_gives,
                  std::string_view provider_gives, std::string_view pay) {
  return PaymentAction(
      {provider, Set(payer_gives), Set(provider_gives), Set(pay)});
}

v1::Action Canonical() { return CanonicalAction(); }

absl::StatusOr<v1::PyramidShamboResult> Act(State& state, int seat,
                                            const v1::Action& action) {
  return GamePart(ActAlone(state, seat, action), &v1::Result::pyramid_shambo);
}

absl::StatusOr<v1::PyramidShamboResult> Throw(State& state,
                                              v1::ShamboHand active_hand,
                                              v1::ShamboHand target_hand) {
  const v1::PyramidShamboObservation view = View(state);
  const int active = static_cast<int>(view.active());
  const int target = static_cast<int>(view.target());
  std::vector<SeatAction> actions = {{active, Hand(active_hand)},
                                     {target, Hand(target_hand)}};
  if (target < active) std::swap(actions[0], actions[1]);
  return GamePart(state.Apply(actions), &v1::Result::pyramid_shambo);
}

std::vector<v1::PyramidShamboResult> AutoMoves(State& state) {
  std::vector<v1::PyramidShamboResult> results;
  while (!state.IsTerminal()) {
    const std::vector<int> acting = state.ActingSeats();
    if (acting.size() != 1) break;
    const std::optional<v1::Action> sole = state.SoleLegalAction(acting[0]);
    if (!sole.has_value()) break;
    absl::StatusOr<v1::PyramidShamboResult> result =
        Act(state, acting[0], *sole);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) break;
    results.push_back(*result);
  }
  return results;
}

v1::PyramidShamboObservation View(const State& state, int seat) {
  return (seat < 0 ? state.PublicView() : state.ObservationFor(seat))
      .pyramid_shambo();
}

std::vector<std::string> HoldingNames(const State& state) {
  std::vector<std::string> holdings;
  const v1::PyramidShamboObservation view = View(state);
  for (const v1::ShamboSeatView& seat : view.seats()) {
    holdings.push_back(Names(seat.holding()));
  }
  return holdings;
}

std::unique_ptr<Game> GameOf(const v1::GameConfig& config) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), config);
  EXPECT_TRUE(game.ok()) << game.status();
  return game.ok() ? *std::move(game) : nullptr;
}

v1::GameConfig Config(uint32_t max_throws) {
  v1::GameConfig config;
  config.set_game("pyramid_shambo");
  if (max_throws != 0) {
    config.mutable_pyramid_shambo()->set_max_throws(max_throws);
  }
  return config;
}

std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config) {
  return game_testing::NewGame(config, seats, seed);
}

std::vector<int32_t> Scores(const v1::Outcome& outcome) {
  std::vector<int32_t> scores;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    scores.push_back(seat.score());
  }
  return scores;
}

// Eliminations of a result as "seat:cause:group".
std::vector<std::string> Eliminations(const v1::ShamboPaymentResult& r) {
  std::vector<std::string> out;
  for (const v1::ShamboElimination& e : r.eliminations()) {
    out.push_back(std::to_string(e.seat()) + ":" +
                  (e.cause() == v1::SHAMBO_KNOCKED_OUT ? "KO" : "cascade") +
                  ":" + std::to_string(e.group()));
  }
  return out;
}

// The pieces an elimination removed, as "holder:piece".
std::vector<std::string> Removed(const v1::ShamboElimination& e) {
  std::vector<std::string> out;
  for (const v1::ShamboHeldPiece& held : e.removed()) {
    google::protobuf::RepeatedPtrField<v1::ShamboPiece> one;
    *one.Add() = held.piece();
    out.push_back(std::to_string(held.holder()) + ":" + Names(one));
  }
  return out;
}

// The payment results among automatic moves (a turn may end with an
// automatic challenge when only two seats are live).
std::vector<v1::ShamboPaymentResult> Payments(
    const std::vector<v1::PyramidShamboResult>& moves) {
  std::vector<v1::ShamboPaymentResult> payments;
  for (const v1::PyramidShamboResult& move : moves) {
    if (move.has_payment()) payments.push_back(move.payment());
  }
  return payments;
}

std::string Serialized(const State& state) {
  return state.PublicView().SerializeAsString();
}

}  // namespace pyramid::shambo::testing

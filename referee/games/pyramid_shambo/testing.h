// Helpers shared by the Pyramid Shambo tests: positions and actions written
// with short piece names ("r1" = red Small, "y3" = yellow Large; colour
// letters r y g b k w o p c x for seats 0..9), and a driver that applies
// automatic moves the way the referee does.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TESTING_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TESTING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/game.h"
#include "referee/games/testing.h"

namespace pyramid::shambo::testing {

using namespace ::pyramid::game_testing;  // NOLINT: the shared helpers

inline constexpr v1::ShamboHand kRock = v1::SHAMBO_ROCK;
inline constexpr v1::ShamboHand kPaper = v1::SHAMBO_PAPER;
inline constexpr v1::ShamboHand kScissors = v1::SHAMBO_SCISSORS;

// "r1 y3" -> a set; the names may come in any order.
PieceSet Set(std::string_view names);
// A set's names in (size, colour) order: "r1 y1 r3".
std::string Names(PieceSet set);
std::string Names(
    const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces);

// The game's config; max_throws 0 is the default.
v1::GameConfig Config(uint32_t max_throws = 0);

// A turn-start position of holdings.size() seats, `active` to play:
// holdings[s] is seat s's holding as names, "" for an eliminated seat;
// `groups` is TestPosition's elimination_group. The other fields keep their
// defaults; a test may set them before StateAt.
TestPosition Pos(const std::vector<std::string>& holdings, int active,
                 const std::vector<int>& groups = {});

// The state at `position` under `config`; nullptr, after a test failure,
// when NewStateForTesting refuses it.
std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config = Config());

v1::Action Challenge(int target);
v1::Action Hand(v1::ShamboHand hand);
v1::Action Pay(std::string_view pay);
v1::Action Change(int provider, std::string_view payer_gives,
                  std::string_view provider_gives, std::string_view pay);
v1::Action Canonical();

// Applies `action` for the single acting `seat`.
absl::StatusOr<v1::PyramidShamboResult> Act(State& state, int seat,
                                            const v1::Action& action);
// Applies the throws of A and T.
absl::StatusOr<v1::PyramidShamboResult> Throw(State& state,
                                              v1::ShamboHand active_hand,
                                              v1::ShamboHand target_hand);
// Applies every automatic move due (a single acting seat with a single
// legal action), as the referee does; returns their results.
std::vector<v1::PyramidShamboResult> AutoMoves(State& state);

// The game's part of the public view (seat -1) or of `seat`'s observation.
v1::PyramidShamboObservation View(const State& state, int seat = -1);
// Every seat's holding as names.
std::vector<std::string> HoldingNames(const State& state);

// The game (MakeGameOf) for `config`; nullptr after a failure.
std::unique_ptr<Game> GameOf(const v1::GameConfig& config = {});
// A new game of `config` for `seats` seats from `seed`.
std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config = Config());

std::vector<int32_t> Scores(const v1::Outcome& outcome);
// Eliminations of a result as "seat:cause:group".
std::vector<std::string> Eliminations(const v1::ShamboPaymentResult& r);
// The pieces an elimination removed, as "holder:piece".
std::vector<std::string> Removed(const v1::ShamboElimination& e);
// The payment results among automatic moves (a turn may end with an
// automatic challenge when only two seats are live).
std::vector<v1::ShamboPaymentResult> Payments(
    const std::vector<v1::PyramidShamboResult>& moves);
// The public view's bytes.
std::string Serialized(const State& state);

}  // namespace pyramid::shambo::testing

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TESTING_H_

// The arena: strategies play seeded games against each other in process,
// with no network and no commit-reveal, each seat seeing exactly the
// DecisionRequest the referee would send it (decision_request.h).
//
// Every draw comes from RandomStreams keyed by the arena's seed: the same
// options give the same games, actions and results on every run.
#ifndef PYRAMID_TOOLS_BOT_ARENA_RUNNER_H_
#define PYRAMID_TOOLS_BOT_ARENA_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "tools/bot/strategy.h"

namespace pyramid {

// Who plays a seat: a strategy and its own randomness (not owned).
struct ArenaPlayer {
  Strategy* strategy = nullptr;
  RandomStream* stream = nullptr;
};

// Plays one game of `game` to its end with players[s] at seat s and match
// seed `seed`. Automatic moves are taken as the referee takes
// them (GameSession); every other decision is put to each acting seat as
// its DecisionRequest (decision ids from 1, as in a match), all requests of
// a decision built before any action is applied. Every chosen action is
// checked with the State's ValidateAction: an illegal one stops the game
// with INVALID_ARGUMENT naming the seat, the decision and the reason.
absl::StatusOr<v1::Outcome> PlayArenaGame(
    const Game& game, const Digest& seed, const std::string& match_id,
    absl::Span<const ArenaPlayer> players);

// Each seat's mean pairwise score in `outcome`: +1 per other seat ranked
// below it, +0.5 per other seat sharing its rank, divided by seats - 1.
std::vector<double> PairwiseScores(const v1::Outcome& outcome);

struct ArenaOptions {
  v1::GameConfig game;
  int seats = 2;
  // A multiple of `seats`: game g puts player p at seat (p + g) mod seats,
  // so every player takes every seat equally often.
  int games = 0;
  // One strategy name per player (MakeStrategy names), `seats` of them.
  std::vector<std::string> strategies;
  // Keys every draw: the games' seeds and every player's stream.
  std::string seed;
};

// The results of one strategy name, over every player that used it.
struct StrategyResult {
  std::string name;
  // Games it played in; one score sample per game: the mean pairwise score
  // of its seats in that game.
  int games = 0;
  double score_sum = 0;
  double score_square_sum = 0;
  // Seats of this strategy that ranked first (ties at rank 1 included).
  int firsts = 0;

  double MeanScore() const;
  // Half the width of the normal 95% interval of MeanScore().
  double HalfInterval95() const;
};

// Plays the games of `options`. Results are in the order the strategy names
// first appear in `options.strategies`. For bad options (an unknown game or
// strategy, a seat count the game does not take, ...) MakeGame's or
// MakeStrategy's error or INVALID_ARGUMENT, before any game is played;
// INTERNAL for an illegal action (a strategy's bug; see PlayArenaGame).
absl::StatusOr<std::vector<StrategyResult>> RunArena(
    const ArenaOptions& options);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_ARENA_RUNNER_H_

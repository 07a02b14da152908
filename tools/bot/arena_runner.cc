#include "tools/bot/arena_runner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/game_session.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"
#include "tools/bot/decision_request.h"

namespace pyramid {
namespace {

// A 32-byte key of four words of `stream`.
Digest DrawDigest(RandomStream& stream) {
  Digest digest;
  for (size_t i = 0; i < digest.size(); i += 8) {
    const uint64_t word = stream.NextWord();
    for (size_t b = 0; b < 8; ++b) digest[i + b] = (word >> (8 * b)) & 0xff;
  }
  return digest;
}

}  // namespace

absl::StatusOr<v1::Outcome> PlayArenaGame(
    const Game& game, const Digest& seed, const std::string& match_id,
    absl::Span<const ArenaPlayer> players) {
  absl::StatusOr<GameSession> session =
      GameSession::Start(game, static_cast<int>(players.size()), seed);
  if (!session.ok()) return session.status();
  const std::string game_id(game.id());
  for (uint64_t decision_id = 1;; ++decision_id) {
    session->TakeAutomaticMoves();
    if (session->IsTerminal()) break;
    const State& state = session->state();
    const std::vector<int> acting = state.ActingSeats();
    // Simultaneous seats choose without seeing each other's actions: every
    // request is built from the state before anything is applied.
    std::vector<v1::DecisionRequest> requests;
    for (int seat : acting) {
      requests.push_back(
          DecisionRequestFor(state, game_id, match_id, decision_id, seat));
    }
    std::vector<v1::Move> moves;
    for (size_t i = 0; i < acting.size(); ++i) {
      const ArenaPlayer& player = players[acting[i]];
      v1::Action action = player.strategy->Choose(requests[i], *player.stream);
      if (absl::Status valid = state.ValidateAction(acting[i], action);
          !valid.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(game_id, " match ", match_id, " decision ",
                         decision_id, " seat ", acting[i], ": illegal action (",
                         valid.message(), "): ", action.ShortDebugString()));
      }
      v1::Move& move = moves.emplace_back();
      move.set_seat(acting[i]);
      move.set_source(v1::MOVE_REVEALED);
      *move.mutable_action() = std::move(action);
    }
    absl::StatusOr<v1::Applied> applied =
        session->ApplyDecision(decision_id, std::move(moves));
    if (!applied.ok()) return applied.status();
  }
  return session->state().Outcome();
}

std::vector<double> PairwiseScores(const v1::Outcome& outcome) {
  const int n = outcome.seats_size();
  std::vector<double> scores(n, 0.0);
  if (n < 2) return scores;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const uint32_t ra = outcome.seats(a).rank();
      const uint32_t rb = outcome.seats(b).rank();
      scores[a] += ra < rb ? 1.0 : ra == rb ? 0.5 : 0.0;
    }
    scores[a] /= n - 1;
  }
  return scores;
}

double StrategyResult::MeanScore() const {
  return games == 0 ? 0.0 : score_sum / games;
}

double StrategyResult::HalfInterval95() const {
  if (games < 2) return 0.0;
  const double mean = MeanScore();
  const double variance =
      std::max(0.0, (score_square_sum - games * mean * mean) / (games - 1));
  return 1.96 * std::sqrt(variance / games);
}

absl::StatusOr<std::vector<StrategyResult>> RunArena(
    const ArenaOptions& options) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(options.game);
  if (!game.ok()) return game.status();
  const int seats = options.seats;
  if (seats < (*game)->min_seats() || seats > (*game)->max_seats()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.game.game(), " takes ", SeatCounts((*game)->description()),
        " seats, not ", seats));
  }
  if (static_cast<int>(options.strategies.size()) != seats) {
    return absl::InvalidArgumentError(
        absl::StrCat("give one strategy per seat: ", seats, " seats, ",
                     options.strategies.size(), " strategies"));
  }
  if (options.games <= 0 || options.games % seats != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the number of games must be a positive multiple of the seats (", seats,
        ") so that every player takes every seat equally often"));
  }
  // One strategy object per player; results by name, in first-use order.
  std::vector<std::unique_ptr<Strategy>> strategies;
  std::vector<int> result_of;  // Per player: its index in `results`.
  std::vector<StrategyResult> results;
  for (const std::string& name : options.strategies) {
    absl::StatusOr<std::unique_ptr<Strategy>> strategy =
        MakeStrategy(options.game.game(), name);
    if (!strategy.ok()) return strategy.status();
    strategies.push_back(*std::move(strategy));
    auto it =
        std::find_if(results.begin(), results.end(),
                     [&](const StrategyResult& r) { return r.name == name; });
    if (it == results.end()) {
      results.push_back({.name = name});
      it = results.end() - 1;
    }
    result_of.push_back(static_cast<int>(it - results.begin()));
  }

  RandomStream master(Sha256({"pyramid-arena/v1", options.seed}));
  for (int g = 0; g < options.games; ++g) {
    const Digest game_seed = DrawDigest(master);
    std::vector<RandomStream> streams;
    for (int p = 0; p < seats; ++p) streams.emplace_back(DrawDigest(master));
    std::vector<ArenaPlayer> players(seats);
    for (int p = 0; p < seats; ++p) {
      players[(p + g) % seats] = {strategies[p].get(), &streams[p]};
    }
    const std::string match_id =
        ToHex(AsView(game_seed).substr(0, kMatchIdSize));
    absl::StatusOr<v1::Outcome> outcome =
        PlayArenaGame(**game, game_seed, match_id, players);
    // A strategy's illegal action is its bug, not a bad option.
    if (!outcome.ok()) return absl::InternalError(outcome.status().message());
    const std::vector<double> scores = PairwiseScores(*outcome);
    std::vector<double> sum(results.size(), 0.0);
    std::vector<int> count(results.size(), 0);
    for (int p = 0; p < seats; ++p) {
      const int seat = (p + g) % seats;
      const int r = result_of[p];
      sum[r] += scores[seat];
      ++count[r];
      if (outcome->seats(seat).rank() == 1) ++results[r].firsts;
    }
    for (size_t r = 0; r < results.size(); ++r) {
      const double mean = sum[r] / count[r];
      ++results[r].games;
      results[r].score_sum += mean;
      results[r].score_square_sum += mean * mean;
    }
  }
  return results;
}

}  // namespace pyramid

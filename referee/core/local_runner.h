// Runs a Match in-process with players that live in the same process: the
// referee's protocol without a network (tests, benchmarks, the demo).
#ifndef PYRAMID_REFEREE_CORE_LOCAL_RUNNER_H_
#define PYRAMID_REFEREE_CORE_LOCAL_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "referee/core/match.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"

namespace pyramid {

// Chooses actions for one seat. Sees only what a remote bot would see.
class Player {
 public:
  virtual ~Player() = default;
  // An action for the open decision, given the seat's observation, its
  // legal actions (empty when the game does not list them) and the game's
  // default action for it (always legal: what a player falls back to).
  virtual v1::Action Choose(const v1::Observation& observation,
                            const std::vector<v1::Action>& legal,
                            const v1::Action& default_action) = 0;
};

// Picks uniformly among the legal actions with its own random stream; the
// default action when they are not listed.
class RandomPlayer final : public Player {
 public:
  explicit RandomPlayer(const Digest& seed) : stream_(seed) {}
  v1::Action Choose(const v1::Observation& observation,
                    const std::vector<v1::Action>& legal,
                    const v1::Action& default_action) override;

 private:
  RandomStream stream_;
};

// An entropy source that replays a ChaCha20 stream keyed by `seed`: for
// reproducible matches (golden logs, tests, benchmarks). Never for real play.
EntropySource DeterministicEntropy(const Digest& seed);

// The seed decision's action: kSeedContributionSize bytes from `entropy`.
v1::Action SeedAction(const EntropySource& entropy);

// A move a seat committed to, kept for its reveal.
struct CommittedMove {
  std::string salt;
  std::string action_bytes;
};

// Commits `seat` to `action` in decision `id` of `match` with a fresh salt
// from `entropy`; the error Match::Commit returns, if any.
absl::StatusOr<CommittedMove> CommitTo(Match& match, int seat, uint64_t id,
                                       const v1::Action& action,
                                       const EntropySource& entropy);

// Plays `match` to its end: every seat whose turn it is commits, then
// reveals, through the match's public protocol calls. players[i] plays seat
// i; `entropy` supplies salts and seed contributions. Returns the first error
// the match reports (a correct player never causes one).
absl::Status RunLocalMatch(Match& match, const std::vector<Player*>& players,
                           const EntropySource& entropy);

// RunLocalMatch with a RandomPlayer in every seat, each seeded by SHA-256 of
// 32 bytes drawn from `entropy` in seat order before play starts (selfplay's
// and the benchmarks' matches: the same entropy gives the same log).
absl::Status RunRandomMatch(Match& match, const EntropySource& entropy);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOCAL_RUNNER_H_

#include "referee/core/local_runner.h"

#include <memory>
#include <string>

#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"

namespace pyramid {

v1::Action RandomPlayer::Choose(const v1::Observation& observation,
                                const std::vector<v1::Action>& legal,
                                const v1::Action& default_action) {
  if (legal.empty()) return default_action;
  return legal[stream_.Uniform(legal.size())];
}

EntropySource DeterministicEntropy(const Digest& seed) {
  auto stream = std::make_shared<RandomStream>(seed);
  return [stream](char* out, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      out[i] = static_cast<char>(stream->NextWord() & 0xff);
    }
  };
}

v1::Action SeedAction(const EntropySource& entropy) {
  std::string contribution(kSeedContributionSize, '\0');
  entropy(contribution.data(), contribution.size());
  v1::Action action;
  action.mutable_seed()->set_contribution(std::move(contribution));
  return action;
}

absl::StatusOr<CommittedMove> CommitTo(Match& match, int seat, uint64_t id,
                                       const v1::Action& action,
                                       const EntropySource& entropy) {
  CommittedMove move;
  move.salt.resize(kSaltSize);
  entropy(move.salt.data(), move.salt.size());
  move.action_bytes = action.SerializeAsString();
  const Digest commitment =
      CommitmentHash(match.match_id(), seat, id, move.salt, move.action_bytes);
  if (absl::Status s = match.Commit(seat, id, AsView(commitment)); !s.ok()) {
    return s;
  }
  return move;
}

absl::Status RunLocalMatch(Match& match, const std::vector<Player*>& players,
                           const EntropySource& entropy) {
  std::vector<CommittedMove> pending(match.num_seats());
  while (!match.finished()) {
    const DecisionView decision = *match.decision();
    for (int seat : decision.seats) {
      if (!match.AwaitsCommit(seat)) continue;
      const v1::Action action =
          decision.id == 0
              ? SeedAction(entropy)
              : players[seat]->Choose(match.ObservationFor(seat),
                                      match.LegalActions(seat),
                                      match.DefaultActionFor(seat));
      absl::StatusOr<CommittedMove> move =
          CommitTo(match, seat, decision.id, action, entropy);
      if (!move.ok()) return move.status();
      pending[seat] = *std::move(move);
    }
    if (match.finished()) break;
    const DecisionView reveal = *match.decision();
    if (reveal.id != decision.id || !reveal.reveal_phase) continue;
    for (int seat : reveal.seats) {
      if (!match.AwaitsReveal(seat)) continue;
      const CommittedMove& p = pending[seat];
      if (absl::Status s =
              match.Reveal(seat, reveal.id, p.salt, p.action_bytes);
          !s.ok()) {
        return s;
      }
    }
  }
  return match.broken();
}

absl::Status RunRandomMatch(Match& match, const EntropySource& entropy) {
  std::vector<std::unique_ptr<RandomPlayer>> players;
  std::vector<Player*> seats;
  for (int s = 0; s < match.num_seats(); ++s) {
    std::string seed(32, '\0');
    entropy(seed.data(), seed.size());
    players.push_back(std::make_unique<RandomPlayer>(Sha256(seed)));
    seats.push_back(players.back().get());
  }
  return RunLocalMatch(match, seats, entropy);
}

}  // namespace pyramid

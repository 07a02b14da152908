#include "referee/core/local_runner.h"

#include <memory>
#include <string>

#include "referee/crypto/protocol.h"

namespace pyramid {

v1::Action RandomPlayer::Choose(const v1::Observation& observation,
                                const std::vector<v1::Action>& legal) {
  if (legal.empty()) return v1::Action();
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

absl::Status RunLocalMatch(Match& match, const std::vector<Player*>& players,
                           const EntropySource& entropy) {
  struct Pending {
    std::string salt;
    std::string action_bytes;
  };
  std::vector<Pending> pending(match.num_seats());
  while (!match.finished()) {
    const DecisionView decision = *match.decision();
    for (int seat : decision.seats) {
      if (!match.AwaitsCommit(seat)) continue;
      v1::Action action;
      if (decision.id == 0) {
        std::string contribution(kSeedContributionSize, '\0');
        entropy(contribution.data(), contribution.size());
        action.mutable_seed()->set_contribution(std::move(contribution));
      } else {
        action = players[seat]->Choose(match.ObservationFor(seat),
                                       match.LegalActions(seat));
      }
      Pending& p = pending[seat];
      p.salt.resize(kSaltSize);
      entropy(p.salt.data(), p.salt.size());
      p.action_bytes = action.SerializeAsString();
      const Digest commitment = CommitmentHash(
          match.match_id(), seat, decision.id, p.salt, p.action_bytes);
      if (absl::Status s = match.Commit(seat, decision.id, AsView(commitment));
          !s.ok()) {
        return s;
      }
    }
    if (match.finished()) break;
    const DecisionView reveal = *match.decision();
    if (reveal.id != decision.id || !reveal.reveal_phase) continue;
    for (int seat : reveal.seats) {
      if (!match.AwaitsReveal(seat)) continue;
      const Pending& p = pending[seat];
      if (absl::Status s =
              match.Reveal(seat, reveal.id, p.salt, p.action_bytes);
          !s.ok()) {
        return s;
      }
    }
  }
  return match.broken();
}

}  // namespace pyramid

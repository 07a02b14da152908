#include "referee/games/pyramid_shambo/strategy.h"

#include <algorithm>
#include <array>
#include <vector>

namespace pyramid {
namespace {

using Observation = v1::PyramidShamboObservation;

struct Piece {
  int colour = 0;  // The seat that started with it.
  int size = 1;    // Pips.
};
using Holding = std::vector<Piece>;

Piece FromProto(const v1::ShamboPiece& piece) {
  return {static_cast<int>(piece.colour()) - 1, static_cast<int>(piece.size())};
}

std::vector<Holding> HoldingsOf(const Observation& observation) {
  std::vector<Holding> holdings;
  for (const v1::ShamboSeatView& seat : observation.seats()) {
    Holding& holding = holdings.emplace_back();
    for (const v1::ShamboPiece& piece : seat.holding()) {
      holding.push_back(FromProto(piece));
    }
  }
  return holdings;
}

int Pips(const Holding& holding) {
  int pips = 0;
  for (const Piece& piece : holding) pips += piece.size;
  return pips;
}

void Transfer(const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& pieces,
              Holding& from, Holding& to) {
  for (const v1::ShamboPiece& proto : pieces) {
    const Piece piece = FromProto(proto);
    auto it = std::find_if(from.begin(), from.end(), [&](const Piece& p) {
      return p.colour == piece.colour && p.size == piece.size;
    });
    if (it != from.end()) from.erase(it);
    to.push_back(piece);
  }
}

// Removes the colour of every emptied seat from every holding, repeatedly
// (the rules' knock-out and cascades; bonus payments are not foreseen).
void RemoveEmptiedColours(std::vector<Holding>& holdings,
                          std::vector<bool> live) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t seat = 0; seat < holdings.size(); ++seat) {
      if (!live[seat] || !holdings[seat].empty()) continue;
      live[seat] = false;
      changed = true;
      for (Holding& holding : holdings) {
        std::erase_if(holding, [&](const Piece& p) {
          return p.colour == static_cast<int>(seat);
        });
      }
    }
  }
}

// How surely `holder` keeps a piece of `colour`: its own colour leaves the
// game only with it; another colour leaves when its owner is eliminated,
// which is likelier the fewer pips the owner holds.
double Safety(int holder, int colour, const std::vector<Holding>& holdings) {
  if (colour == holder) return 1.0;
  const int pips = Pips(holdings[colour]);
  return static_cast<double>(pips) / (pips + 1);
}

// What `seat`'s holding is worth: its pips, each weighted by its safety.
double Worth(int seat, const std::vector<Holding>& holdings) {
  double worth = 0;
  for (const Piece& piece : holdings[seat]) {
    worth += piece.size * Safety(seat, piece.colour, holdings);
  }
  return worth;
}

v1::Action Challenge(const v1::DecisionRequest& request,
                     const Observation& observation, RandomStream& stream) {
  if (request.legal_actions().empty()) return v1::Action();
  const int me = static_cast<int>(request.seat());
  const std::vector<Holding> holdings = HoldingsOf(observation);
  std::vector<double> scores;
  for (const v1::Action& action : request.legal_actions()) {
    const int target =
        static_cast<int>(action.pyramid_shambo().challenge().target());
    int mine_of_target = 0;
    for (const Piece& piece : holdings[me]) {
      if (piece.colour == target) mine_of_target += piece.size;
    }
    // Fewest pips first; then least of its colour in our holding (at most
    // 18 pips of a colour, so the first key always dominates).
    scores.push_back(-Pips(holdings[target]) * 100.0 - mine_of_target);
  }
  return request.legal_actions(PickBest(scores, stream));
}

v1::Action Throw(const v1::DecisionRequest& request,
                 const Observation& observation, RandomStream& stream) {
  // Pseudo-counts per hand: the model needs evidence before it leaves
  // uniform, and a best response is played only when clearly better.
  constexpr double kPrior = 3.0;
  constexpr double kMinEdge = 0.1;
  const uint32_t me = request.seat();
  const uint32_t opponent =
      me == observation.active() ? observation.target() : observation.active();
  std::array<double, 3> p = {kPrior, kPrior, kPrior};  // Rock, Paper, Scissors.
  const v1::ShamboSeatView& view = observation.seats(opponent);
  for (int h = 0; h < 3 && h < view.hands_thrown_size(); ++h) {
    p[h] += view.hands_thrown(h);
  }
  const double total = p[0] + p[1] + p[2];
  // Hand h beats hand (h + 2) % 3 and loses to (h + 1) % 3.
  std::vector<double> edge(3);
  for (int h = 0; h < 3; ++h) {
    edge[h] = (p[(h + 2) % 3] - p[(h + 1) % 3]) / total;
  }
  const int best = PickBest(edge, stream);
  const int hand =
      edge[best] >= kMinEdge ? best : static_cast<int>(stream.Uniform(3));
  v1::Action action;
  action.mutable_pyramid_shambo()->set_hand(
      static_cast<v1::ShamboHand>(v1::SHAMBO_ROCK + hand));
  return action;
}

v1::Action Pay(const v1::DecisionRequest& request,
               const Observation& observation, RandomStream& stream) {
  if (!request.legal_actions_listed()) return UnlistedAction(request);
  const int me = static_cast<int>(request.seat());
  const int payer = static_cast<int>(observation.payment().payer());
  const int payee = static_cast<int>(observation.payment().payee());
  const std::vector<Holding> before = HoldingsOf(observation);
  std::vector<bool> live;
  for (const v1::ShamboSeatView& seat : observation.seats()) {
    live.push_back(seat.live());
  }
  std::vector<int> candidates;
  std::vector<double> scores;
  for (int i = 0; i < request.legal_actions_size(); ++i) {
    const v1::PyramidShamboAction& action =
        request.legal_actions(i).pyramid_shambo();
    if (action.kind_case() != v1::PyramidShamboAction::kPayment) continue;
    std::vector<Holding> after = before;
    if (action.payment().has_exchange()) {
      const v1::ShamboExchange& exchange = action.payment().exchange();
      Holding& provider = after[exchange.provider()];
      Transfer(exchange.payer_gives(), after[payer], provider);
      Transfer(exchange.provider_gives(), provider, after[payer]);
    }
    Transfer(action.payment().pay(), after[payer], after[payee]);
    RemoveEmptiedColours(after, live);
    candidates.push_back(i);
    scores.push_back(Worth(me, after));
  }
  if (candidates.empty()) return UnlistedAction(request);
  return request.legal_actions(candidates[PickBest(scores, stream)]);
}

}  // namespace

v1::Action PyramidShamboStrategy::Choose(const v1::DecisionRequest& request,
                                         RandomStream& stream) {
  const Observation& observation = request.observation().pyramid_shambo();
  switch (observation.phase()) {
    case v1::SHAMBO_PHASE_CHALLENGE:
      return Challenge(request, observation, stream);
    case v1::SHAMBO_PHASE_THROW:
      return Throw(request, observation, stream);
    case v1::SHAMBO_PHASE_PAYMENT:
      return Pay(request, observation, stream);
    default:
      return v1::Action();
  }
}

}  // namespace pyramid

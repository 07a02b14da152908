// Rock, Paper, Pyramid!'s State: three pools, three tallies and the rounds
// played. Every round is one simultaneous decision of all three seats.
// state.cc holds the deal and the checks of an action, moves.cc a round's
// resolution and scoring, observation.cc what each seat sees.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STATE_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STATE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "referee/games/game.h"
#include "referee/games/rock_paper_pyramid/board.h"
#include "referee/games/rock_paper_pyramid/game.h"
#include "referee/games/rock_paper_pyramid/tables.h"

namespace pyramid::rpp {

// The action a seat may send, as LegalActions lists it: playing the piece
// of KindIndex `kind`.
v1::Action PlayAction(int kind);

// A seat's remaining pieces, indexed by KindIndex (so in sorted order).
using Pool = std::array<bool, kNumKinds>;

// One round: the pieces played, how it resolved and every seat's score
// after it; all its RockPaperPyramidRoundResult holds, in a few bytes.
struct Round {
  std::array<int8_t, kNumSeats> played = {};  // KindIndex, indexed by seat.
  Resolution resolution;
  std::array<int32_t, kNumSeats> scores = {};
};

// What a seat has scored so far.
struct Tally {
  int32_t score = 0;
  std::vector<v1::RppPiece> scored;  // In the order scored.
};

class RockPaperPyramidState final : public State {
 public:
  // A new game: the deal, whose only draw (the red pieces) comes from
  // `stream`; the game draws nothing later.
  RockPaperPyramidState(const Options& options, RandomStream& stream)
      : State(Description()),
        options_(options),
        total_rounds_(options.red ? kRedRounds : kClassicRounds) {
    DealClassicPieces();
    if (options_.red) DealRedPieces(stream);
  }

  int num_seats() const override { return kNumSeats; }

  bool IsTerminal() const override { return RoundsPlayed() >= total_rounds_; }

  std::vector<int> ActingSeats() const override {
    if (IsTerminal()) return {};
    return {0, 1, 2};
  }

  bool IsSimultaneous() const override { return !IsTerminal(); }

  bool IsActing(int seat) const override {
    return !IsTerminal() && seat >= 0 && seat < kNumSeats;
  }

  void LegalActionsInto(
      int seat,
      google::protobuf::RepeatedPtrField<v1::Action>& out) const override;

  v1::Action DefaultAction(int seat) const override;

  v1::Outcome Outcome() const override {
    return OutcomeByScore(Scores(), v1::TERMINATION_NORMAL);
  }

  v1::Outcome StoppedOutcome() const override {
    return OutcomeByScore(Scores(), v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<RockPaperPyramidState>(*this);
  }

 protected:
  void ViewInto(std::optional<int> seat,
                v1::Observation& observation) const override;
  absl::Status DoValidateAction(int seat,
                                const v1::Action& action) const override;
  void DoApply(absl::Span<const SeatAction> actions,
               v1::Result& result) override;

 private:
  int RoundsPlayed() const { return static_cast<int>(history_.size()); }

  void DealClassicPieces();
  void DealRedPieces(RandomStream& stream);
  std::vector<int32_t> Scores() const;
  void Score(int seat, const v1::RppPiece& piece);
  // Calls `visit(scorer, seat, kept)` for each piece played in a round that
  // resolved as `resolution` which a seat scores, in the order scored:
  // every captured piece (`seat` played it, `scorer` claims it), in seat
  // order, then with winner_takes = ALL each claimant's own (`kept`), in
  // seat order.
  template <typename Visit>
  void ForEachScored(const Resolution& resolution, Visit visit) const;
  // Round `index` (0-based) of the history as its result message, which
  // must be empty.
  void AddRound(int index, v1::RockPaperPyramidRoundResult& result) const;

  Options options_;
  int total_rounds_;
  std::array<Pool, kNumSeats> pools_ = {};
  std::array<Tally, kNumSeats> tallies_;
  // Every round played: far less memory than its result message, which
  // matters with thousands of live matches.
  std::vector<Round> history_;
};

}  // namespace pyramid::rpp

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_STATE_H_

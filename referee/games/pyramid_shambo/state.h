// Pyramid Shambo's State: what each seat holds, the elimination groups, and
// the turn under way (challenge, throws, payments). state.cc holds the
// seats' order and the checks of an action, moves.cc the challenge, the
// throws and the payments, observation.cc what each seat sees.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STATE_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STATE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/game.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid::shambo {

inline constexpr int kLive = 0;  // Elimination group of a live seat.

enum class Phase { kChallenge, kThrow, kPayment, kOver };

// The actions a seat may send, as LegalActions lists them.
v1::Action ChallengeAction(int target);
v1::Action HandAction(v1::ShamboHand hand);
v1::Action PaymentAction(const PaymentOption& option);
v1::Action CanonicalAction();

class PyramidShamboState final : public State {
 public:
  // A new game: every seat holds its trio. The game's only draw, from
  // `stream`: the first player, uniform over the seats.
  PyramidShamboState(const Options& options, int num_seats,
                     RandomStream& stream)
      : State(Description()),
        options_(options),
        num_seats_(num_seats),
        first_player_(static_cast<int>(stream.Uniform(num_seats))),
        active_(first_player_),
        decider_(first_player_) {
    for (int seat = 0; seat < num_seats_; ++seat) {
      holdings_[seat] = Trio(seat);
    }
  }

  // A test position (validated by the caller).
  PyramidShamboState(const Options& options, const TestPosition& position,
                     const Holdings& held,
                     const std::array<int, kMaxSeats>& groups)
      : State(Description()),
        options_(options),
        num_seats_(position.num_seats),
        first_player_(position.active),
        max_listed_options_(position.max_listed_options),
        holdings_(held),
        group_(groups),
        throws_made_(position.throws_made),
        active_(position.active),
        decider_(position.active) {
    groups_ = *std::max_element(group_.begin(), group_.end());
  }

  int num_seats() const override { return num_seats_; }

  bool IsTerminal() const override { return phase_ == Phase::kOver; }

  std::vector<int> ActingSeats() const override;

  bool IsSimultaneous() const override { return phase_ == Phase::kThrow; }

  // False only for a payment with more than kMaxListedOptions options.
  bool ListsLegalActions() const override {
    return phase_ != Phase::kPayment || payment_options_ <= max_listed_options_;
  }

  bool IsActing(int seat) const override;

  void LegalActionsInto(
      int seat,
      google::protobuf::RepeatedPtrField<v1::Action>& out) const override;

  std::optional<v1::Action> SoleLegalAction(int seat) const override;

  v1::Action DefaultAction(int seat) const override;

  v1::Outcome Outcome() const override { return RankedOutcome(termination_); }

  v1::Outcome StoppedOutcome() const override {
    return RankedOutcome(v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<PyramidShamboState>(*this);
  }

 protected:
  void ViewInto(std::optional<int> seat,
                v1::Observation& observation) const override;
  absl::Status DoValidateAction(int seat,
                                const v1::Action& action) const override;
  void DoApply(absl::Span<const SeatAction> actions,
               v1::Result& result) override;

 private:
  bool Live(int seat) const { return group_[seat] == kLive; }
  int LiveCount() const;
  int NextLiveAfter(int seat) const;

  absl::Status ValidateChallenge(const v1::PyramidShamboAction& action) const;
  absl::Status ValidatePayment(const v1::PyramidShamboAction& action) const;

  void ApplyChallenge(int target, v1::ShamboChallengeResult& result);
  void ApplyThrow(v1::ShamboHand active_hand, v1::ShamboHand target_hand,
                  v1::ShamboThrowResult& result);
  void ApplyPayment(const v1::PyramidShamboAction& action,
                    v1::ShamboPaymentResult& result);
  void OpenPayment(v1::ShamboPaymentKind kind, int payer, int payee,
                   int amount);
  void Transfer(const PaymentOption& option);
  void KnockOut(int loser, v1::ShamboPaymentResult& result);
  void Cascade(std::vector<int> seats, int group,
               v1::ShamboPaymentResult& result);
  void Eliminate(int seat, v1::ShamboEliminationCause cause, int group,
                 v1::ShamboPaymentResult& result);
  std::vector<int> EmptiedLiveSeats() const;
  void Advance(v1::ShamboPaymentResult& result);
  v1::Outcome RankedOutcome(v1::Termination termination) const;

  Options options_;
  int num_seats_;
  int first_player_;
  uint64_t max_listed_options_ = kMaxListedOptions;
  Holdings holdings_ = {};
  // Elimination group per seat (kLive while live); groups_ made so far.
  std::array<int, kMaxSeats> group_ = {};
  int groups_ = 0;
  // Rock, Paper, Scissors thrown per seat.
  std::array<std::array<uint32_t, 3>, kMaxSeats> hands_thrown_ = {};
  uint32_t throws_made_ = 0;
  Phase phase_ = Phase::kChallenge;
  v1::Termination termination_ = v1::TERMINATION_NORMAL;
  int active_;   // A.
  int decider_;  // D: A, or W after A was knocked out this turn.
  int target_ = 0;
  // The current challenge's tied throws (their common hands).
  std::vector<v1::ShamboHand> tied_hands_;
  int winner_ = 0;  // W of the current challenge (PAYMENT phase).
  // The open payment (PAYMENT phase).
  v1::ShamboPaymentKind payment_kind_ = v1::SHAMBO_PAYMENT_KIND_UNSPECIFIED;
  std::optional<PaymentProblem> payment_;
  uint64_t payment_options_ = 0;
  // Knock-Out bonus payers still due after the open payment, in order.
  std::vector<int> bonus_due_;
};

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_STATE_H_

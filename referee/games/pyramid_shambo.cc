#include "referee/games/pyramid_shambo.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo_codec.h"
#include "referee/games/pyramid_shambo_payment.h"

namespace pyramid {
namespace {

using shambo::AppendPieces;
using shambo::Bit;
using shambo::CanonicalAction;
using shambo::ChallengeAction;
using shambo::ColourSet;
using shambo::HandAction;
using shambo::Holdings;
using shambo::kNoProvider;
using shambo::MethodToProto;
using shambo::OptionFromProto;
using shambo::OptionToProto;
using shambo::PaymentAction;
using shambo::PaymentMethod;
using shambo::PaymentOption;
using shambo::PaymentProblem;
using shambo::Piece;
using shambo::Pieces;
using shambo::PieceSet;
using shambo::PieceToProto;
using shambo::Pips;
using shambo::SortByBytes;

inline constexpr std::string_view kGameId = "pyramid_shambo";
inline constexpr uint32_t kRulesVersion = 1;
inline constexpr uint32_t kOldestRulesVersion = 1;
// A payment lists pieces; every piece of a 10-seat game fits
// (docs/protocol.md, "Action size").
inline constexpr size_t kMaxActionBytes = 1024;
inline constexpr int kMinSeats = 2;
inline constexpr int kMaxSeats = shambo::kMaxSeats;
inline constexpr int kLive = 0;  // Elimination group of a live seat.
// Live seats rank above every elimination group (there are at most 10).
inline constexpr int64_t kLiveRankBase = 1000000;

enum class Phase { kChallenge, kThrow, kPayment, kOver };

absl::Status Refuse(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("pyramid_shambo: ", std::string(why)));
}

absl::StatusOr<uint32_t> ParseMaxThrows(const v1::GameConfig& config) {
  if (!config.game().empty() && config.game() != kGameId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pyramid_shambo: config names game \"", config.game(), "\""));
  }
  switch (config.options_case()) {
    case v1::GameConfig::OPTIONS_NOT_SET:
      return shambo::kDefaultMaxThrows;
    case v1::GameConfig::kPyramidShambo:
      if (!config.pyramid_shambo().has_max_throws()) {
        return shambo::kDefaultMaxThrows;
      }
      if (config.pyramid_shambo().max_throws() < 1) {
        return Refuse("max_throws must be at least 1");
      }
      return config.pyramid_shambo().max_throws();
    default:
      return Refuse("options belong to another game");
  }
}

bool IsKnownHand(v1::ShamboHand hand) {
  return hand >= v1::SHAMBO_ROCK && hand <= v1::SHAMBO_SCISSORS;
}

// Rock beats Scissors, Scissors beats Paper, Paper beats Rock.
bool Beats(v1::ShamboHand x, v1::ShamboHand y) {
  return (x == v1::SHAMBO_ROCK && y == v1::SHAMBO_SCISSORS) ||
         (x == v1::SHAMBO_SCISSORS && y == v1::SHAMBO_PAPER) ||
         (x == v1::SHAMBO_PAPER && y == v1::SHAMBO_ROCK);
}

class PyramidShamboState final : public State {
 public:
  // The initial position: every seat holds its trio; `first` moves first.
  PyramidShamboState(int num_seats, uint32_t max_throws, int first)
      : num_seats_(num_seats),
        max_throws_(max_throws),
        first_player_(first),
        active_(first),
        decider_(first) {
    for (int seat = 0; seat < num_seats_; ++seat) {
      holdings_[seat] = shambo::Trio(seat);
    }
  }

  // A test position (validated by the caller).
  PyramidShamboState(const shambo::TurnStart& position, const Holdings& held,
                     const std::array<int, kMaxSeats>& groups)
      : num_seats_(position.num_seats),
        max_throws_(position.max_throws),
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

  absl::Status ValidateAction(int seat,
                              const v1::Action& action) const override;

  std::vector<v1::Action> LegalActions(int seat) const override;

  std::optional<v1::Action> SoleLegalAction(int seat) const override;

  v1::Action DefaultAction(int seat) const override;

  v1::Observation ObservationFor(int seat) const override {
    v1::Observation observation = PublicView();
    observation.set_public_view(false);
    observation.set_seat(static_cast<uint32_t>(seat));
    return observation;
  }

  v1::Observation PublicView() const override;

  v1::Outcome Outcome() const override { return Ranking(termination_); }

  v1::Outcome StoppedOutcome() const override {
    return Ranking(v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<PyramidShamboState>(*this);
  }

 protected:
  v1::Result DoApply(absl::Span<const SeatAction> actions) override;

 private:
  bool Live(int seat) const { return group_[seat] == kLive; }
  int LiveCount() const;
  int NextLiveAfter(int seat) const;
  bool IsActing(int seat) const;

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
  v1::Outcome Ranking(v1::Termination termination) const;

  int num_seats_;
  uint32_t max_throws_;
  int first_player_;
  uint64_t max_listed_options_ = shambo::kMaxListedOptions;
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

int PyramidShamboState::LiveCount() const {
  int live = 0;
  for (int seat = 0; seat < num_seats_; ++seat) live += Live(seat) ? 1 : 0;
  return live;
}

int PyramidShamboState::NextLiveAfter(int seat) const {
  for (int step = 1; step <= num_seats_; ++step) {
    const int next = (seat + step) % num_seats_;
    if (Live(next)) return next;
  }
  return seat;
}

std::vector<int> PyramidShamboState::ActingSeats() const {
  switch (phase_) {
    case Phase::kChallenge:
      return {active_};
    case Phase::kThrow:
      return {std::min(active_, target_), std::max(active_, target_)};
    case Phase::kPayment:
      return {decider_};
    case Phase::kOver:
      return {};
  }
  return {};
}

bool PyramidShamboState::IsActing(int seat) const {
  const std::vector<int> acting = ActingSeats();
  return std::find(acting.begin(), acting.end(), seat) != acting.end();
}

absl::Status PyramidShamboState::ValidateAction(
    int seat, const v1::Action& action) const {
  if (!IsActing(seat)) {
    return absl::FailedPreconditionError(
        absl::StrCat("pyramid_shambo: seat ", seat, " is not acting"));
  }
  if (action.kind_case() != v1::Action::kPyramidShambo) {
    return Refuse("not a pyramid_shambo action");
  }
  const v1::PyramidShamboAction& shambo = action.pyramid_shambo();
  switch (phase_) {
    case Phase::kChallenge:
      return ValidateChallenge(shambo);
    case Phase::kThrow:
      if (shambo.kind_case() != v1::PyramidShamboAction::kHand) {
        return Refuse("a throw is due: send `hand`");
      }
      if (!IsKnownHand(shambo.hand())) {
        return Refuse(
            absl::StrCat("unknown hand ", static_cast<int>(shambo.hand())));
      }
      return absl::OkStatus();
    case Phase::kPayment:
      return ValidatePayment(shambo);
    case Phase::kOver:
      break;
  }
  return absl::FailedPreconditionError("pyramid_shambo: game is over");
}

absl::Status PyramidShamboState::ValidateChallenge(
    const v1::PyramidShamboAction& action) const {
  if (action.kind_case() != v1::PyramidShamboAction::kChallenge) {
    return Refuse("a challenge is due: send `challenge`");
  }
  const uint32_t target = action.challenge().target();
  if (target >= static_cast<uint32_t>(num_seats_)) {
    return Refuse(absl::StrCat("no seat ", target));
  }
  if (static_cast<int>(target) == active_) {
    return Refuse("a seat cannot challenge itself");
  }
  if (!Live(static_cast<int>(target))) {
    return Refuse(absl::StrCat("seat ", target, " is eliminated"));
  }
  return absl::OkStatus();
}

absl::Status PyramidShamboState::ValidatePayment(
    const v1::PyramidShamboAction& action) const {
  switch (action.kind_case()) {
    case v1::PyramidShamboAction::kCanonical:
      if (!action.canonical()) return Refuse("canonical must be true");
      if (payment_options_ < 2) {
        return Refuse("this payment has a single option; name it");
      }
      return absl::OkStatus();
    case v1::PyramidShamboAction::kPayment: {
      absl::StatusOr<PaymentOption> option =
          OptionFromProto(action.payment(), num_seats_);
      if (!option.ok()) return option.status();
      return payment_->Check(*option);
    }
    default:
      return Refuse("a payment is due: send `payment` or `canonical`");
  }
}

std::vector<v1::Action> PyramidShamboState::LegalActions(int seat) const {
  std::vector<v1::Action> actions;
  if (!IsActing(seat)) return actions;
  switch (phase_) {
    case Phase::kChallenge:
      for (int target = 0; target < num_seats_; ++target) {
        if (target != active_ && Live(target)) {
          actions.push_back(ChallengeAction(target));
        }
      }
      break;
    case Phase::kThrow:
      for (v1::ShamboHand hand :
           {v1::SHAMBO_ROCK, v1::SHAMBO_PAPER, v1::SHAMBO_SCISSORS}) {
        actions.push_back(HandAction(hand));
      }
      break;
    case Phase::kPayment:
      if (!ListsLegalActions()) return actions;
      payment_->ForEachOption([&](const PaymentOption& option) {
        actions.push_back(PaymentAction(option));
        return true;
      });
      if (actions.size() >= 2) actions.push_back(CanonicalAction());
      break;
    case Phase::kOver:
      break;
  }
  SortByBytes(actions);
  return actions;
}

// Same answer as the default, without listing every payment option.
std::optional<v1::Action> PyramidShamboState::SoleLegalAction(int seat) const {
  if (phase_ == Phase::kPayment && seat == decider_) {
    if (payment_options_ != 1) return std::nullopt;
    return PaymentAction(payment_->Canonical());
  }
  return State::SoleLegalAction(seat);
}

v1::Action PyramidShamboState::DefaultAction(int seat) const {
  if (!IsActing(seat)) return v1::Action();  // Not acting: no default.
  switch (phase_) {
    case Phase::kChallenge:
      return ChallengeAction(NextLiveAfter(active_));
    case Phase::kThrow:
      return HandAction(v1::SHAMBO_ROCK);
    case Phase::kPayment:
      // With a single option, `canonical` is not offered; that option is
      // the canonical one.
      if (payment_options_ == 1) return PaymentAction(payment_->Canonical());
      return CanonicalAction();
    case Phase::kOver:
      break;
  }
  return v1::Action();
}

v1::Observation PyramidShamboState::PublicView() const {
  v1::Observation observation;
  observation.set_public_view(true);
  v1::PyramidShamboObservation* game = observation.mutable_pyramid_shambo();
  for (int seat = 0; seat < num_seats_; ++seat) {
    v1::ShamboSeatView* view = game->add_seats();
    AppendPieces(holdings_[seat], *view->mutable_holding());
    view->set_pips(static_cast<uint32_t>(Pips(holdings_[seat])));
    view->set_live(Live(seat));
    view->set_elimination_group(static_cast<uint32_t>(group_[seat]));
    for (uint32_t count : hands_thrown_[seat]) view->add_hands_thrown(count);
  }
  switch (phase_) {
    case Phase::kChallenge:
      game->set_phase(v1::SHAMBO_PHASE_CHALLENGE);
      break;
    case Phase::kThrow:
      game->set_phase(v1::SHAMBO_PHASE_THROW);
      break;
    case Phase::kPayment:
      game->set_phase(v1::SHAMBO_PHASE_PAYMENT);
      break;
    case Phase::kOver:
      game->set_phase(v1::SHAMBO_PHASE_OVER);
      break;
  }
  game->set_active(static_cast<uint32_t>(active_));
  game->set_decider(static_cast<uint32_t>(decider_));
  game->set_throws_made(throws_made_);
  game->set_max_throws(max_throws_);
  game->set_first_player(static_cast<uint32_t>(first_player_));
  if (phase_ == Phase::kThrow || phase_ == Phase::kPayment) {
    game->set_target(static_cast<uint32_t>(target_));
  }
  if (phase_ == Phase::kThrow) {
    game->set_ties(static_cast<uint32_t>(tied_hands_.size()));
    for (v1::ShamboHand hand : tied_hands_) {
      game->add_tied_throws()->set_hand(hand);
    }
  }
  if (phase_ == Phase::kPayment) {
    game->set_winner(static_cast<uint32_t>(winner_));
    v1::ShamboPendingPayment* payment = game->mutable_payment();
    payment->set_kind(payment_kind_);
    payment->set_payer(static_cast<uint32_t>(payment_->payer()));
    payment->set_payee(static_cast<uint32_t>(payment_->payee()));
    payment->set_amount(static_cast<uint32_t>(payment_->amount()));
    payment->set_method(MethodToProto(payment_->method()));
    for (int provider : payment_->providers()) {
      payment->add_providers(static_cast<uint32_t>(provider));
    }
    payment->set_options(payment_options_);
    for (int seat : bonus_due_) game->add_bonus_due(seat);
  }
  return observation;
}

v1::Result PyramidShamboState::DoApply(absl::Span<const SeatAction> actions) {
  v1::Result result;
  v1::PyramidShamboResult* step = result.mutable_pyramid_shambo();
  switch (phase_) {
    case Phase::kChallenge:
      ApplyChallenge(
          static_cast<int>(
              actions[0].action.pyramid_shambo().challenge().target()),
          *step->mutable_challenge());
      break;
    case Phase::kThrow: {
      v1::ShamboHand active_hand = v1::SHAMBO_HAND_UNSPECIFIED;
      v1::ShamboHand target_hand = v1::SHAMBO_HAND_UNSPECIFIED;
      for (const SeatAction& action : actions) {
        const v1::ShamboHand hand = action.action.pyramid_shambo().hand();
        (action.seat == active_ ? active_hand : target_hand) = hand;
      }
      ApplyThrow(active_hand, target_hand, *step->mutable_throw_result());
      break;
    }
    case Phase::kPayment:
      ApplyPayment(actions[0].action.pyramid_shambo(),
                   *step->mutable_payment());
      break;
    case Phase::kOver:
      break;
  }
  return result;
}

void PyramidShamboState::ApplyChallenge(int target,
                                        v1::ShamboChallengeResult& result) {
  target_ = target;
  tied_hands_.clear();
  phase_ = Phase::kThrow;
  result.set_active(static_cast<uint32_t>(active_));
  result.set_target(static_cast<uint32_t>(target_));
}

void PyramidShamboState::ApplyThrow(v1::ShamboHand active_hand,
                                    v1::ShamboHand target_hand,
                                    v1::ShamboThrowResult& result) {
  ++throws_made_;
  ++hands_thrown_[active_][active_hand - v1::SHAMBO_ROCK];
  ++hands_thrown_[target_][target_hand - v1::SHAMBO_ROCK];
  const int ties = static_cast<int>(tied_hands_.size());
  result.set_active(static_cast<uint32_t>(active_));
  result.set_target(static_cast<uint32_t>(target_));
  result.set_active_hand(active_hand);
  result.set_target_hand(target_hand);
  result.set_throw_number(throws_made_);
  result.set_ties(static_cast<uint32_t>(ties));
  const bool tie = active_hand == target_hand;
  result.set_tie(tie);
  if (tie) tied_hands_.push_back(active_hand);
  if (!tie) {
    winner_ = Beats(active_hand, target_hand) ? active_ : target_;
    result.set_winner(static_cast<uint32_t>(winner_));
    result.set_loser(
        static_cast<uint32_t>(winner_ == active_ ? target_ : active_));
  }
  if (throws_made_ >= max_throws_) {
    result.set_limit_reached(true);
    phase_ = Phase::kOver;
    termination_ = v1::TERMINATION_MOVE_LIMIT;
    return;
  }
  if (tie) return;
  const int loser = winner_ == active_ ? target_ : active_;
  const bool doubled = num_seats_ > 2 && LiveCount() == 2;
  const int fee = (ties + 1) * (doubled ? 2 : 1);
  result.set_fee(static_cast<uint32_t>(fee));
  result.set_doubled(doubled);
  decider_ = active_;
  OpenPayment(v1::SHAMBO_FEE, loser, winner_, fee);
}

void PyramidShamboState::OpenPayment(v1::ShamboPaymentKind kind, int payer,
                                     int payee, int amount) {
  std::array<bool, kMaxSeats> live = {};
  for (int seat = 0; seat < num_seats_; ++seat) live[seat] = Live(seat);
  phase_ = Phase::kPayment;
  payment_kind_ = kind;
  payment_.emplace(holdings_, live, num_seats_, payer, payee, amount);
  payment_options_ = payment_->CountOptions();
}

void PyramidShamboState::Transfer(const PaymentOption& option) {
  const int payer = payment_->payer();
  if (option.provider != kNoProvider) {
    holdings_[payer] =
        (holdings_[payer] & ~option.payer_gives) | option.provider_gives;
    holdings_[option.provider] =
        (holdings_[option.provider] & ~option.provider_gives) |
        option.payer_gives;
  }
  holdings_[payer] &= ~option.pay;
  holdings_[payment_->payee()] |= option.pay;
}

void PyramidShamboState::ApplyPayment(const v1::PyramidShamboAction& action,
                                      v1::ShamboPaymentResult& result) {
  const bool canonical =
      action.kind_case() == v1::PyramidShamboAction::kCanonical;
  const PaymentOption option =
      canonical ? payment_->Canonical()
                : *OptionFromProto(action.payment(), num_seats_);
  const int payer = payment_->payer();
  result.set_kind(payment_kind_);
  result.set_decider(static_cast<uint32_t>(decider_));
  result.set_payer(static_cast<uint32_t>(payer));
  result.set_payee(static_cast<uint32_t>(payment_->payee()));
  result.set_amount(static_cast<uint32_t>(payment_->amount()));
  result.set_method(MethodToProto(payment_->method()));
  result.set_canonical(canonical);
  *result.mutable_payment() = OptionToProto(option);
  result.set_paid(static_cast<uint32_t>(Pips(option.pay)));
  Transfer(option);
  const v1::ShamboPaymentKind kind = payment_kind_;
  payment_.reset();
  payment_kind_ = v1::SHAMBO_PAYMENT_KIND_UNSPECIFIED;
  payment_options_ = 0;
  if (holdings_[payer] == 0) {
    if (kind == v1::SHAMBO_FEE) {
      KnockOut(payer, result);
    } else {
      Cascade({payer}, ++groups_, result);
    }
  }
  if (!Live(winner_)) {
    // W was emptied by a colour removal (only a knock-out or a bonus payer's
    // cascade can do that): bonus payments not yet made are cancelled.
    result.set_bonus_cancelled(true);
    bonus_due_.clear();
  }
  Advance(result);
}

// Rules page steps 1-4 after the fee: L is eliminated alone, its colour's
// removal may start a cascade (one later group), then the bonus is due.
void PyramidShamboState::KnockOut(int loser, v1::ShamboPaymentResult& result) {
  Eliminate(loser, v1::SHAMBO_KNOCKED_OUT, ++groups_, result);
  std::vector<int> emptied = EmptiedLiveSeats();
  if (!emptied.empty()) Cascade(std::move(emptied), ++groups_, result);
  if (loser == active_) decider_ = winner_;  // The acting active player.
  if (!Live(winner_)) return;
  for (int step = 1; step < num_seats_; ++step) {
    const int seat = (winner_ + step) % num_seats_;
    if (Live(seat)) {
      bonus_due_.push_back(seat);
      result.add_bonus_due(static_cast<uint32_t>(seat));
    }
  }
}

// Eliminates `seats` and, round after round, every live seat their colour
// removals empty: all in `group`.
void PyramidShamboState::Cascade(std::vector<int> seats, int group,
                                 v1::ShamboPaymentResult& result) {
  while (!seats.empty()) {
    for (int seat : seats) {
      Eliminate(seat, v1::SHAMBO_CASCADE, group, result);
    }
    seats = EmptiedLiveSeats();
  }
}

void PyramidShamboState::Eliminate(int seat, v1::ShamboEliminationCause cause,
                                   int group, v1::ShamboPaymentResult& result) {
  group_[seat] = group;
  v1::ShamboElimination* elimination = result.add_eliminations();
  elimination->set_seat(static_cast<uint32_t>(seat));
  elimination->set_cause(cause);
  elimination->set_group(static_cast<uint32_t>(group));
  for (const Piece& piece : Pieces(ColourSet(seat))) {
    for (int holder = 0; holder < num_seats_; ++holder) {
      if ((holdings_[holder] & Bit(piece)) == 0) continue;
      holdings_[holder] &= ~Bit(piece);
      v1::ShamboHeldPiece* removed = elimination->add_removed();
      removed->set_holder(static_cast<uint32_t>(holder));
      *removed->mutable_piece() = PieceToProto(piece);
    }
  }
}

std::vector<int> PyramidShamboState::EmptiedLiveSeats() const {
  std::vector<int> emptied;
  for (int seat = 0; seat < num_seats_; ++seat) {
    if (Live(seat) && holdings_[seat] == 0) emptied.push_back(seat);
  }
  return emptied;
}

// After a payment: the game's end, the next bonus payment, or the next turn.
void PyramidShamboState::Advance(v1::ShamboPaymentResult& result) {
  if (LiveCount() <= 1) {
    phase_ = Phase::kOver;
    termination_ = v1::TERMINATION_NORMAL;
    bonus_due_.clear();
    result.set_turn_over(true);
    result.set_game_over(true);
  } else {
    while (!bonus_due_.empty() && !Live(bonus_due_.front())) {
      bonus_due_.erase(bonus_due_.begin());
    }
    if (!bonus_due_.empty()) {
      const int payer = bonus_due_.front();
      bonus_due_.erase(bonus_due_.begin());
      OpenPayment(v1::SHAMBO_BONUS, payer, winner_, 1);
    } else {
      active_ = NextLiveAfter(active_);
      decider_ = active_;
      phase_ = Phase::kChallenge;
      result.set_turn_over(true);
      result.set_next_active(static_cast<uint32_t>(active_));
    }
  }
  for (int seat = 0; seat < num_seats_; ++seat) {
    AppendPieces(holdings_[seat], *result.add_holdings()->mutable_pieces());
  }
}

// Live seats first (by pips held, ties sharing), then eliminated seats, a
// later elimination group ranking better. Score: pips held.
v1::Outcome PyramidShamboState::Ranking(v1::Termination termination) const {
  std::vector<int64_t> keys;
  v1::Outcome outcome;
  outcome.set_termination(termination);
  for (int seat = 0; seat < num_seats_; ++seat) {
    const int pips = Pips(holdings_[seat]);
    keys.push_back(Live(seat) ? -(kLiveRankBase + pips) : -group_[seat]);
  }
  const std::vector<uint32_t> ranks = CompetitionRanks(keys);
  for (int seat = 0; seat < num_seats_; ++seat) {
    v1::SeatOutcome* result = outcome.add_seats();
    result->set_rank(ranks[seat]);
    result->set_score(Pips(holdings_[seat]));
  }
  return outcome;
}

class PyramidShamboGame final : public Game {
 public:
  explicit PyramidShamboGame(uint32_t max_throws) : max_throws_(max_throws) {}

  std::string_view id() const override { return kGameId; }
  uint32_t rules_version() const override { return kRulesVersion; }
  int min_seats() const override { return kMinSeats; }
  int max_seats() const override { return kMaxSeats; }
  size_t max_action_bytes() const override { return kMaxActionBytes; }

  // The game's only draw: the first player, uniform(seats).
  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    const int first = static_cast<int>(stream.Uniform(num_seats));
    std::unique_ptr<State> state =
        std::make_unique<PyramidShamboState>(num_seats, max_throws_, first);
    return state;
  }

 private:
  uint32_t max_throws_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakePyramidShambo(
    const v1::GameConfig& config, uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(kGameId, rules_version,
                                         kOldestRulesVersion, kRulesVersion);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<uint32_t> max_throws = ParseMaxThrows(config);
  if (!max_throws.ok()) return max_throws.status();
  std::unique_ptr<Game> game = std::make_unique<PyramidShamboGame>(*max_throws);
  return game;
}

namespace shambo {

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const TurnStart& position) {
  const int seats = position.num_seats;
  if (seats < kMinSeats || seats > kMaxSeats ||
      static_cast<int>(position.holdings.size()) != seats) {
    return Refuse("bad seat count or holdings size");
  }
  if (!position.elimination_group.empty() &&
      static_cast<int>(position.elimination_group.size()) != seats) {
    return Refuse("elimination_group must be empty or one per seat");
  }
  if (position.max_throws < 1 || position.throws_made >= position.max_throws) {
    return Refuse("throws_made must be below max_throws");
  }
  Holdings held = {};
  PieceSet all = 0;
  for (int seat = 0; seat < seats; ++seat) {
    for (const Piece& piece : position.holdings[seat]) {
      if (piece.colour < 0 || piece.colour >= seats || piece.size < 1 ||
          piece.size > kNumSizes || (all & Bit(piece)) != 0) {
        return Refuse("unknown or repeated piece");
      }
      all |= Bit(piece);
      held[seat] |= Bit(piece);
    }
  }
  std::array<int, kMaxSeats> groups = {};
  int live = 0;
  for (int seat = 0; seat < seats; ++seat) {
    const int given = position.elimination_group.empty()
                          ? -1
                          : position.elimination_group[seat];
    if (held[seat] != 0) {
      if (given > 0) return Refuse("a seat holding pieces is live");
      ++live;
      continue;
    }
    if (given == 0) return Refuse("a live seat must hold something");
    if ((all & ColourSet(seat)) != 0) {
      return Refuse("an eliminated seat's colour is out of the game");
    }
    groups[seat] = given > 0 ? given : 1;
  }
  for (int seat = 0; seat < seats; ++seat) {
    if (groups[seat] == kLive && (all & ColourSet(seat)) != ColourSet(seat)) {
      return Refuse("every piece of a live seat's colour must be held");
    }
  }
  if (live < 2 || position.active < 0 || position.active >= seats ||
      held[position.active] == 0) {
    return Refuse("needs two live seats and a live active seat");
  }
  std::unique_ptr<State> state =
      std::make_unique<PyramidShamboState>(position, held, groups);
  return state;
}

}  // namespace shambo
}  // namespace pyramid

// A Pyramid Shambo move: a challenge, a throw (ties repeat it), a payment
// and what follows it: transfers, Knock-Outs, eliminations and the next
// turn.
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
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/state.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid::shambo {

void PyramidShamboState::DoApply(absl::Span<const SeatAction> actions,
                                 v1::Result& result) {
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
  if (throws_made_ >= options_.max_throws) {
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
  OptionToProto(option, *result.mutable_payment());
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
      PieceToProto(piece, *removed->mutable_piece());
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
  result.mutable_holdings()->Reserve(num_seats_);
  for (int seat = 0; seat < num_seats_; ++seat) {
    AppendPieces(holdings_[seat], *result.add_holdings()->mutable_pieces());
  }
}

}  // namespace pyramid::shambo

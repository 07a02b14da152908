// What a Pyramid Shambo seat sees: everything is public (holdings, the
// turn, the throws once revealed), so a seat sees what the public view
// shows.
#include <cstdint>
#include <optional>

#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/state.h"

namespace pyramid::shambo {

void PyramidShamboState::ViewInto(std::optional<int> /*seat*/,
                                  v1::Observation& observation) const {
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
  game->set_max_throws(options_.max_throws);
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
}

}  // namespace pyramid::shambo

#include "referee/games/pyramid_shambo/state.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid::shambo {

v1::Action ChallengeAction(int target) {
  v1::Action action;
  action.mutable_pyramid_shambo()->mutable_challenge()->set_target(
      static_cast<uint32_t>(target));
  return action;
}

v1::Action HandAction(v1::ShamboHand hand) {
  v1::Action action;
  action.mutable_pyramid_shambo()->set_hand(hand);
  return action;
}

v1::Action PaymentAction(const PaymentOption& option) {
  v1::Action action;
  OptionToProto(option, *action.mutable_pyramid_shambo()->mutable_payment());
  return action;
}

v1::Action CanonicalAction() {
  v1::Action action;
  action.mutable_pyramid_shambo()->set_canonical(true);
  return action;
}

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
  switch (phase_) {
    case Phase::kChallenge:
      return seat == active_;
    case Phase::kThrow:
      return seat == active_ || seat == target_;
    case Phase::kPayment:
      return seat == decider_;
    case Phase::kOver:
      return false;
  }
  return false;
}

// `seat` acts, so the game is not over.
absl::Status PyramidShamboState::DoValidateAction(
    int /*seat*/, const v1::Action& action) const {
  const v1::PyramidShamboAction& shambo = action.pyramid_shambo();
  if (phase_ == Phase::kChallenge) return ValidateChallenge(shambo);
  if (phase_ == Phase::kPayment) return ValidatePayment(shambo);
  if (shambo.kind_case() != v1::PyramidShamboAction::kHand) {
    return Refuse("a throw is due: send `hand`");
  }
  if (!IsKnownHand(shambo.hand())) {
    return Refuse(
        absl::StrCat("unknown hand ", static_cast<int>(shambo.hand())));
  }
  return absl::OkStatus();
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
      absl::Status checked =
          option.ok() ? payment_->Check(*option) : option.status();
      if (!checked.ok()) return Refuse(std::string(checked.message()));
      return absl::OkStatus();
    }
    default:
      return Refuse("a payment is due: send `payment` or `canonical`");
  }
}

void PyramidShamboState::LegalActionsInto(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const {
  if (!IsActing(seat)) return;
  switch (phase_) {
    case Phase::kChallenge:
      for (int target = 0; target < num_seats_; ++target) {
        if (target != active_ && Live(target)) {
          *out.Add() = ChallengeAction(target);
        }
      }
      break;
    case Phase::kThrow:
      for (v1::ShamboHand hand :
           {v1::SHAMBO_ROCK, v1::SHAMBO_PAPER, v1::SHAMBO_SCISSORS}) {
        *out.Add() = HandAction(hand);
      }
      break;
    case Phase::kPayment:
      if (!ListsLegalActions()) return;
      payment_->ForEachOption([&](const PaymentOption& option) {
        *out.Add() = PaymentAction(option);
        return true;
      });
      if (out.size() >= 2) *out.Add() = CanonicalAction();
      break;
    case Phase::kOver:
      break;
  }
  SortByBytes(out, /*unique=*/false);
}

// Same answer as the default, without listing (and serializing and
// sorting) every payment option or challenge target, nor asking for the
// acting seats' vector: the verifier and the referee ask after every move.
std::optional<v1::Action> PyramidShamboState::SoleLegalAction(int seat) const {
  if (phase_ == Phase::kPayment && seat == decider_) {
    if (payment_options_ != 1) return std::nullopt;
    return PaymentAction(payment_->AnyOption());  // The only one.
  }
  if (phase_ != Phase::kChallenge && phase_ != Phase::kThrow) {
    return State::SoleLegalAction(seat);
  }
  // Two seats throw (and each has three hands); one challenges.
  if (phase_ == Phase::kThrow || seat != active_) return std::nullopt;
  int sole = -1;
  for (int target = 0; target < num_seats_; ++target) {
    if (target == active_ || !Live(target)) continue;
    if (sole >= 0) return std::nullopt;
    sole = target;
  }
  if (sole < 0) return std::nullopt;
  return ChallengeAction(sole);
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
      if (payment_options_ == 1) return PaymentAction(payment_->AnyOption());
      return CanonicalAction();
    case Phase::kOver:
      break;
  }
  return v1::Action();
}

// Live seats first (by pips held, ties sharing), then eliminated seats, a
// later elimination group ranking better. Score: pips held.
v1::Outcome PyramidShamboState::RankedOutcome(
    v1::Termination termination) const {
  std::vector<int64_t> keys;
  std::vector<int32_t> scores;
  for (int seat = 0; seat < num_seats_; ++seat) {
    const int pips = Pips(holdings_[seat]);
    keys.push_back(Live(seat) ? -pips : kEliminatedRankKey - group_[seat]);
    scores.push_back(pips);
  }
  return OutcomeByKeys(keys, scores, termination);
}

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position) {
  absl::StatusOr<ResolvedConfig> resolved =
      ResolveConfig(Description(), config);
  if (!resolved.ok()) return resolved.status();
  const Options options = ToOptions(resolved->options, resolved->rules_version);
  const int seats = position.num_seats;
  if (seats < Description().min_seats || seats > Description().max_seats ||
      static_cast<int>(position.holdings.size()) != seats) {
    return RefuseAction(Description(), "bad seat count or holdings size");
  }
  if (!position.elimination_group.empty() &&
      static_cast<int>(position.elimination_group.size()) != seats) {
    return RefuseAction(Description(),
                        "elimination_group must be empty or one per seat");
  }
  if (position.throws_made >= options.max_throws) {
    return RefuseAction(Description(), "throws_made must be below max_throws");
  }
  Holdings held = {};
  PieceSet all = 0;
  for (int seat = 0; seat < seats; ++seat) {
    for (const Piece& piece : position.holdings[seat]) {
      if (piece.colour < 0 || piece.colour >= seats || piece.size < 1 ||
          piece.size > kNumSizes || (all & Bit(piece)) != 0) {
        return RefuseAction(Description(), "unknown or repeated piece");
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
      if (given > 0)
        return RefuseAction(Description(), "a seat holding pieces is live");
      ++live;
      continue;
    }
    if (given == 0)
      return RefuseAction(Description(), "a live seat must hold something");
    if ((all & ColourSet(seat)) != 0) {
      return RefuseAction(Description(),
                          "an eliminated seat's colour is out of the game");
    }
    groups[seat] = given > 0 ? given : 1;
  }
  for (int seat = 0; seat < seats; ++seat) {
    if (groups[seat] == kLive && (all & ColourSet(seat)) != ColourSet(seat)) {
      return RefuseAction(Description(),
                          "every piece of a live seat's colour must be held");
    }
  }
  if (live < 2 || position.active < 0 || position.active >= seats ||
      held[position.active] == 0) {
    return RefuseAction(Description(),
                        "needs two live seats and a live active seat");
  }
  std::unique_ptr<State> state =
      std::make_unique<PyramidShamboState>(options, position, held, groups);
  return state;
}

}  // namespace pyramid::shambo

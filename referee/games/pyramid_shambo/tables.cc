#include "referee/games/pyramid_shambo/tables.h"

#include <algorithm>
#include <bit>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace pyramid::shambo {
namespace {

absl::Status Refuse(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("pyramid_shambo: ", std::string(why)));
}

}  // namespace

void PieceToProto(const Piece& piece, v1::ShamboPiece& proto) {
  proto.set_colour(static_cast<v1::ShamboColour>(piece.colour + 1));
  proto.set_size(static_cast<v1::ShamboSize>(piece.size));
}

void AppendPieces(PieceSet set, PieceList& list) {
  list.Reserve(list.size() + std::popcount(set));
  ForEachPiece(set,
               [&](const Piece& piece) { PieceToProto(piece, *list.Add()); });
}

// A sorted list of known pieces, as a set.
absl::StatusOr<PieceSet> SetFromProto(const PieceList& list,
                                      std::string_view what) {
  PieceSet set = 0;
  int previous_bit = -1;
  for (const v1::ShamboPiece& proto : list) {
    const int colour = static_cast<int>(proto.colour()) - 1;
    const int size = static_cast<int>(proto.size());
    if (colour < 0 || colour >= kMaxSeats || size < 1 || size > kNumSizes) {
      return Refuse(absl::StrCat("unknown piece (colour ",
                                 static_cast<int>(proto.colour()), ", size ",
                                 size, ") in ", std::string(what)));
    }
    const PieceSet bit = Bit({colour, size});
    const int index = std::countr_zero(bit);
    if (index <= previous_bit) {
      return Refuse(absl::StrCat(std::string(what),
                                 " must list pieces once each, ascending by "
                                 "(size, colour)"));
    }
    previous_bit = index;
    set |= bit;
  }
  return set;
}

absl::StatusOr<PaymentOption> OptionFromProto(const v1::ShamboPayment& proto,
                                              int num_seats) {
  PaymentOption option;
  if (proto.has_exchange()) {
    const v1::ShamboExchange& exchange = proto.exchange();
    if (exchange.provider() >= static_cast<uint32_t>(num_seats)) {
      return Refuse(absl::StrCat("no seat ", exchange.provider()));
    }
    option.provider = static_cast<int>(exchange.provider());
    absl::StatusOr<PieceSet> gives =
        SetFromProto(exchange.payer_gives(), "payer_gives");
    if (!gives.ok()) return gives.status();
    absl::StatusOr<PieceSet> gets =
        SetFromProto(exchange.provider_gives(), "provider_gives");
    if (!gets.ok()) return gets.status();
    option.payer_gives = *gives;
    option.provider_gives = *gets;
  }
  absl::StatusOr<PieceSet> pay = SetFromProto(proto.pay(), "pay");
  if (!pay.ok()) return pay.status();
  option.pay = *pay;
  return option;
}

void OptionToProto(const PaymentOption& option, v1::ShamboPayment& proto) {
  if (option.provider != kNoProvider) {
    v1::ShamboExchange* exchange = proto.mutable_exchange();
    exchange->set_provider(static_cast<uint32_t>(option.provider));
    AppendPieces(option.payer_gives, *exchange->mutable_payer_gives());
    AppendPieces(option.provider_gives, *exchange->mutable_provider_gives());
  }
  AppendPieces(option.pay, *proto.mutable_pay());
}

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

v1::ShamboPaymentMethod MethodToProto(PaymentMethod method) {
  switch (method) {
    case PaymentMethod::kExact:
      return v1::SHAMBO_EXACT;
    case PaymentMethod::kAll:
      return v1::SHAMBO_PAY_ALL;
    case PaymentMethod::kChange:
      return v1::SHAMBO_CHANGE;
    case PaymentMethod::kOverpay:
      return v1::SHAMBO_OVERPAY;
  }
  return v1::SHAMBO_PAYMENT_METHOD_UNSPECIFIED;
}

const char* HandName(v1::ShamboHand hand) {
  switch (hand) {
    case v1::SHAMBO_ROCK:
      return "Rock";
    case v1::SHAMBO_PAPER:
      return "Paper";
    case v1::SHAMBO_SCISSORS:
      return "Scissors";
    default:
      return "?";
  }
}

}  // namespace pyramid::shambo

// Pyramid Shambo's pieces, payment options and actions as protobuf
// messages: the conversions the state, its tests and bots share. Piece lists
// are in (size, colour) order, the order of PieceSet bits.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo/board.h"

namespace pyramid::shambo {

namespace v1 = ::pyramid::referee::v1;

using PieceList = google::protobuf::RepeatedPtrField<v1::ShamboPiece>;

// These write into a message they are given (in place, so that a part of
// an arena message costs no temporary and no copy); it must be empty.
void PieceToProto(const Piece& piece, v1::ShamboPiece& proto);

// Appends the pieces of `set` to `list`, in (size, colour) order.
void AppendPieces(PieceSet set, PieceList& list);

// The set a list names. INVALID_ARGUMENT (naming `what`) for an unknown
// piece, or a list not strictly ascending by (size, colour).
absl::StatusOr<PieceSet> SetFromProto(const PieceList& list,
                                      std::string_view what);

// The option a payment names. INVALID_ARGUMENT when malformed (a provider
// that is no seat of `num_seats`, a bad list); legality is checked by
// PaymentProblem::Check.
absl::StatusOr<PaymentOption> OptionFromProto(const v1::ShamboPayment& proto,
                                              int num_seats);
void OptionToProto(const PaymentOption& option, v1::ShamboPayment& proto);

v1::Action ChallengeAction(int target);
v1::Action HandAction(v1::ShamboHand hand);
v1::Action PaymentAction(const PaymentOption& option);
v1::Action CanonicalAction();

v1::ShamboPaymentMethod MethodToProto(PaymentMethod method);

// "Rock", "Paper" or "Scissors"; "?" for another value.
const char* HandName(v1::ShamboHand hand);

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_TABLES_H_

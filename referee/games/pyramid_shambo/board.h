// Pyramid Shambo's piece sets, holdings and payments: the rules page's
// section "Payment", as pure functions of the holdings, and the pieces and
// payments as messages. The pieces themselves are tables.h's.
//
// A payment of `amount` pips by a payer to a payee is one decision of the
// deciding player. Its method follows from the holdings (exact subset;
// pay-all when the payer holds too little; change by one equal-value
// exchange with a provider; overpayment when nobody can make change) and its
// options are every whole triple (exchange provider and both exchange sets,
// pay) the rules allow, pieces named by identity (colour and size).
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_BOARD_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_BOARD_H_

#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/games/pyramid_shambo/tables.h"

namespace pyramid::shambo {

// The board's checks (PaymentProblem::Check, OptionFromProto,
// SetFromProto) refuse with INVALID_ARGUMENT and the reason alone: the
// state, which knows the game, prefixes its id (State::Refuse).

// A set of pieces as a bit mask: bit (size - 1) * kMaxSeats + colour. Bits
// ascend in (size, colour) order, the order of every piece list.
using PieceSet = uint32_t;

PieceSet Bit(const Piece& piece);
// Every piece of `colour` (all three sizes).
PieceSet ColourSet(int colour);
// The trio a seat starts with.
inline PieceSet Trio(int seat) { return ColourSet(seat); }
// Total pips of the pieces in `set`.
int Pips(PieceSet set);
// Number of pieces in `set`.
int Count(PieceSet set);
// The pieces of `set`, ascending by (size, colour).
std::vector<Piece> Pieces(PieceSet set);
// Calls `visit(piece)` for each of them, in the same order, without making
// the list.
template <typename Visit>
void ForEachPiece(PieceSet set, Visit visit) {
  for (; set != 0; set &= set - 1) {
    const int bit = std::countr_zero(set);
    visit(Piece{bit % kMaxSeats, bit / kMaxSeats + 1});
  }
}

// Every seat's holding; entries past the number of seats, and those of
// eliminated seats, are empty.
using Holdings = std::array<PieceSet, kMaxSeats>;

inline constexpr int kNoProvider = -1;

// One payment option: the rules page's triple.
struct PaymentOption {
  int provider = kNoProvider;  // kNoProvider: no exchange.
  PieceSet payer_gives = 0;
  PieceSet provider_gives = 0;
  PieceSet pay = 0;
  friend bool operator==(const PaymentOption&, const PaymentOption&) = default;
};

// The rules page's canonical ordering key, compared field by field:
// (1) pieces moved in total, (2) `pay` as a sorted (size, colour) list,
// (3) provider (no exchange first), (4) payer_gives, (5) provider_gives,
// each list compared lexicographically.
struct CanonicalKey {
  int moved = 0;
  std::vector<std::pair<int, int>> pay;  // (size, colour), ascending.
  int provider_rank = 0;                 // 0: no exchange; else provider + 1.
  std::vector<std::pair<int, int>> payer_gives;
  std::vector<std::pair<int, int>> provider_gives;
  friend auto operator<=>(const CanonicalKey&, const CanonicalKey&) = default;
};

CanonicalKey KeyOf(const PaymentOption& option);

// KeyOf(a) <=> KeyOf(b), without making the keys' lists: the sets are
// compared as the lists they name.
std::strong_ordering CompareKeys(const PaymentOption& a,
                                 const PaymentOption& b);

enum class PaymentMethod { kExact, kAll, kChange, kOverpay };

// One payment due. Requires a live payer holding at least one piece, a live
// payee other than the payer and amount >= 1. Cheap to copy.
class PaymentProblem {
 public:
  // `live[s]` says whether seat s (< num_seats) is live.
  PaymentProblem(const Holdings& holdings,
                 const std::array<bool, kMaxSeats>& live, int num_seats,
                 int payer, int payee, int amount);

  int payer() const { return payer_; }
  int payee() const { return payee_; }
  int amount() const { return amount_; }
  PaymentMethod method() const { return method_; }
  // kChange only: the seats allowed to provide change, ascending (the payee
  // alone when it can make change).
  const std::vector<int>& providers() const { return providers_; }

  // OK iff `option` is one of the options; otherwise INVALID_ARGUMENT
  // saying why.
  absl::Status Check(const PaymentOption& option) const;

  // Number of options (at least 1), computed without listing them;
  // saturates at UINT64_MAX.
  uint64_t CountOptions() const;

  // Calls `visit` on every option exactly once, in no particular order,
  // until it returns false.
  void ForEachOption(absl::FunctionRef<bool(const PaymentOption&)> visit) const;

  // The option with the least CanonicalKey.
  PaymentOption Canonical() const;

  // One of the options (the first ForEachOption visits), found without
  // comparing keys: when there is a single option, the canonical one.
  PaymentOption AnyOption() const;

 private:
  // Check() for the methods without change (exact, everything, overpay),
  // and for change (an exchange with a provider, then an exact payment).
  absl::Status CheckDirect(const PaymentOption& option) const;
  absl::Status CheckExchange(const PaymentOption& option) const;
  // Counts of Small, Medium and Large pieces.
  using Counts = std::array<int, kNumSizes>;

  // One class of options that share their piece counts per size.
  struct Shape {
    int provider = kNoProvider;
    Counts payer_gives = {};
    Counts provider_gives = {};
    Counts pay = {};
  };

  // Calls `visit` on every shape that has at least one option.
  void ForEachShape(absl::FunctionRef<void(const Shape&)> visit) const;
  // Calls `visit` on every option of `shape` until it returns false;
  // returns false iff stopped.
  bool ExpandShape(const Shape& shape,
                   absl::FunctionRef<bool(const PaymentOption&)> visit) const;
  bool CanChange(int provider) const;

  Holdings holdings_;
  int payer_;
  int payee_;
  int amount_;
  PaymentMethod method_ = PaymentMethod::kExact;
  std::vector<int> providers_;
};

// The pieces and payments as protobuf messages: the conversions the state
// and its tests share. Piece lists are in (size, colour) order, the order
// of PieceSet bits.

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

v1::ShamboPaymentMethod MethodToProto(PaymentMethod method);

}  // namespace pyramid::shambo

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_BOARD_H_

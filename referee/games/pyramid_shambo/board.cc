#include "referee/games/pyramid_shambo/board.h"

#include <algorithm>
#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pyramid::shambo {
namespace {

inline constexpr PieceSet kColourBits = (PieceSet{1} << kMaxSeats) - 1;
inline constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

using Counts = std::array<int, kNumSizes>;

PieceSet SizeMask(int size) { return kColourBits << ((size - 1) * kMaxSeats); }

Counts CountsOf(PieceSet set) {
  Counts counts;
  for (int size = 1; size <= kNumSizes; ++size) {
    counts[size - 1] = std::popcount(set & SizeMask(size));
  }
  return counts;
}

int PipsOf(const Counts& counts) {
  return counts[0] + 2 * counts[1] + 3 * counts[2];
}

int PiecesOf(const Counts& counts) { return counts[0] + counts[1] + counts[2]; }

bool IsZero(const Counts& counts) { return PiecesOf(counts) == 0; }

// Pips of the smallest piece in a non-empty shape.
int SmallestSize(const Counts& counts) {
  for (int size = 1; size <= kNumSizes; ++size) {
    if (counts[size - 1] > 0) return size;
  }
  return 0;
}

// Whether some sub-shape of `counts` is worth exactly `pips`.
bool Reachable(const Counts& counts, int pips) {
  for (int large = 0; large <= counts[2] && 3 * large <= pips; ++large) {
    for (int medium = 0; medium <= counts[1] && 3 * large + 2 * medium <= pips;
         ++medium) {
      if (pips - 3 * large - 2 * medium <= counts[0]) return true;
    }
  }
  return false;
}

// Calls `visit` on every shape with 0 <= shape[i] <= max[i], the Small
// count varying slowest and the Large count fastest. (A template, not a
// FunctionRef: the shapes of every payment are enumerated after every
// throw and payment, and the visits are a few comparisons each.)
template <typename Visit>
void ForEachCounts(const Counts& max, Visit&& visit) {
  Counts counts;
  for (counts[0] = 0; counts[0] <= max[0]; ++counts[0]) {
    for (counts[1] = 0; counts[1] <= max[1]; ++counts[1]) {
      for (counts[2] = 0; counts[2] <= max[2]; ++counts[2]) visit(counts);
    }
  }
}

// ForEachCounts(max, visit) for the shapes worth exactly `pips` only, in the
// same order: the Large count is the one the other two leave, if any, so
// that only those two are enumerated.
template <typename Visit>
void ForEachCountsWorth(const Counts& max, int pips, Visit&& visit) {
  Counts counts;
  for (counts[0] = 0; counts[0] <= max[0] && counts[0] <= pips; ++counts[0]) {
    for (counts[1] = 0;
         counts[1] <= max[1] && counts[0] + 2 * counts[1] <= pips;
         ++counts[1]) {
      const int rest = pips - counts[0] - 2 * counts[1];
      if (rest % 3 != 0 || rest / 3 > max[2]) continue;
      counts[2] = rest / 3;
      visit(counts);
    }
  }
}

uint64_t SaturatingMultiply(uint64_t a, uint64_t b) {
  if (a != 0 && b > kSaturated / a) return kSaturated;
  return a * b;
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

uint64_t Binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  uint64_t result = 1;
  for (int i = 1; i <= k; ++i) result = result * (n - k + i) / i;
  return result;  // Exact: n <= 30 here.
}

// Ways to pick a subset of `shape` out of pieces counted by `from`.
uint64_t Ways(const Counts& from, const Counts& shape) {
  uint64_t ways = 1;
  for (int i = 0; i < kNumSizes; ++i) {
    ways = SaturatingMultiply(ways, Binomial(from[i], shape[i]));
  }
  return ways;
}

// Calls `visit(acc | chosen)` for every `chosen` made of `k` bits of `mask`,
// until it returns false; returns false iff stopped.
bool Choose(PieceSet mask, int k, PieceSet acc,
            absl::FunctionRef<bool(PieceSet)> visit) {
  if (k == 0) return visit(acc);
  if (std::popcount(mask) < k) return true;
  const PieceSet lowest = mask & (~mask + 1);
  if (!Choose(mask ^ lowest, k - 1, acc | lowest, visit)) return false;
  return Choose(mask ^ lowest, k, acc, visit);
}

// Calls `visit` on every subset of `from` with shape[i] pieces of size
// i + 1, until it returns false; returns false iff stopped.
bool ForEachSubset(PieceSet from, const Counts& shape, int size, PieceSet acc,
                   absl::FunctionRef<bool(PieceSet)> visit) {
  if (size > kNumSizes) return visit(acc);
  return Choose(from & SizeMask(size), shape[size - 1], acc,
                [&](PieceSet chosen) {
                  return ForEachSubset(from, shape, size + 1, chosen, visit);
                });
}

bool ForEachSubset(PieceSet from, const Counts& shape,
                   absl::FunctionRef<bool(PieceSet)> visit) {
  return ForEachSubset(from, shape, 1, 0, visit);
}

std::vector<std::pair<int, int>> KeyList(PieceSet set) {
  std::vector<std::pair<int, int>> list;
  for (const Piece& piece : Pieces(set)) {
    list.emplace_back(piece.size, piece.colour);
  }
  return list;
}

// The key's fields (1) and (3).
int Moved(const PaymentOption& option) {
  return Count(option.pay) + Count(option.payer_gives) +
         Count(option.provider_gives);
}

int ProviderRank(const PaymentOption& option) {
  return option.provider == kNoProvider ? 0 : option.provider + 1;
}

// KeyList(a) <=> KeyList(b): the lists ascend as the bits do, so they are
// compared bit by bit from the lowest (a list before its extensions).
std::strong_ordering CompareLists(PieceSet a, PieceSet b) {
  for (; a != 0 && b != 0; a &= a - 1, b &= b - 1) {
    const int next_a = std::countr_zero(a);
    const int next_b = std::countr_zero(b);
    if (next_a != next_b) return next_a <=> next_b;
  }
  return (a != 0) <=> (b != 0);
}

// A refused payment or list: the reason alone (see board.h).
absl::Status Illegal(std::string_view why) {
  return absl::InvalidArgumentError(std::string(why));
}

std::string SetName(PieceSet set) {
  if (set == 0) return "nothing";
  std::vector<std::string> names;
  for (const Piece& piece : Pieces(set)) names.push_back(PieceName(piece));
  return absl::StrJoin(names, ", ");
}

}  // namespace

PieceSet Bit(const Piece& piece) {
  return PieceSet{1} << ((piece.size - 1) * kMaxSeats + piece.colour);
}

PieceSet ColourSet(int colour) {
  PieceSet set = 0;
  for (int size = 1; size <= kNumSizes; ++size) set |= Bit({colour, size});
  return set;
}

int Pips(PieceSet set) { return PipsOf(CountsOf(set)); }

int Count(PieceSet set) { return std::popcount(set); }

std::vector<Piece> Pieces(PieceSet set) {
  std::vector<Piece> pieces;
  pieces.reserve(std::popcount(set));
  ForEachPiece(set, [&](const Piece& piece) { pieces.push_back(piece); });
  return pieces;
}

CanonicalKey KeyOf(const PaymentOption& option) {
  CanonicalKey key;
  key.moved = Moved(option);
  key.pay = KeyList(option.pay);
  key.provider_rank = ProviderRank(option);
  key.payer_gives = KeyList(option.payer_gives);
  key.provider_gives = KeyList(option.provider_gives);
  return key;
}

std::strong_ordering CompareKeys(const PaymentOption& a,
                                 const PaymentOption& b) {
  if (const auto order = Moved(a) <=> Moved(b); order != 0) return order;
  if (const auto order = CompareLists(a.pay, b.pay); order != 0) return order;
  if (const auto order = ProviderRank(a) <=> ProviderRank(b); order != 0) {
    return order;
  }
  if (const auto order = CompareLists(a.payer_gives, b.payer_gives);
      order != 0) {
    return order;
  }
  return CompareLists(a.provider_gives, b.provider_gives);
}

PaymentProblem::PaymentProblem(const Holdings& holdings,
                               const std::array<bool, kMaxSeats>& live,
                               int num_seats, int payer, int payee, int amount)
    : holdings_(holdings), payer_(payer), payee_(payee), amount_(amount) {
  const PieceSet held = holdings_[payer_];
  if (Reachable(CountsOf(held), amount_)) {
    method_ = PaymentMethod::kExact;
  } else if (Pips(held) < amount_) {
    method_ = PaymentMethod::kAll;
  } else if (CanChange(payee_)) {
    method_ = PaymentMethod::kChange;
    providers_ = {payee_};
  } else {
    for (int seat = 0; seat < num_seats; ++seat) {
      if (seat == payer_ || seat == payee_ || !live[seat]) continue;
      if (CanChange(seat)) providers_.push_back(seat);
    }
    method_ =
        providers_.empty() ? PaymentMethod::kOverpay : PaymentMethod::kChange;
  }
}

// Only the net change of the payer's shape matters, so an exchange that
// moves pieces of one size both ways can be reduced; it is enough to try
// exchanges that move each size in one direction at most.
bool PaymentProblem::CanChange(int provider) const {
  const Counts payer = CountsOf(holdings_[payer_]);
  const Counts other = CountsOf(holdings_[provider]);
  bool found = false;
  ForEachCounts(payer, [&](const Counts& gives) {
    if (found || IsZero(gives)) return;
    // Worth as much as a non-empty `gives`: not empty either.
    ForEachCountsWorth(other, PipsOf(gives), [&](const Counts& gets) {
      if (found) return;
      Counts after;
      for (int i = 0; i < kNumSizes; ++i) {
        if (gives[i] > 0 && gets[i] > 0) return;
        after[i] = payer[i] - gives[i] + gets[i];
      }
      found = Reachable(after, amount_);
    });
  });
  return found;
}

void PaymentProblem::ForEachShape(
    absl::FunctionRef<void(const Shape&)> visit) const {
  const Counts payer = CountsOf(holdings_[payer_]);
  switch (method_) {
    case PaymentMethod::kExact:
      ForEachCountsWorth(payer, amount_,
                         [&](const Counts& pay) { visit(Shape{.pay = pay}); });
      return;
    case PaymentMethod::kAll:
      visit(Shape{.pay = payer});
      return;
    case PaymentMethod::kOverpay:
      ForEachCounts(payer, [&](const Counts& pay) {
        const int pips = PipsOf(pay);
        if (pips > amount_ && pips - SmallestSize(pay) < amount_) {
          visit(Shape{.pay = pay});
        }
      });
      return;
    case PaymentMethod::kChange:
      for (int provider : providers_) {
        const Counts other = CountsOf(holdings_[provider]);
        ForEachCounts(payer, [&](const Counts& gives) {
          if (IsZero(gives)) return;
          // Worth as much as a non-empty `gives`: not empty either.
          ForEachCountsWorth(other, PipsOf(gives), [&](const Counts& gets) {
            Counts after;
            for (int i = 0; i < kNumSizes; ++i) {
              after[i] = payer[i] - gives[i] + gets[i];
            }
            ForEachCountsWorth(after, amount_, [&](const Counts& pay) {
              visit(Shape{.provider = provider,
                          .payer_gives = gives,
                          .provider_gives = gets,
                          .pay = pay});
            });
          });
        });
      }
      return;
  }
}

bool PaymentProblem::ExpandShape(
    const Shape& shape,
    absl::FunctionRef<bool(const PaymentOption&)> visit) const {
  const PieceSet payer = holdings_[payer_];
  if (shape.provider == kNoProvider) {
    return ForEachSubset(payer, shape.pay, [&](PieceSet pay) {
      return visit(PaymentOption{.pay = pay});
    });
  }
  const PieceSet other = holdings_[shape.provider];
  return ForEachSubset(payer, shape.payer_gives, [&](PieceSet gives) {
    return ForEachSubset(other, shape.provider_gives, [&](PieceSet gets) {
      const PieceSet after = (payer & ~gives) | gets;
      return ForEachSubset(after, shape.pay, [&](PieceSet pay) {
        return visit(PaymentOption{.provider = shape.provider,
                                   .payer_gives = gives,
                                   .provider_gives = gets,
                                   .pay = pay});
      });
    });
  });
}

uint64_t PaymentProblem::CountOptions() const {
  const Counts payer = CountsOf(holdings_[payer_]);
  uint64_t total = 0;
  ForEachShape([&](const Shape& shape) {
    uint64_t ways = Ways(payer, shape.pay);
    if (shape.provider != kNoProvider) {
      const Counts other = CountsOf(holdings_[shape.provider]);
      Counts after;
      for (int i = 0; i < kNumSizes; ++i) {
        after[i] = payer[i] - shape.payer_gives[i] + shape.provider_gives[i];
      }
      ways = SaturatingMultiply(Ways(payer, shape.payer_gives),
                                Ways(other, shape.provider_gives));
      ways = SaturatingMultiply(ways, Ways(after, shape.pay));
    }
    total = SaturatingAdd(total, ways);
  });
  return total;
}

void PaymentProblem::ForEachOption(
    absl::FunctionRef<bool(const PaymentOption&)> visit) const {
  bool stopped = false;
  ForEachShape([&](const Shape& shape) {
    if (!stopped) stopped = !ExpandShape(shape, visit);
  });
}

PaymentOption PaymentProblem::AnyOption() const {
  PaymentOption first;
  ForEachOption([&](const PaymentOption& option) {
    first = option;
    return false;
  });
  return first;
}

// Key field (1) depends on the shape alone, so only the shapes that move the
// fewest pieces are expanded.
PaymentOption PaymentProblem::Canonical() const {
  std::vector<Shape> shapes;
  int fewest = std::numeric_limits<int>::max();
  ForEachShape([&](const Shape& shape) {
    const int moved = PiecesOf(shape.pay) + PiecesOf(shape.payer_gives) +
                      PiecesOf(shape.provider_gives);
    if (moved < fewest) {
      fewest = moved;
      shapes.clear();
    }
    if (moved == fewest) shapes.push_back(shape);
  });
  PaymentOption best;
  bool have_best = false;
  for (const Shape& shape : shapes) {
    ExpandShape(shape, [&](const PaymentOption& option) {
      if (!have_best || CompareKeys(option, best) < 0) {
        best = option;
        have_best = true;
      }
      return true;
    });
  }
  return best;
}

absl::Status PaymentProblem::Check(const PaymentOption& option) const {
  return method_ == PaymentMethod::kChange ? CheckExchange(option)
                                           : CheckDirect(option);
}

absl::Status PaymentProblem::CheckDirect(const PaymentOption& option) const {
  const PieceSet payer = holdings_[payer_];
  if (option.provider != kNoProvider || option.payer_gives != 0 ||
      option.provider_gives != 0) {
    return Illegal(
        "this payment takes no exchange (change is only made "
        "when the payer cannot pay exactly and holds enough)");
  }
  if ((option.pay & ~payer) != 0) {
    return Illegal(
        absl::StrCat("the payer does not hold ", SetName(option.pay & ~payer)));
  }
  const int pips = Pips(option.pay);
  switch (method_) {
    case PaymentMethod::kExact:
      if (pips != amount_) {
        return Illegal(absl::StrCat("pay must be worth exactly ", amount_,
                                    " pips, not ", pips));
      }
      return absl::OkStatus();
    case PaymentMethod::kAll:
      if (option.pay != payer) {
        return Illegal(
            "the payer holds less than the amount and must pay "
            "everything it holds");
      }
      return absl::OkStatus();
    case PaymentMethod::kOverpay:
      if (pips <= amount_ ||
          pips - SmallestSize(CountsOf(option.pay)) >= amount_) {
        return Illegal(absl::StrCat(
            "nobody can make change: pay must be worth more than ", amount_,
            " pips, and removing any one of its pieces must leave less "
            "than ",
            amount_));
      }
      return absl::OkStatus();
    case PaymentMethod::kChange:
      break;
  }
  return CheckExchange(option);  // Not reached: Check() routes kChange.
}

absl::Status PaymentProblem::CheckExchange(const PaymentOption& option) const {
  const PieceSet payer = holdings_[payer_];
  if (option.provider == kNoProvider) {
    return Illegal("the payer cannot pay exactly: an exchange is required");
  }
  if (std::find(providers_.begin(), providers_.end(), option.provider) ==
      providers_.end()) {
    return Illegal(absl::StrCat("seat ", option.provider,
                                " may not provide change (allowed: ",
                                absl::StrJoin(providers_, ", "), ")"));
  }
  const PieceSet other = holdings_[option.provider];
  if (option.payer_gives == 0 || option.provider_gives == 0) {
    return Illegal("both sides of an exchange must give at least one piece");
  }
  if ((option.payer_gives & ~payer) != 0) {
    return Illegal(absl::StrCat("the payer does not hold ",
                                SetName(option.payer_gives & ~payer)));
  }
  if ((option.provider_gives & ~other) != 0) {
    return Illegal(absl::StrCat("the provider does not hold ",
                                SetName(option.provider_gives & ~other)));
  }
  if (Pips(option.payer_gives) != Pips(option.provider_gives)) {
    return Illegal(
        absl::StrCat("the exchange is unequal: ", Pips(option.payer_gives),
                     " pips for ", Pips(option.provider_gives)));
  }
  const PieceSet after = (payer & ~option.payer_gives) | option.provider_gives;
  if ((option.pay & ~after) != 0) {
    return Illegal(absl::StrCat("after the exchange the payer does not hold ",
                                SetName(option.pay & ~after)));
  }
  if (Pips(option.pay) != amount_) {
    return Illegal(absl::StrCat("pay must be worth exactly ", amount_,
                                " pips, not ", Pips(option.pay)));
  }
  return absl::OkStatus();
}

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
      return Illegal(absl::StrCat("unknown piece (colour ",
                                  static_cast<int>(proto.colour()), ", size ",
                                  size, ") in ", std::string(what)));
    }
    const PieceSet bit = Bit({colour, size});
    const int index = std::countr_zero(bit);
    if (index <= previous_bit) {
      return Illegal(absl::StrCat(std::string(what),
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
      return Illegal(absl::StrCat("no seat ", exchange.provider()));
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

}  // namespace pyramid::shambo

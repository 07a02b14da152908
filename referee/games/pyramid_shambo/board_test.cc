// Tests of Pyramid Shambo's payment options: the canonical key's
// field-by-field order, and the enumeration, count and check against a
// naive, identity-by-identity reading of the rules page.
#include "referee/games/pyramid_shambo/board.h"

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/pyramid_shambo/testing.h"

namespace pyramid::shambo::testing {
namespace {

PaymentOption Plain(std::string_view pay) {
  return PaymentOption{.pay = Set(pay)};
}

PaymentOption Exchange(int provider, std::string_view gives,
                       std::string_view gets, std::string_view pay) {
  return PaymentOption{.provider = provider,
                       .payer_gives = Set(gives),
                       .provider_gives = Set(gets),
                       .pay = Set(pay)};
}

bool Less(const PaymentOption& a, const PaymentOption& b) {
  return KeyOf(a) < KeyOf(b);
}

// ---------------------------------------------------------------------------
// The canonical key, field by field.

TEST(ShamboCanonicalKeyTest, KeyHoldsThePagesFieldsInOrder) {
  const CanonicalKey key = KeyOf(Exchange(3, "y2", "r1 b1", "r1"));
  EXPECT_EQ(key.moved, 4);
  EXPECT_EQ(key.pay, (std::vector<std::pair<int, int>>{{1, 0}}));
  EXPECT_EQ(key.provider_rank, 4);
  EXPECT_EQ(key.payer_gives, (std::vector<std::pair<int, int>>{{2, 1}}));
  EXPECT_EQ(key.provider_gives,
            (std::vector<std::pair<int, int>>{{1, 0}, {1, 3}}));
  EXPECT_EQ(KeyOf(Plain("y1")).provider_rank, 0);  // No exchange.
}

TEST(ShamboCanonicalKeyTest, FieldOnePiecesMovedComesFirst) {
  // One Large beats two Smalls although the Smalls' list is less.
  EXPECT_TRUE(Less(Plain("r3"), Plain("r1 y1")));
  EXPECT_FALSE(Less(Plain("r1 y1"), Plain("r3")));
  // An exchange moves more pieces than any plain pay of one piece.
  EXPECT_TRUE(Less(Plain("x3"), Exchange(0, "y3", "r1 r2", "r1")));
}

TEST(ShamboCanonicalKeyTest, FieldTwoPayComesBeforeTheProvider) {
  // Four pieces each: the exchange's pay [r1] is less than [y1 g1 b1 k1],
  // so it wins although "no exchange" would sort first on field 3.
  EXPECT_TRUE(Less(Exchange(5, "y3", "w1 w2", "r1"), Plain("y1 g1 b1 k1")));
  // Pay lists compare by (size, colour): size first.
  EXPECT_TRUE(Less(Plain("x1 r3"), Plain("r2 y2")));
  EXPECT_TRUE(Less(Plain("r1 x1"), Plain("y1 g1")));
}

TEST(ShamboCanonicalKeyTest, FieldThreeProviderComesBeforeTheSets) {
  // Same moved and pay; provider 2 beats provider 3 although 3's
  // payer_gives (y2) is less than 2's (y3).
  EXPECT_TRUE(
      Less(Exchange(2, "y3", "g1 g2", "r1"), Exchange(3, "y2", "b1 k1", "r1")));
  // No exchange sorts first on this field.
  CanonicalKey plain = KeyOf(Plain("r1"));
  CanonicalKey exchanged = plain;
  exchanged.provider_rank = 1;  // Provider seat 0.
  EXPECT_LT(plain, exchanged);
}

TEST(ShamboCanonicalKeyTest, FieldFourPayerGivesThenFieldFiveProviderGives) {
  // Same moved, pay and provider: payer_gives decides before
  // provider_gives.
  EXPECT_TRUE(
      Less(Exchange(2, "y1 y2", "g3", "y3"), Exchange(2, "y3", "g1 g2", "y3")));
  // Equal up to field 4: provider_gives decides.
  EXPECT_TRUE(
      Less(Exchange(2, "y3", "r1 g2", "y2"), Exchange(2, "y3", "g1 g2", "y2")));
}

TEST(ShamboCanonicalKeyTest, LexicographicListOrder) {
  // [(1,0),(1,1),(1,3)] vs [(1,0),(1,2),(2,1)]: the second entry decides.
  EXPECT_TRUE(Less(Plain("r1 y1 b1"), Plain("r1 g1 y2")));
  // A proper prefix is less.
  CanonicalKey shorter = KeyOf(Plain("r1"));
  CanonicalKey longer = KeyOf(Plain("r1 y1"));
  longer.moved = shorter.moved;
  EXPECT_LT(shorter, longer);
}

TEST(ShamboCanonicalKeyTest, CompareKeysOrdersOptionsAsTheirKeys) {
  // The options above, and lists that are prefixes of one another in each
  // list field, compared every way round.
  const std::vector<PaymentOption> options = {
      Plain("r1"),
      Plain("r3"),
      Plain("x3"),
      Plain("r1 x1"),
      Plain("r1 y1"),
      Plain("r2 y2"),
      Plain("x1 r3"),
      Plain("y1 g1"),
      Plain("r1 y1 b1"),
      Plain("r1 g1 y2"),
      Plain("y1 g1 b1 k1"),
      Exchange(0, "y3", "r1 r2", "r1"),
      Exchange(2, "y1 y2", "g3", "y3"),
      Exchange(2, "y3", "g1 g2", "r1"),
      Exchange(2, "y3", "g1 g2", "y2"),
      Exchange(2, "y3", "g1 g2", "y3"),
      Exchange(2, "y3", "r1 g2", "y2"),
      Exchange(2, "y3", "r1", "y2"),
      Exchange(2, "y3", "r1", "y2 g2"),
      Exchange(2, "y3 g3", "r1", "y2"),
      Exchange(3, "y2", "b1 k1", "r1"),
      Exchange(5, "y3", "w1 w2", "r1"),
  };
  for (const PaymentOption& a : options) {
    for (const PaymentOption& b : options) {
      SCOPED_TRACE(::testing::Message() << "pay " << testing::Names(a.pay)
                                        << " vs " << testing::Names(b.pay));
      EXPECT_TRUE(CompareKeys(a, b) == (KeyOf(a) <=> KeyOf(b)));
    }
  }
}

// ---------------------------------------------------------------------------
// Enumeration, count and check against a naive reading of the rules.

// Every subset of `set`.
std::vector<PieceSet> Subsets(PieceSet set) {
  std::vector<PieceSet> subsets;
  for (PieceSet sub = set;; sub = (sub - 1) & set) {
    subsets.push_back(sub);
    if (sub == 0) break;
  }
  return subsets;
}

bool HasSubsetWorth(PieceSet set, int pips) {
  for (PieceSet sub : Subsets(set)) {
    if (Pips(sub) == pips) return true;
  }
  return false;
}

struct Problem {
  Holdings holdings = {};
  std::array<bool, kMaxSeats> live = {};
  int seats = 0;
  int payer = 0;
  int payee = 0;
  int amount = 0;
};

bool NaiveCanChange(const Problem& p, int provider) {
  const PieceSet payer = p.holdings[p.payer];
  for (PieceSet gives : Subsets(payer)) {
    for (PieceSet gets : Subsets(p.holdings[provider])) {
      if (gives == 0 || gets == 0 || Pips(gives) != Pips(gets)) continue;
      if (HasSubsetWorth((payer & ~gives) | gets, p.amount)) return true;
    }
  }
  return false;
}

// The page's Payment section, read literally, piece by piece.
std::set<std::tuple<int, PieceSet, PieceSet, PieceSet>> NaiveOptions(
    const Problem& p, PaymentMethod& method, std::vector<int>& providers) {
  std::set<std::tuple<int, PieceSet, PieceSet, PieceSet>> options;
  const PieceSet payer = p.holdings[p.payer];
  providers.clear();
  if (HasSubsetWorth(payer, p.amount)) {
    method = PaymentMethod::kExact;
    for (PieceSet pay : Subsets(payer)) {
      if (Pips(pay) == p.amount) options.insert({kNoProvider, 0, 0, pay});
    }
    return options;
  }
  if (Pips(payer) < p.amount) {
    method = PaymentMethod::kAll;
    options.insert({kNoProvider, 0, 0, payer});
    return options;
  }
  if (NaiveCanChange(p, p.payee)) {
    providers = {p.payee};
  } else {
    for (int seat = 0; seat < p.seats; ++seat) {
      if (seat != p.payer && seat != p.payee && p.live[seat] &&
          NaiveCanChange(p, seat)) {
        providers.push_back(seat);
      }
    }
  }
  if (providers.empty()) {
    method = PaymentMethod::kOverpay;
    for (PieceSet pay : Subsets(payer)) {
      if (Pips(pay) <= p.amount) continue;
      bool minimal = true;
      for (const Piece& piece : Pieces(pay)) {
        if (Pips(pay) - piece.size >= p.amount) minimal = false;
      }
      if (minimal) options.insert({kNoProvider, 0, 0, pay});
    }
    return options;
  }
  method = PaymentMethod::kChange;
  for (int provider : providers) {
    for (PieceSet gives : Subsets(payer)) {
      for (PieceSet gets : Subsets(p.holdings[provider])) {
        if (gives == 0 || gets == 0 || Pips(gives) != Pips(gets)) continue;
        for (PieceSet pay : Subsets((payer & ~gives) | gets)) {
          if (Pips(pay) == p.amount) {
            options.insert({provider, gives, gets, pay});
          }
        }
      }
    }
  }
  return options;
}

// Deals some of the pieces of `seats` colours to the seats (each live seat
// at least one piece; some seats may be out), from `stream`.
Problem RandomProblem(RandomStream& stream) {
  Problem p;
  p.seats = 2 + static_cast<int>(stream.Uniform(3));  // 2..4.
  std::vector<Piece> pieces;
  for (int colour = 0; colour < p.seats; ++colour) {
    for (int size = 1; size <= kNumSizes; ++size) {
      if (stream.Uniform(4) != 0) pieces.push_back({colour, size});
    }
  }
  for (const Piece& piece : pieces) {
    p.holdings[stream.Uniform(p.seats)] |= Bit(piece);
  }
  std::vector<int> holders;
  for (int seat = 0; seat < p.seats; ++seat) {
    p.live[seat] = p.holdings[seat] != 0;
    if (p.live[seat]) holders.push_back(seat);
  }
  if (holders.size() < 2) return RandomProblem(stream);
  p.payer = holders[stream.Uniform(holders.size())];
  do {
    p.payee = holders[stream.Uniform(holders.size())];
  } while (p.payee == p.payer);
  p.amount = 1 + static_cast<int>(stream.Uniform(6));
  return p;
}

TEST(ShamboPaymentOptionsTest, EnumerationCountAndCheckMatchTheRules) {
  Digest seed = {};
  seed[0] = 7;
  RandomStream stream(seed);
  std::array<int, 4> methods = {};
  for (int trial = 0; trial < 600; ++trial) {
    const Problem p = RandomProblem(stream);
    SCOPED_TRACE(::testing::Message()
                 << "trial " << trial << " payer " << p.payer << " holds "
                 << testing::Names(p.holdings[p.payer]) << " payee " << p.payee
                 << " amount " << p.amount);
    PaymentMethod method;
    std::vector<int> providers;
    const auto expected = NaiveOptions(p, method, providers);
    const PaymentProblem problem(p.holdings, p.live, p.seats, p.payer, p.payee,
                                 p.amount);
    ASSERT_EQ(problem.method(), method);
    ASSERT_EQ(problem.providers(), providers);
    ++methods[static_cast<int>(method)];
    std::set<std::tuple<int, PieceSet, PieceSet, PieceSet>> listed;
    std::vector<PaymentOption> options;
    problem.ForEachOption([&](const PaymentOption& o) {
      EXPECT_TRUE(
          listed.insert({o.provider, o.payer_gives, o.provider_gives, o.pay})
              .second)
          << "listed twice";
      options.push_back(o);
      return true;
    });
    ASSERT_EQ(listed, expected);
    ASSERT_EQ(problem.CountOptions(), expected.size());
    for (const PaymentOption& o : options) {
      ASSERT_TRUE(problem.Check(o).ok()) << problem.Check(o);
    }
    // Near misses are refused: options with one piece toggled.
    for (size_t i = 0; i < options.size() && i < 12; ++i) {
      const PaymentOption& o = options[i];
      for (int bit = 0; bit < kNumSizes * kMaxSeats; ++bit) {
        PaymentOption changed = o;
        changed.pay ^= PieceSet{1} << bit;
        const bool is_option =
            expected.count({changed.provider, changed.payer_gives,
                            changed.provider_gives, changed.pay}) > 0;
        ASSERT_EQ(problem.Check(changed).ok(), is_option);
        changed = o;
        changed.payer_gives ^= PieceSet{1} << bit;
        ASSERT_EQ(problem.Check(changed).ok(),
                  expected.count({changed.provider, changed.payer_gives,
                                  changed.provider_gives, changed.pay}) > 0);
      }
    }
    // The canonical option is the least key.
    const PaymentOption least =
        *std::min_element(options.begin(), options.end(), Less);
    ASSERT_TRUE(problem.Canonical() == least);
    // CompareKeys orders them as their keys.
    for (size_t i = 0; i < options.size() && i < 12; ++i) {
      for (size_t j = 0; j < options.size() && j < 12; ++j) {
        ASSERT_TRUE(CompareKeys(options[i], options[j]) ==
                    (KeyOf(options[i]) <=> KeyOf(options[j])));
      }
    }
    // AnyOption is the first option listed (with one, the canonical one).
    ASSERT_TRUE(problem.AnyOption() == options.front());
  }
  // Every method came up.
  for (int count : methods) EXPECT_GT(count, 0);
}

TEST(ShamboPaymentOptionsTest, OptionsAreCountedWithoutListingThem) {
  // A payer with many pieces owing much: the count is exact and cheap.
  Holdings holdings = {};
  holdings[0] = Set("r1 r2 r3");
  for (int colour = 1; colour < kMaxSeats; ++colour) {
    holdings[1] |= ColourSet(colour);
  }
  std::array<bool, kMaxSeats> live = {};
  live.fill(true);
  const PaymentProblem problem(holdings, live, kMaxSeats, 1, 0, 12);
  EXPECT_EQ(problem.method(), PaymentMethod::kExact);
  uint64_t listed = 0;
  problem.ForEachOption([&](const PaymentOption&) {
    ++listed;
    return true;
  });
  EXPECT_EQ(problem.CountOptions(), listed);
  EXPECT_GT(listed, 10000u);
}

}  // namespace
}  // namespace pyramid::shambo::testing

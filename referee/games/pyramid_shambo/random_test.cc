// Random self-check of Pyramid Shambo: seeded games over every seat count,
// choosing uniformly among the legal actions, with the rules' invariants
// checked at every step (the list: pieces conserved except those
// removed with an eliminated colour, no live seat holds nothing, the fee as
// the rules say; every payment option listed once, canonical = least key;
// ranks as the rules page says). The State contract (legal actions sorted,
// unique and valid, default legal, clones equal) is
// tests/conformance_test.cc's.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_shambo/board.h"
#include "referee/games/pyramid_shambo/game.h"
#include "referee/games/pyramid_shambo/state.h"
#include "referee/games/testing.h"
#include "tests/sanitizers.h"

namespace pyramid::shambo::testing {
namespace {

using game_testing::CountedMatch;
using game_testing::ExpectMovesWithinBound;
using game_testing::MoveCount;
using game_testing::MovesPerBound;
using game_testing::PlayRandomGame;
using game_testing::RandomGameChecks;
using shambo::Bit;
using shambo::PaymentOption;
using shambo::PieceSet;

Digest Seed(uint32_t game, uint32_t salt) {
  Digest seed = {};
  for (int i = 0; i < 4; ++i) {
    seed[i] = static_cast<uint8_t>(game >> (8 * i));
    seed[4 + i] = static_cast<uint8_t>(salt >> (8 * i));
  }
  return seed;
}

PieceSet SetOf(
    const google::protobuf::RepeatedPtrField<v1::ShamboPiece>& list) {
  PieceSet set = 0;
  for (const v1::ShamboPiece& piece : list) {
    set |= Bit(
        {static_cast<int>(piece.colour()) - 1, static_cast<int>(piece.size())});
  }
  return set;
}

PaymentOption OptionOf(const v1::ShamboPayment& payment) {
  PaymentOption option;
  if (payment.has_exchange()) {
    option.provider = static_cast<int>(payment.exchange().provider());
    option.payer_gives = SetOf(payment.exchange().payer_gives());
    option.provider_gives = SetOf(payment.exchange().provider_gives());
  }
  option.pay = SetOf(payment.pay());
  return option;
}

struct Stats {
  int games = 0;
  int64_t steps = 0;
  uint64_t max_options = 0;
  int64_t changes = 0;
  int64_t overpays = 0;
  int64_t pay_alls = 0;
  int64_t knockouts = 0;
  int64_t cascades = 0;
  int64_t cancelled = 0;
  int64_t uninvolved_providers = 0;
  int64_t self_eliminations = 0;
  uint32_t max_throws_in_game = 0;
  int limited = 0;
};

// The invariants on the public view.
void CheckPosition(const v1::PyramidShamboObservation& view) {
  PieceSet held = 0;
  PieceSet live_colours = 0;
  for (int seat = 0; seat < view.seats_size(); ++seat) {
    const v1::ShamboSeatView& s = view.seats(seat);
    const PieceSet mine = SetOf(s.holding());
    ASSERT_EQ(held & mine, 0u) << "a piece held twice";
    held |= mine;
    ASSERT_EQ(s.live(), s.elimination_group() == 0);
    if (s.live()) {
      ASSERT_NE(mine, 0u) << "live seat " << seat << " holds nothing";
      live_colours |= shambo::ColourSet(seat);
    } else {
      ASSERT_EQ(mine, 0u) << "eliminated seat " << seat << " holds pieces";
    }
    ASSERT_EQ(s.pips(), static_cast<uint32_t>(shambo::Pips(mine)));
  }
  ASSERT_EQ(held, live_colours)
      << "pieces not conserved (beyond eliminated colours)";
}

// In a payment, the legal actions are every explicit option once, plus
// `canonical` when there are several, and the default pays the option of
// least key.
void CheckPaymentOptions(const State& state, int seat, Stats& stats) {
  const v1::PyramidShamboObservation view = state.PublicView().pyramid_shambo();
  if (view.phase() != v1::SHAMBO_PHASE_PAYMENT) return;
  stats.max_options = std::max(stats.max_options, view.payment().options());
  const std::vector<v1::Action> legal = state.LegalActions(seat);
  ASSERT_FALSE(legal.empty()) << "random games stay under the listing limit";
  std::vector<PaymentOption> options;
  for (const v1::Action& action : legal) {
    if (action.pyramid_shambo().kind_case() ==
        v1::PyramidShamboAction::kPayment) {
      options.push_back(OptionOf(action.pyramid_shambo().payment()));
    }
  }
  ASSERT_EQ(options.size(), view.payment().options());
  ASSERT_EQ(legal.size(), options.size() == 1 ? 1 : options.size() + 1);
  // The canonical option is the least key among them.
  PaymentOption least = options[0];
  shambo::CanonicalKey least_key = shambo::KeyOf(least);
  for (const PaymentOption& option : options) {
    shambo::CanonicalKey key = shambo::KeyOf(option);
    if (key < least_key) {
      least = option;
      least_key = std::move(key);
    }
  }
  std::unique_ptr<State> copy = state.Clone();
  SeatAction canonical{seat, state.DefaultAction(seat)};
  absl::StatusOr<v1::Result> applied = copy->Apply({&canonical, 1});
  ASSERT_TRUE(applied.ok());
  ASSERT_TRUE(OptionOf(applied->pyramid_shambo().payment().payment()) == least);
}

void CheckResult(const v1::PyramidShamboObservation& before,
                 const v1::PyramidShamboResult& result, int num_seats,
                 Stats& stats) {
  int live = 0;
  for (const v1::ShamboSeatView& seat : before.seats()) live += seat.live();
  if (result.has_throw_result()) {
    const v1::ShamboThrowResult& t = result.throw_result();
    ASSERT_EQ(t.ties(), before.ties());
    if (t.tie() || t.limit_reached()) {
      ASSERT_EQ(t.fee(), 0u);
      return;
    }
    const bool doubled = num_seats > 2 && live == 2;
    ASSERT_EQ(t.doubled(), doubled);
    ASSERT_EQ(t.fee(), (t.ties() + 1) * (doubled ? 2 : 1)) << "fee";
  }
  if (!result.has_payment()) return;
  const v1::ShamboPaymentResult& p = result.payment();
  ASSERT_EQ(p.amount(), before.payment().amount());
  if (p.kind() == v1::SHAMBO_BONUS) {
    ASSERT_EQ(p.amount(), 1u);
  }
  const uint32_t payer_pips = before.seats(p.payer()).pips();
  switch (p.method()) {
    case v1::SHAMBO_EXACT:
    case v1::SHAMBO_CHANGE:
      ASSERT_EQ(p.paid(), p.amount());
      break;
    case v1::SHAMBO_PAY_ALL:
      ASSERT_EQ(p.paid(), payer_pips);
      ASSERT_LT(p.paid(), p.amount());
      ++stats.pay_alls;
      break;
    case v1::SHAMBO_OVERPAY:
      ASSERT_GT(p.paid(), p.amount());
      ++stats.overpays;
      break;
    default:
      FAIL() << "no method";
  }
  if (p.method() == v1::SHAMBO_CHANGE) {
    ++stats.changes;
    if (p.payment().exchange().provider() != p.payee()) {
      ++stats.uninvolved_providers;
    }
  }
  for (const v1::ShamboElimination& e : p.eliminations()) {
    if (e.cause() == v1::SHAMBO_KNOCKED_OUT) {
      ++stats.knockouts;
      if (e.seat() == before.active()) ++stats.self_eliminations;
    } else {
      ++stats.cascades;
    }
  }
  stats.cancelled += p.bonus_cancelled();
}

// Ranks as the rules page says: live seats first by pips held (ties
// share), then eliminated seats, a later elimination group better.
// `final`: `outcome` is the game's Outcome(), else StoppedOutcome().
void CheckRanks(const v1::PyramidShamboObservation& end,
                const v1::Outcome& outcome, bool final) {
  const int n = end.seats_size();
  int live = 0;
  for (const v1::ShamboSeatView& seat : end.seats()) live += seat.live();
  for (int seat = 0; seat < n; ++seat) {
    const v1::ShamboSeatView& mine = end.seats(seat);
    uint32_t better = 0;
    for (const v1::ShamboSeatView& other : end.seats()) {
      if (mine.live()) {
        better += other.live() && other.pips() > mine.pips();
      } else {
        better += other.live() ||
                  other.elimination_group() > mine.elimination_group();
      }
    }
    ASSERT_EQ(outcome.seats(seat).rank(), better + 1) << "seat " << seat;
    ASSERT_EQ(outcome.seats(seat).score(), static_cast<int32_t>(mine.pips()));
  }
  if (!final) {
    ASSERT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  } else if (outcome.termination() == v1::TERMINATION_NORMAL) {
    ASSERT_LE(live, 1);
  } else {
    ASSERT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
    ASSERT_EQ(end.throws_made(), end.max_throws());
  }
}

// The rules' invariants on every position, payment options, result and
// ranking, and the run's statistics.
class ShamboChecks : public RandomGameChecks {
 public:
  explicit ShamboChecks(Stats& stats) : stats_(stats) {}

  void BeforeStep(const State& state) override {
    ++stats_.steps;
    before_ = state.PublicView().pyramid_shambo();
    ASSERT_NO_FATAL_FAILURE(CheckPosition(before_));
    // Only the throw is simultaneous, and it is the two seats'.
    const std::vector<int> acting = state.ActingSeats();
    ASSERT_EQ(state.IsSimultaneous(), acting.size() == 2);
    for (int seat : acting) {
      ASSERT_NO_FATAL_FAILURE(CheckPaymentOptions(state, seat, stats_));
    }
    ASSERT_NO_FATAL_FAILURE(
        CheckRanks(before_, state.StoppedOutcome(), /*final=*/false));
  }

  void AfterStep(const State& state, const v1::Result& result) override {
    ASSERT_NO_FATAL_FAILURE(CheckResult(before_, result.pyramid_shambo(),
                                        state.num_seats(), stats_));
  }

  void AtEnd(const State& state) override {
    const v1::PyramidShamboObservation end =
        state.PublicView().pyramid_shambo();
    ASSERT_NO_FATAL_FAILURE(CheckPosition(end));
    stats_.max_throws_in_game =
        std::max(stats_.max_throws_in_game, end.throws_made());
    const v1::Outcome outcome = state.Outcome();
    ASSERT_NO_FATAL_FAILURE(CheckRanks(end, outcome, /*final=*/true));
    if (outcome.termination() == v1::TERMINATION_MOVE_LIMIT) ++stats_.limited;
    ++stats_.games;
  }

 private:
  Stats& stats_;
  // The public view before the decision.
  v1::PyramidShamboObservation before_;
};

void PlayOneGame(int num_seats, uint32_t game_index, uint32_t max_throws,
                 Stats& stats) {
  v1::GameConfig config;
  config.set_game("pyramid_shambo");
  if (max_throws != 0) {
    config.mutable_pyramid_shambo()->set_max_throws(max_throws);
  }
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(shambo::Description(), config);
  ASSERT_TRUE(game.ok());
  absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewInitialState(
      num_seats, RandomStream(Seed(game_index, num_seats)));
  ASSERT_TRUE(state.ok());
  RandomStream chooser(Seed(game_index, 1000 + num_seats));
  ShamboChecks checks(stats);
  PlayRandomGame(**state, chooser, checks);
}

TEST(ShamboRandomTest, RandomGamesKeepInvariants) {
  Stats stats;
  // Under the sanitizers every kSanitizerStride-th game (tests/sanitizers.h).
  constexpr uint32_t kGamesPerSeatCount = 70;
  int games = 0;
  for (int seats = 2; seats <= 10; ++seats) {
    for (uint32_t game = 0; game < kGamesPerSeatCount;
         game += kSanitizerStride) {
      ASSERT_NO_FATAL_FAILURE(PlayOneGame(seats, game, 0, stats))
          << seats << " seats, game " << game;
      ++games;
    }
  }
  EXPECT_EQ(stats.games, games);
  // The rules' rarer paths all occurred.
  EXPECT_GT(stats.changes, 0);
  EXPECT_GT(stats.uninvolved_providers, 0);
  EXPECT_GT(stats.overpays, 0);
  EXPECT_GT(stats.pay_alls, 0);
  EXPECT_GT(stats.cascades, 0);
  EXPECT_GT(stats.self_eliminations, 0);
  EXPECT_EQ(stats.limited, 0);
  std::printf(
      "games %d steps %lld max options %llu changes %lld (uninvolved %lld) "
      "overpays %lld pay-alls %lld knockouts %lld cascades %lld cancelled "
      "%lld self %lld max throws %u\n",
      stats.games, static_cast<long long>(stats.steps),
      static_cast<unsigned long long>(stats.max_options),
      static_cast<long long>(stats.changes),
      static_cast<long long>(stats.uninvolved_providers),
      static_cast<long long>(stats.overpays),
      static_cast<long long>(stats.pay_alls),
      static_cast<long long>(stats.knockouts),
      static_cast<long long>(stats.cascades),
      static_cast<long long>(stats.cancelled),
      static_cast<long long>(stats.self_eliminations),
      stats.max_throws_in_game);
}

TEST(ShamboRandomTest, MoveLimitEndsAndRanksRandomGames) {
  Stats stats;
  for (int seats = 2; seats <= 10; ++seats) {
    for (uint32_t game = 0; game < 8; ++game) {
      const uint32_t max_throws = 1 + (game * 7 + seats) % 40;
      ASSERT_NO_FATAL_FAILURE(
          PlayOneGame(seats, 5000 + game, max_throws, stats))
          << seats << " seats, game " << game;
    }
  }
  EXPECT_GT(stats.limited, 50);
}

// How the seats of a match counted against the bound play.
enum class Policy {
  kRandom,  // Uniformly among the legal actions.
  // Every throw a tie (both throw Rock) until max_throws.
  kTies,
  // The richer seat of every throw loses it at once, paying the fee of one
  // pip: seats are seldom emptied, and every throw has its challenge and
  // (but the last) its fee, three moves a throw.
  kEveryThrowDecided,
};

// The action `policy` (not kRandom) gives `seat` in `state`.
v1::Action PolicyAction(const State& state, int seat, Policy policy) {
  const v1::PyramidShamboObservation view = state.PublicView().pyramid_shambo();
  switch (view.phase()) {
    case v1::SHAMBO_PHASE_CHALLENGE: {
      // The richest live seat is the target.
      int target = -1;
      for (int other = 0; other < view.seats_size(); ++other) {
        if (other == seat || !view.seats(other).live()) continue;
        if (target < 0 ||
            view.seats(other).pips() > view.seats(target).pips()) {
          target = other;
        }
      }
      return shambo::ChallengeAction(target);
    }
    case v1::SHAMBO_PHASE_THROW: {
      if (policy == Policy::kTies) return shambo::HandAction(v1::SHAMBO_ROCK);
      const int active = static_cast<int>(view.active());
      const int target = static_cast<int>(view.target());
      const int loser = view.seats(active).pips() >= view.seats(target).pips()
                            ? active
                            : target;
      return shambo::HandAction(seat == loser ? v1::SHAMBO_ROCK
                                              : v1::SHAMBO_PAPER);
    }
    default: {
      // The referee applies a single option without asking, and refuses
      // `canonical` for it.
      std::optional<v1::Action> sole = state.SoleLegalAction(seat);
      return sole.has_value() ? *std::move(sole) : shambo::CanonicalAction();
    }
  }
}

// Plays a match of `seats` seats under `config` to its end with `policy`;
// its moves.
uint64_t PlayCountingMoves(const v1::GameConfig& config, int seats,
                           uint32_t game_index, Policy policy) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(shambo::Description(), config);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return 0;
  absl::StatusOr<std::unique_ptr<State>> state = (*game)->NewInitialState(
      seats, RandomStream(Seed(game_index, 7000 + seats)));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return 0;
  MoveCount count;
  if (policy == Policy::kRandom) {
    RandomStream chooser(Seed(game_index, 8000 + seats));
    PlayRandomGame(**state, chooser, count);
    return count.moves;
  }
  while (!(*state)->IsTerminal() &&
         count.moves < uint64_t{game_testing::kMaxRandomSteps}) {
    std::vector<SeatAction> chosen;
    for (int seat : (*state)->ActingSeats()) {
      chosen.push_back({seat, PolicyAction(**state, seat, policy)});
    }
    const absl::StatusOr<v1::Result> result = (*state)->Apply(chosen);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) break;
    ++count.moves;
  }
  return count.moves;
}

// No match makes more moves than the game's bound (ExpectMovesWithinBound):
// every seat count, max_throws 1 to 50, random play, every throw tied,
// every throw decided at once (3 moves a throw: about the bound).
TEST(ShamboRandomTest, NoMatchMakesMoreMovesThanItsBound) {
  const MovesPerBound seen = ExpectMovesWithinBound(
      shambo::Description(), /*games=*/50,
      [](int game) {
        v1::GameConfig config;
        config.set_game("pyramid_shambo");
        config.mutable_pyramid_shambo()->set_max_throws(1 + game);
        return config;
      },
      [](const v1::GameConfig& config, int seats, int game) {
        std::vector<CountedMatch> matches;
        for (Policy policy :
             {Policy::kRandom, Policy::kTies, Policy::kEveryThrowDecided}) {
          matches.push_back(
              {PlayCountingMoves(config, seats, static_cast<uint32_t>(game),
                                 policy),
               absl::StrCat("policy ", static_cast<int>(policy))});
        }
        return matches;
      });
  ASSERT_FALSE(HasFailure());
  // Every throw decided comes close to it.
  EXPECT_GT(seen.most, 0.9);
}

}  // namespace
}  // namespace pyramid::shambo::testing

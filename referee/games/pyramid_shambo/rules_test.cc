// Scenario tests of Pyramid Shambo: one named test per rule or resolution of
// docs/rules/pyramid_shambo.md. Each builds its position, applies the
// moves through the public Apply (automatic moves as the referee applies
// them) and checks the holdings piece by piece.
//
// Piece names: colour letter + pips; r y g b k w o p c x are seats 0..9,
// so "y3" is seat 1's Large and "r1" seat 0's Small. Holdings are listed in
// (size, colour) order.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_shambo.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/pyramid_shambo/game.h"
#include "referee/games/pyramid_shambo/testing.h"

namespace pyramid::shambo::testing {
namespace {

TEST(ShamboTurnTest, ActivePlayerMustChallengeAnotherLiveSeat) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "", "b1 b2 b3"}, 0, {0, 0, 1, 0}));
  ASSERT_NE(state, nullptr);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  EXPECT_FALSE(state->IsSimultaneous());
  const std::vector<v1::Action> legal = state->LegalActions(0);
  ASSERT_EQ(legal.size(), 2u);
  EXPECT_EQ(legal[0].pyramid_shambo().challenge().target(), 1u);
  EXPECT_EQ(legal[1].pyramid_shambo().challenge().target(), 3u);
  const std::string before = Serialized(*state);
  for (int target : {0, 2, 4, 9}) {
    EXPECT_EQ(Act(*state, 0, Challenge(target)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << target;
  }
  EXPECT_EQ(Act(*state, 0, Hand(kRock)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(1, Challenge(3)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Serialized(*state), before);
  const v1::PyramidShamboResult result = Ok(Act(*state, 0, Challenge(3)));
  EXPECT_EQ(result.challenge().active(), 0u);
  EXPECT_EQ(result.challenge().target(), 3u);
  EXPECT_EQ(View(*state).phase(), v1::SHAMBO_PHASE_THROW);
  EXPECT_EQ(View(*state).target(), 3u);
}

TEST(ShamboTurnTest, OnlyPossibleTargetIsChallengedAutomatically) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "", "g1 g2 g3"}, 2, {0, 1, 0}));
  ASSERT_NE(state, nullptr);
  const std::optional<v1::Action> sole = state->SoleLegalAction(2);
  ASSERT_TRUE(sole.has_value());
  EXPECT_EQ(sole->pyramid_shambo().challenge().target(), 0u);
  const std::vector<v1::PyramidShamboResult> auto_moves = AutoMoves(*state);
  ASSERT_EQ(auto_moves.size(), 1u);
  EXPECT_EQ(auto_moves[0].challenge().target(), 0u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0, 2));
  EXPECT_TRUE(state->IsSimultaneous());
  // With several targets the choice is asked.
  std::unique_ptr<State> three =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  EXPECT_FALSE(three->SoleLegalAction(0).has_value());
}

TEST(ShamboThrowTest, RockPaperScissorsDecidesSimultaneously) {
  struct Case {
    v1::ShamboHand active, target;
    bool tie;
    int winner;
  };
  const std::vector<Case> cases = {
      {kRock, kRock, true, -1},         {kRock, kPaper, false, 1},
      {kRock, kScissors, false, 0},     {kPaper, kRock, false, 0},
      {kPaper, kPaper, true, -1},       {kPaper, kScissors, false, 1},
      {kScissors, kRock, false, 1},     {kScissors, kPaper, false, 0},
      {kScissors, kScissors, true, -1},
  };
  for (const Case& c : cases) {
    std::unique_ptr<State> state = StateAt(Pos({"r1 r2 r3", "y1 y2 y3"}, 0));
    AutoMoves(*state);  // The only target.
    ASSERT_THAT(state->ActingSeats(), ElementsAre(0, 1));
    ASSERT_TRUE(state->IsSimultaneous());
    EXPECT_EQ(state->LegalActions(0).size(), 3u);
    const v1::ShamboThrowResult t =
        Ok(Throw(*state, c.active, c.target)).throw_result();
    EXPECT_EQ(t.tie(), c.tie);
    EXPECT_EQ(t.active_hand(), c.active);
    EXPECT_EQ(t.target_hand(), c.target);
    if (!c.tie) {
      EXPECT_EQ(t.winner(), static_cast<uint32_t>(c.winner));
      EXPECT_EQ(t.loser(), static_cast<uint32_t>(1 - c.winner));
      EXPECT_EQ(t.fee(), 1u);
    } else {
      EXPECT_EQ(View(*state).phase(), v1::SHAMBO_PHASE_THROW);
    }
  }
}

TEST(ShamboThrowTest, TiesThrowAgainAndEscalateTheFee) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(2)).ok());
  v1::ShamboThrowResult t = Ok(Throw(*state, kRock, kRock)).throw_result();
  EXPECT_TRUE(t.tie());
  EXPECT_EQ(t.ties(), 0u);
  t = Ok(Throw(*state, kPaper, kPaper)).throw_result();
  EXPECT_TRUE(t.tie());
  EXPECT_EQ(t.ties(), 1u);
  EXPECT_EQ(View(*state).ties(), 2u);
  ASSERT_EQ(View(*state).tied_throws_size(), 2);
  EXPECT_EQ(View(*state).tied_throws(0).hand(), kRock);
  EXPECT_EQ(View(*state).tied_throws(1).hand(), kPaper);
  t = Ok(Throw(*state, kScissors, kPaper)).throw_result();
  EXPECT_FALSE(t.tie());
  EXPECT_EQ(t.ties(), 2u);
  EXPECT_EQ(t.winner(), 0u);
  EXPECT_EQ(t.loser(), 2u);
  EXPECT_EQ(t.fee(), 3u);
  EXPECT_FALSE(t.doubled());
  EXPECT_EQ(t.throw_number(), 3u);
  EXPECT_EQ(View(*state).payment().amount(), 3u);
  EXPECT_EQ(View(*state).throws_made(), 3u);
}

TEST(ShamboThrowTest, TiesStartAtZeroForEveryChallenge) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  // Fee 2: {y2} is y's only subset worth 2, so it is paid automatically.
  const v1::ShamboThrowResult t =
      Ok(Throw(*state, kPaper, kRock)).throw_result();
  EXPECT_EQ(t.fee(), 2u);
  AutoMoves(*state);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r2 y2 r3", "y1 y3", "g1 g2 g3"));
  ASSERT_EQ(View(*state).active(), 1u);
  ASSERT_TRUE(Act(*state, 1, Challenge(2)).ok());
  EXPECT_EQ(View(*state).ties(), 0u);
  const v1::ShamboThrowResult next =
      Ok(Throw(*state, kRock, kScissors)).throw_result();
  EXPECT_EQ(next.ties(), 0u);
  EXPECT_EQ(next.fee(), 1u);
}

TEST(ShamboThrowTest, DoubledFeeAfterTiesInAShowdown) {
  // Began with 3 seats; seat 2 is out, so exactly two are live.
  std::unique_ptr<State> state =
      StateAt(Pos({"r2 r3", "r1 y1 y2 y3", ""}, 0, {0, 0, 1}));
  AutoMoves(*state);  // Seat 1 is the only target.
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kScissors, kScissors).ok());
  const v1::ShamboThrowResult t =
      Ok(Throw(*state, kRock, kScissors)).throw_result();
  EXPECT_EQ(t.ties(), 2u);
  EXPECT_TRUE(t.doubled());
  EXPECT_EQ(t.fee(), 6u);  // (2 + 1) * 2.
  // Subsets worth 6: {y1 y2 y3} and {r1 y2 y3}; the active player decides.
  EXPECT_EQ(View(*state).payment().options(), 2u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  const v1::ShamboPaymentResult p =
      Ok(Act(*state, 0, Pay("r1 y2 y3"))).payment();
  EXPECT_EQ(p.paid(), 6u);
  EXPECT_THAT(HoldingNames(*state), ElementsAre("r1 r2 y2 r3 y3", "y1", ""));
}

TEST(ShamboThrowTest, TwoSeatGameNeverDoubles) {
  std::unique_ptr<State> state = StateAt(Pos({"r1 r2 r3", "y1 y2 y3"}, 1));
  AutoMoves(*state);
  ASSERT_TRUE(Throw(*state, kPaper, kPaper).ok());
  const v1::ShamboThrowResult t =
      Ok(Throw(*state, kPaper, kRock)).throw_result();
  EXPECT_FALSE(t.doubled());
  EXPECT_EQ(t.fee(), 2u);
  EXPECT_EQ(t.winner(), 1u);
}

TEST(ShamboThrowTest, NoThrowIsVisibleBeforeBothAreIn) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  const std::string before = Serialized(*state);
  // One throw alone is never applied (the referee waits for both).
  SeatAction one{0, Hand(kRock)};
  EXPECT_FALSE(state->Apply({&one, 1}).ok());
  EXPECT_EQ(Serialized(*state), before);
  // The views hold no trace of a pending throw, and are the same for all.
  for (int seat = 0; seat < 3; ++seat) {
    v1::Observation mine = state->ObservationFor(seat);
    EXPECT_FALSE(mine.public_view());
    EXPECT_EQ(mine.seat(), static_cast<uint32_t>(seat));
    mine.set_public_view(true);
    mine.clear_seat();
    EXPECT_EQ(mine.SerializeAsString(), before);
  }
  EXPECT_THAT(View(*state).tied_throws(), IsEmpty());
}

TEST(ShamboTurnTest, PlayGoesInSeatOrderSkippingEliminatedSeats) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "", "g1 g2 g3", "b1 b2 b3"}, 0, {0, 1, 0, 0}));
  ASSERT_TRUE(Act(*state, 0, Challenge(2)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_FALSE(moves.empty());
  EXPECT_TRUE(moves[0].payment().turn_over());
  EXPECT_EQ(moves[0].payment().next_active(), 2u);  // Seat 1 is out.
  EXPECT_EQ(View(*state).active(), 2u);
  ASSERT_TRUE(Act(*state, 2, Challenge(3)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  AutoMoves(*state);
  EXPECT_EQ(View(*state).active(), 3u);
  ASSERT_TRUE(Act(*state, 3, Challenge(0)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  ASSERT_TRUE(Act(*state, 3, Canonical()).ok());  // r pays r1 or g1.
  EXPECT_EQ(View(*state).active(), 0u);           // Wraps around.
}

// ---------------------------------------------------------------------------
// Payment.

TEST(ShamboPaymentTest, ExactPaymentDeciderPicksThePiecesAndColours) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 g1 y2 y3", "g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kPaper, kRock).ok());
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_EQ(view.phase(), v1::SHAMBO_PHASE_PAYMENT);
  EXPECT_EQ(view.payment().method(), v1::SHAMBO_EXACT);
  EXPECT_EQ(view.payment().payer(), 1u);
  EXPECT_EQ(view.payment().payee(), 0u);
  EXPECT_EQ(view.payment().amount(), 2u);
  EXPECT_EQ(view.payment().options(), 2u);  // {y2} and {y1 g1}.
  // D is the active player, not the payer.
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  EXPECT_EQ(state->ValidateAction(1, Pay("y2")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(state->LegalActions(0).size(), 3u);  // Two options + canonical.
  const v1::ShamboPaymentResult p = Ok(Act(*state, 0, Pay("y1 g1"))).payment();
  EXPECT_EQ(p.method(), v1::SHAMBO_EXACT);
  EXPECT_EQ(p.decider(), 0u);
  EXPECT_EQ(Names(p.payment().pay()), "y1 g1");
  EXPECT_FALSE(p.payment().has_exchange());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 y1 g1 r2 r3", "y2 y3", "g2 g3"));
  EXPECT_TRUE(p.turn_over());
  EXPECT_EQ(p.next_active(), 1u);
}

TEST(ShamboPaymentTest, ExactPaymentTakesNoExchangeAndTheExactSum) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 g1 y2 y3", "g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kPaper, kRock).ok());
  const std::string before = Serialized(*state);
  for (const v1::Action& bad :
       {Pay("y1 y2"), Pay("y3"), Pay("r1 y1"), Pay(""),
        Change(2, "y3", "g3", "y2"), Change(0, "y1", "r1", "y2")}) {
    EXPECT_EQ(state->ValidateAction(0, bad).code(),
              absl::StatusCode::kInvalidArgument)
        << bad.ShortDebugString();
    EXPECT_FALSE(Act(*state, 0, bad).ok());
  }
  // Lists must be in (size, colour) order: g1 before y1 is refused.
  v1::Action unsorted = Pay("y1 g1");
  unsorted.mutable_pyramid_shambo()
      ->mutable_payment()
      ->mutable_pay()
      ->SwapElements(0, 1);
  EXPECT_EQ(state->ValidateAction(0, unsorted).code(),
            absl::StatusCode::kInvalidArgument);
  v1::Action twice = Pay("y2");
  *twice.mutable_pyramid_shambo()->mutable_payment()->add_pay() =
      twice.pyramid_shambo().payment().pay(0);
  EXPECT_EQ(state->ValidateAction(0, twice).code(),
            absl::StatusCode::kInvalidArgument);
  v1::Action canonical_false = Canonical();
  canonical_false.mutable_pyramid_shambo()->set_canonical(false);
  EXPECT_EQ(state->ValidateAction(0, canonical_false).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Serialized(*state), before);
}

TEST(ShamboPaymentTest, ActiveLoserDecidesItsOwnPayment) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 g1 r2 r3", "y1 y2 y3", "g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kPaper).ok());
  EXPECT_EQ(View(*state).payment().payer(), 0u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  ASSERT_TRUE(Act(*state, 0, Pay("g1")).ok());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r2 r3", "y1 g1 y2 y3", "g2 g3"));
}

TEST(ShamboPaymentTest, PayAllWhenThePayerHoldsLessThanTheFee) {
  std::unique_ptr<State> state = StateAt(Pos({"r1 r2 r3 y3", "y1 y2"}, 0));
  AutoMoves(*state);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  EXPECT_EQ(View(*state).payment().amount(), 4u);
  EXPECT_EQ(View(*state).payment().method(), v1::SHAMBO_PAY_ALL);
  EXPECT_EQ(View(*state).payment().options(), 1u);
  const std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 1u);
  const v1::ShamboPaymentResult& p = moves[0].payment();
  EXPECT_EQ(p.method(), v1::SHAMBO_PAY_ALL);
  EXPECT_EQ(Names(p.payment().pay()), "y1 y2");
  EXPECT_EQ(p.paid(), 3u);
  EXPECT_THAT(Eliminations(p), ElementsAre("1:KO:1"));
  EXPECT_TRUE(p.game_over());
  // Yellow's colour left the game with seat 1, from seat 0 too.
  EXPECT_THAT(HoldingNames(*state), ElementsAre("r1 r2 r3", ""));
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(Ranks(state->Outcome()), ElementsAre(1, 2));
  EXPECT_THAT(Scores(state->Outcome()), ElementsAre(6, 0));
  EXPECT_EQ(state->Outcome().termination(), v1::TERMINATION_NORMAL);
}

TEST(ShamboPaymentTest, ChangeIsMadeByThePayeeWhenItCan) {
  // y holds no Small and owes 1. The payee (seat 0) can make change, so only
  // it may, though seat 2 could too.
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y2 y3", "y1 g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_EQ(view.payment().method(), v1::SHAMBO_CHANGE);
  EXPECT_THAT(view.payment().providers(), ElementsAre(0));
  EXPECT_EQ(view.payment().options(), 1u);
  EXPECT_EQ(state->ValidateAction(0, Change(2, "y2", "y1 g1", "y1")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, Canonical()).code(),
            absl::StatusCode::kInvalidArgument);  // Single option.
  const std::optional<v1::Action> sole = state->SoleLegalAction(0);
  ASSERT_TRUE(sole.has_value());
  EXPECT_EQ(sole->SerializeAsString(),
            Change(0, "y3", "r1 r2", "r1").SerializeAsString());
  const std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 1u);
  const v1::ShamboPaymentResult& p = moves[0].payment();
  EXPECT_EQ(p.payment().exchange().provider(), 0u);
  EXPECT_EQ(Names(p.payment().exchange().payer_gives()), "y3");
  EXPECT_EQ(Names(p.payment().exchange().provider_gives()), "r1 r2");
  EXPECT_EQ(Names(p.payment().pay()), "r1");
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r3 y3", "r2 y2", "y1 g1 g2 g3"));
}

// The position of the next tests: y (seat 1) owes 1 and holds no Small; the
// payee r holds no Small either, so it cannot make change; g and b can.
std::unique_ptr<State> UninvolvedChangePosition() {
  std::unique_ptr<State> state =
      StateAt(Pos({"r2 r3 b3", "y2 y3", "y1 g1 g2 g3", "r1 b1 b2"}, 0));
  EXPECT_TRUE(Act(*state, 0, Challenge(1)).ok());
  EXPECT_TRUE(Throw(*state, kRock, kScissors).ok());
  return state;
}

TEST(ShamboPaymentTest, ChangeMadeByAnUninvolvedSeatChosenByTheDecider) {
  std::unique_ptr<State> state = UninvolvedChangePosition();
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_EQ(view.payment().method(), v1::SHAMBO_CHANGE);
  EXPECT_THAT(view.payment().providers(), ElementsAre(2, 3));
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  // Neither the payee nor the payer may provide.
  EXPECT_EQ(state->ValidateAction(0, Change(0, "y2", "r2", "r1")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, Change(1, "y2", "y3", "y2")).code(),
            absl::StatusCode::kInvalidArgument);
  // D picks seat 3 and pays with a piece just received.
  const v1::ShamboPaymentResult p =
      Ok(Act(*state, 0, Change(3, "y2", "r1 b1", "b1"))).payment();
  EXPECT_EQ(p.method(), v1::SHAMBO_CHANGE);
  EXPECT_EQ(p.paid(), 1u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("b1 r2 r3 b3", "r1 y3", "y1 g1 g2 g3", "y2 b2"));
  EXPECT_TRUE(p.turn_over());
  EXPECT_EQ(p.next_active(), 1u);
}

TEST(ShamboPaymentTest, ChangeMustBeAnEqualValueExchangeThatAllowsExactPay) {
  std::unique_ptr<State> state = UninvolvedChangePosition();
  const std::string before = Serialized(*state);
  for (const v1::Action& bad : {
           Change(3, "y2", "b1", "b1"),        // 2 pips for 1.
           Change(3, "y3", "r1 b1", "r1"),     // 3 pips for 2.
           Change(3, "y2", "r1 b1", "r1 b1"),  // Pays 2, owes 1.
           Change(3, "y3", "b2", "y2"),        // 3 pips for 2.
           Change(3, "", "", "y2"),            // Empty exchange.
           Change(2, "y2", "g2", "g2"),        // No exact pay after it.
           Change(3, "y2", "g1 b1", "b1"),     // b does not hold g1.
           Pay("y2"),                          // An exchange is required.
       }) {
    EXPECT_EQ(state->ValidateAction(0, bad).code(),
              absl::StatusCode::kInvalidArgument)
        << bad.ShortDebugString();
  }
  EXPECT_EQ(Serialized(*state), before);
  EXPECT_TRUE(state->ValidateAction(0, Change(2, "y3", "g1 g2", "g1")).ok());
  EXPECT_FALSE(
      state->ValidateAction(0, Change(3, "y2 y3", "r1 b1 b3", "r1")).ok());
  EXPECT_FALSE(  // 5 pips for 4.
      state->ValidateAction(0, Change(3, "y2 y3", "r1 b1 b2", "b1")).ok());
  EXPECT_TRUE(state->ValidateAction(0, Change(3, "y3", "r1 b2", "r1")).ok());
}

TEST(ShamboPaymentTest, OverpaymentWhenNoSeatCanMakeChange) {
  // y owes 1 and holds y3 g3. Nobody can hand y a Small for an equal value:
  // r holds no Small; g's sets with a Small are worth 1, 2, 4 or 5; b's 1
  // or 2; y can only give 3 or 6.
  std::unique_ptr<State> state =
      StateAt(Pos({"r2 y2 g2 b2 r3", "y3 g3", "r1 g1 b3", "y1 b1"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kPaper, kRock).ok());
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_EQ(view.payment().method(), v1::SHAMBO_OVERPAY);
  EXPECT_THAT(view.payment().providers(), IsEmpty());
  EXPECT_EQ(view.payment().options(), 2u);  // {y3} or {g3}.
  EXPECT_EQ(state->ValidateAction(0, Pay("y3 g3")).code(),
            absl::StatusCode::kInvalidArgument);  // Not minimal.
  EXPECT_EQ(state->ValidateAction(0, Change(2, "y3", "r1 b3", "r1")).code(),
            absl::StatusCode::kInvalidArgument);
  const v1::ShamboPaymentResult p = Ok(Act(*state, 0, Pay("g3"))).payment();
  EXPECT_EQ(p.method(), v1::SHAMBO_OVERPAY);
  EXPECT_EQ(p.amount(), 1u);
  EXPECT_EQ(p.paid(), 3u);  // The overpayment stands.
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r2 y2 g2 b2 r3 g3", "y3", "r1 g1 b3", "y1 b1"));
}

TEST(ShamboPaymentTest, CanonicalAppliesTheLeastOptionUnderTheKey) {
  std::unique_ptr<State> state = UninvolvedChangePosition();
  // Every option moves 4 pieces at least; the least pay is r1, reached
  // only through b; of those, b's exchange for y2 (a Medium) beats the one
  // for y3.
  const v1::ShamboPaymentResult p = Ok(Act(*state, 0, Canonical())).payment();
  EXPECT_TRUE(p.canonical());
  EXPECT_EQ(p.payment().SerializeAsString(), Change(3, "y2", "r1 b1", "r1")
                                                 .pyramid_shambo()
                                                 .payment()
                                                 .SerializeAsString());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r2 r3 b3", "b1 y3", "y1 g1 g2 g3", "y2 b2"));
}

TEST(ShamboPaymentTest, ASingleOptionIsAppliedWithoutAsking) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  EXPECT_EQ(View(*state).payment().options(), 1u);
  const std::vector<v1::Action> legal = state->LegalActions(0);
  ASSERT_EQ(legal.size(), 1u);
  EXPECT_EQ(legal[0].SerializeAsString(), Pay("y1").SerializeAsString());
  EXPECT_EQ(state->DefaultAction(0).SerializeAsString(),
            Pay("y1").SerializeAsString());
  ASSERT_TRUE(state->SoleLegalAction(0).has_value());
  const std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_FALSE(moves[0].payment().canonical());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 y1 r2 r3", "y2 y3", "g1 g2 g3"));
  EXPECT_THAT(state->ActingSeats(), ElementsAre(1));  // Next turn, asked.
}

TEST(ShamboPaymentTest, HugePaymentsAreNotListedButStillDecided) {
  // The uninvolved-change position with the listing limit lowered to 3.
  TestPosition position =
      Pos({"r2 r3 b3", "y2 y3", "y1 g1 g2 g3", "r1 b1 b2"}, 0);
  position.max_listed_options = 3;
  std::unique_ptr<State> state = StateAt(position);
  EXPECT_TRUE(state->ListsLegalActions());
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  ASSERT_GT(View(*state).payment().options(), 3u);
  EXPECT_FALSE(state->ListsLegalActions());
  EXPECT_THAT(state->LegalActions(0), IsEmpty());
  EXPECT_FALSE(state->SoleLegalAction(0).has_value());
  EXPECT_TRUE(state->DefaultAction(0).pyramid_shambo().canonical());
  EXPECT_TRUE(state->ValidateAction(0, Change(3, "y2", "r1 b1", "b1")).ok());
  EXPECT_FALSE(state->ValidateAction(0, Change(0, "y2", "r2", "r1")).ok());
  const v1::ShamboPaymentResult p = Ok(Act(*state, 0, Canonical())).payment();
  EXPECT_EQ(Names(p.payment().pay()), "r1");
  EXPECT_TRUE(state->ListsLegalActions());
}

// ---------------------------------------------------------------------------
// Elimination, Knock-Out bonus, cascades.

TEST(ShamboEliminationTest, KnockOutRemovesTheLosersColourFromEveryHolder) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3 y3", "y1", "y2 g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 2u);  // The fee, then g's forced bonus.
  const v1::ShamboPaymentResult& fee = moves[0];
  EXPECT_EQ(fee.kind(), v1::SHAMBO_FEE);
  EXPECT_THAT(Eliminations(fee), ElementsAre("1:KO:1"));
  EXPECT_THAT(Removed(fee.eliminations(0)),
              ElementsAre("0:y1", "2:y2", "0:y3"));
  EXPECT_THAT(fee.bonus_due(), ElementsAre(2));
  EXPECT_FALSE(fee.turn_over());
  const v1::ShamboPaymentResult& bonus = moves[1];
  EXPECT_EQ(bonus.kind(), v1::SHAMBO_BONUS);
  EXPECT_EQ(bonus.payer(), 2u);
  EXPECT_EQ(bonus.payee(), 0u);
  EXPECT_EQ(bonus.amount(), 1u);
  EXPECT_TRUE(bonus.turn_over());
  EXPECT_EQ(bonus.next_active(), 2u);
  EXPECT_THAT(HoldingNames(*state), ElementsAre("r1 g1 r2 r3", "", "g2 g3"));
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_FALSE(view.seats(1).live());
  EXPECT_EQ(view.seats(1).elimination_group(), 1u);
}

TEST(ShamboEliminationTest, CascadeRepeatsUntilStableAndPaysNoBonus) {
  // y is knocked out; its colour empties g (round 1), g's empties b
  // (round 2), b's leaves r with its own trio. Only k pays r the bonus.
  std::unique_ptr<State> state = StateAt(
      Pos({"r1 r2 r3 b1 b2 b3", "y2", "y1 y3", "g1 g2 g3", "k1 k2 k3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());  // Fee 2: y pays y2.
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 2u);
  const v1::ShamboPaymentResult& fee = moves[0];
  EXPECT_THAT(Eliminations(fee),
              ElementsAre("1:KO:1", "2:cascade:2", "3:cascade:2"));
  EXPECT_THAT(Removed(fee.eliminations(0)),
              ElementsAre("2:y1", "0:y2", "2:y3"));
  EXPECT_THAT(Removed(fee.eliminations(1)),
              ElementsAre("3:g1", "3:g2", "3:g3"));
  EXPECT_THAT(Removed(fee.eliminations(2)),
              ElementsAre("0:b1", "0:b2", "0:b3"));
  EXPECT_THAT(fee.bonus_due(), ElementsAre(4));
  EXPECT_EQ(moves[1].payer(), 4u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 k1 r2 r3", "", "", "", "k2 k3"));
  EXPECT_EQ(moves[1].next_active(), 4u);
  // g and b (one cascade) share a rank; the knocked-out y ranks below them.
  EXPECT_THAT(Ranks(state->StoppedOutcome()), ElementsAre(1, 5, 3, 3, 2));
}

TEST(ShamboEliminationTest, KnockOutBonusIsPaidInSeatOrderAfterTheWinner) {
  // g (seat 2) knocks y out; r and b pay g one pip each, b first (seat
  // order starting after the winner, wrapping), decided by the active g.
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 g1 r2 r3", "y1", "g2 g3", "b1 y2 b2 y3 b3"}, 2));
  ASSERT_TRUE(Act(*state, 2, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kPaper, kRock).ok());
  std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 2u);  // The fee and b's forced bonus.
  EXPECT_THAT(moves[0].payment().bonus_due(), ElementsAre(3, 0));
  EXPECT_EQ(moves[1].payment().payer(), 3u);
  EXPECT_EQ(Names(moves[1].payment().payment().pay()), "b1");
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 g1 r2 r3", "", "b1 g2 g3", "b2 b3"));
  // r has two options (r1 or g1): asked of the active player g.
  const v1::PyramidShamboObservation view = View(*state);
  EXPECT_EQ(view.payment().kind(), v1::SHAMBO_BONUS);
  EXPECT_EQ(view.payment().payer(), 0u);
  EXPECT_EQ(view.payment().payee(), 2u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(2));
  const v1::ShamboPaymentResult p = Ok(Act(*state, 2, Pay("g1"))).payment();
  EXPECT_TRUE(p.turn_over());
  EXPECT_EQ(p.next_active(), 3u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r2 r3", "", "g1 b1 g2 g3", "b2 b3"));
}

TEST(ShamboEliminationTest, BonusIsNeverDoubled) {
  // After the knock-out exactly two seats are live; the bonus is still 1.
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1", "g1 y2 g2 y3 g3", ""}, 0, {0, 0, 0, 1}));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  const v1::ShamboThrowResult t =
      Ok(Throw(*state, kRock, kScissors)).throw_result();
  EXPECT_FALSE(t.doubled());  // Three live at the throw.
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[1].kind(), v1::SHAMBO_BONUS);
  EXPECT_EQ(moves[1].amount(), 1u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 g1 r2 r3", "", "g2 g3", ""));
}

TEST(ShamboEliminationTest, BonusPayerEmptiedByPayingIsEliminatedAtOnce) {
  // y is knocked out (its colour empties w: a cascade); g then pays its last
  // piece and is eliminated before the next bonus payment: its colour
  // empties b (same cascade), whose colour leaves k with its own trio. b is
  // skipped; k pays.
  std::unique_ptr<State> state = StateAt(Pos(
      {"r1 r2 r3", "y1", "g1", "g2 g3", "y2 b1 b2 b3 k1 k2 k3 w1 w2 w3", "y3"},
      0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kScissors, kPaper).ok());
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 3u);
  const v1::ShamboPaymentResult& fee = moves[0];
  EXPECT_THAT(Eliminations(fee), ElementsAre("1:KO:1", "5:cascade:2"));
  EXPECT_THAT(fee.bonus_due(), ElementsAre(2, 3, 4));
  const v1::ShamboPaymentResult& g_pays = moves[1];
  EXPECT_EQ(g_pays.payer(), 2u);
  EXPECT_THAT(Eliminations(g_pays), ElementsAre("2:cascade:3", "3:cascade:3"));
  EXPECT_THAT(Removed(g_pays.eliminations(0)),
              ElementsAre("0:g1", "3:g2", "3:g3"));
  const v1::ShamboPaymentResult& k_pays = moves[2];
  EXPECT_EQ(k_pays.payer(), 4u);  // b was skipped.
  EXPECT_EQ(Names(k_pays.payment().pay()), "k1");
  EXPECT_TRUE(k_pays.turn_over());
  EXPECT_EQ(k_pays.next_active(), 4u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 k1 r2 r3", "", "", "", "k2 k3", ""));
  // Ranks: r, k live; g and b (group 3) share 3rd; w (group 2) 5th; y last.
  EXPECT_THAT(Ranks(state->StoppedOutcome()), ElementsAre(1, 6, 3, 3, 2, 5));
}

TEST(ShamboEliminationTest, CascadeThatRemovesTheWinnerCancelsTheBonus) {
  // r wins y's last piece, but y's colour removal empties r, whose colour
  // removal leaves g its own trio. No bonus is paid; next turn is g's.
  std::unique_ptr<State> state =
      StateAt(Pos({"y2 y3", "y1", "r1 r2 r3 g1 g2 g3", "b1 b2 b3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 1u);
  const v1::ShamboPaymentResult& fee = moves[0];
  EXPECT_THAT(Eliminations(fee), ElementsAre("1:KO:1", "0:cascade:2"));
  EXPECT_THAT(Removed(fee.eliminations(1)),
              ElementsAre("2:r1", "2:r2", "2:r3"));
  EXPECT_TRUE(fee.bonus_cancelled());
  EXPECT_THAT(fee.bonus_due(), IsEmpty());
  EXPECT_TRUE(fee.turn_over());
  EXPECT_EQ(fee.next_active(), 2u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("", "", "g1 g2 g3", "b1 b2 b3"));
  EXPECT_THAT(Ranks(state->StoppedOutcome()), ElementsAre(3, 4, 1, 1));
}

TEST(ShamboEliminationTest, WinnerEmptiedDuringTheBonusCancelsTheRest) {
  // g's bonus payment (k1) is made; b then pays its last piece: b's cascade
  // empties k and then the winner r. The bonus payments not yet made (w's)
  // are cancelled; those made stand.
  std::unique_ptr<State> state = StateAt(Pos(
      {"k2 k3", "y1", "k1 r2 g2 r3 g3 y2 y3", "b1", "b2 b3", "r1 g1 w1 w2 w3"},
      0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 3u);  // Fee, g's bonus, b's bonus: all forced.
  EXPECT_THAT(moves[0].bonus_due(), ElementsAre(2, 3, 4, 5));
  EXPECT_EQ(Names(moves[1].payment().pay()), "k1");
  const v1::ShamboPaymentResult& b_pays = moves[2];
  EXPECT_EQ(b_pays.payer(), 3u);
  EXPECT_THAT(Eliminations(b_pays),
              ElementsAre("3:cascade:2", "4:cascade:2", "0:cascade:2"));
  EXPECT_TRUE(b_pays.bonus_cancelled());
  EXPECT_TRUE(b_pays.turn_over());
  EXPECT_EQ(b_pays.next_active(), 2u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("", "", "g2 g3", "", "", "g1 w1 w2 w3"));
  EXPECT_THAT(Ranks(state->StoppedOutcome()), ElementsAre(3, 6, 2, 3, 3, 1));
}

// ---------------------------------------------------------------------------
// Self elimination.

TEST(ShamboSelfEliminationTest, WinnerBecomesTheActingActivePlayer) {
  // y (active) challenges r and is knocked out: r decides the bonus
  // payments; the next turn goes to the seat after y.
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1", "g1 b1 g2 g3", "y2 y3 b2 b3"}, 1));
  ASSERT_TRUE(Act(*state, 1, Challenge(0)).ok());
  ASSERT_TRUE(Throw(*state, kScissors, kRock).ok());
  std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].payment().decider(), 1u);  // The fee: y decided.
  EXPECT_THAT(Eliminations(moves[0].payment()), ElementsAre("1:KO:1"));
  EXPECT_THAT(moves[0].payment().bonus_due(), ElementsAre(2, 3));
  // g pays first: g1 or b1, decided by r.
  EXPECT_EQ(View(*state).decider(), 0u);
  EXPECT_EQ(View(*state).active(), 1u);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  v1::ShamboPaymentResult p = Ok(Act(*state, 0, Pay("b1"))).payment();
  EXPECT_EQ(p.decider(), 0u);
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 b1 r2 r3", "", "g1 g2 g3", "b2 b3"));
  // b owes 1 with no Small: r (the payee) makes change; r decides it.
  EXPECT_EQ(View(*state).payment().method(), v1::SHAMBO_CHANGE);
  EXPECT_THAT(state->ActingSeats(), ElementsAre(0));
  p = Ok(Act(*state, 0, Canonical())).payment();
  EXPECT_EQ(p.payment().SerializeAsString(), Change(0, "b2", "r1 b1", "r1")
                                                 .pyramid_shambo()
                                                 .payment()
                                                 .SerializeAsString());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 r2 b2 r3", "", "g1 g2 g3", "b1 b3"));
  EXPECT_TRUE(p.turn_over());
  EXPECT_EQ(p.next_active(), 2u);  // The first live seat after y.
  EXPECT_EQ(View(*state).decider(), 2u);
}

// ---------------------------------------------------------------------------
// End and outcome.

TEST(ShamboOutcomeTest, LastLiveSeatWinsAndKnockedOutRanksBelowItsCascade) {
  // Same as the cascade that removes the winner, with 3 seats: g is left.
  std::unique_ptr<State> state =
      StateAt(Pos({"y2 y3", "y1", "r1 r2 r3 g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kPaper, kRock).ok());
  const std::vector<v1::PyramidShamboResult> moves = AutoMoves(*state);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_TRUE(moves[0].payment().game_over());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_TRUE(state->ActingSeats().empty());
  EXPECT_EQ(View(*state).phase(), v1::SHAMBO_PHASE_OVER);
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_THAT(Ranks(outcome), ElementsAre(2, 3, 1));
  EXPECT_THAT(Scores(outcome), ElementsAre(0, 0, 6));
}

TEST(ShamboOutcomeTest, SeatsEmptiedByOneCascadeShareARank) {
  // y is knocked out; its colour empties g, g's empties b: r is left.
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3 b1 b2 b3", "y2", "y1 y3", "g1 g2 g3"}, 0));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());
  const std::vector<v1::ShamboPaymentResult> moves =
      Payments(AutoMoves(*state));
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_THAT(Eliminations(moves[0]),
              ElementsAre("1:KO:1", "2:cascade:2", "3:cascade:2"));
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(HoldingNames(*state), ElementsAre("r1 r2 r3", "", "", ""));
  EXPECT_THAT(Ranks(state->Outcome()), ElementsAre(1, 4, 2, 2));
  EXPECT_THAT(Scores(state->Outcome()), ElementsAre(6, 0, 0, 0));
}

TEST(ShamboOutcomeTest, MoveLimitEndsTheGameRightAfterTheThrowThatReachesIt) {
  // Throws 10 (a tie, which counts) and 11 reach max_throws = 11: no fee.
  TestPosition position =
      Pos({"r1 y1 g1 r2 r3", "y2 y3", "g2 g3", ""}, 0, {0, 0, 0, 1});
  position.throws_made = 9;
  std::unique_ptr<State> state = StateAt(position, Config(/*max_throws=*/11));
  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  v1::ShamboThrowResult t = Ok(Throw(*state, kRock, kRock)).throw_result();
  EXPECT_FALSE(t.limit_reached());
  t = Ok(Throw(*state, kRock, kScissors)).throw_result();
  EXPECT_EQ(t.throw_number(), 11u);
  EXPECT_TRUE(t.limit_reached());
  EXPECT_EQ(t.fee(), 0u);
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(HoldingNames(*state),
              ElementsAre("r1 y1 g1 r2 r3", "y2 y3", "g2 g3", ""));
  const v1::Outcome outcome = state->Outcome();
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_MOVE_LIMIT);
  // Live seats by pips (8, 5, 5: a shared rank), above the eliminated seat.
  EXPECT_THAT(Ranks(outcome), ElementsAre(1, 2, 2, 4));
  EXPECT_THAT(Scores(outcome), ElementsAre(8, 5, 5, 0));
}

TEST(ShamboOutcomeTest, MoveLimitCountsTies) {
  TestPosition position = Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0);
  std::unique_ptr<State> state = StateAt(position, Config(/*max_throws=*/1));
  ASSERT_TRUE(Act(*state, 0, Challenge(2)).ok());
  const v1::ShamboThrowResult t =
      Ok(Throw(*state, kPaper, kPaper)).throw_result();
  EXPECT_TRUE(t.tie());
  EXPECT_TRUE(t.limit_reached());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(Ranks(state->Outcome()), ElementsAre(1, 1, 1));
}

TEST(ShamboOutcomeTest, StoppedOutcomeRanksAsTheMoveLimitWould) {
  std::unique_ptr<State> state = UninvolvedChangePosition();
  // Mid-payment: r 8, y 5, g 7, b 4 pips.
  const v1::Outcome stopped = state->StoppedOutcome();
  EXPECT_EQ(stopped.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_THAT(Ranks(stopped), ElementsAre(1, 3, 2, 4));
  EXPECT_THAT(Scores(stopped), ElementsAre(8, 5, 7, 4));
  // Eliminated seats rank below every live one, a later group higher.
  std::unique_ptr<State> out = StateAt(
      Pos({"r1 r2 r3 k2 k3", "", "g1 g2 g3", "", "k1"}, 0, {0, 2, 0, 1, 0}));
  EXPECT_THAT(Ranks(out->StoppedOutcome()), ElementsAre(1, 4, 2, 5, 3));
}

// ---------------------------------------------------------------------------
// Default actions.

TEST(ShamboDefaultTest, ChallengeNextLiveSeatThrowRockPayCanonical) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r2 r3 b3", "", "g1 g2 g3", "r1 b1 b2"}, 3, {0, 1, 0, 0}));
  // Seat 3's next live seat wraps to 0.
  EXPECT_EQ(state->DefaultAction(3).pyramid_shambo().challenge().target(), 0u);
  EXPECT_EQ(state->DefaultAction(0).kind_case(), v1::Action::KIND_NOT_SET);
  std::unique_ptr<State> other =
      StateAt(Pos({"r2 r3 b3", "", "g1 g2 g3", "r1 b1 b2"}, 0, {0, 1, 0, 0}));
  EXPECT_EQ(other->DefaultAction(0).pyramid_shambo().challenge().target(), 2u);
  ASSERT_TRUE(Act(*other, 0, Challenge(3)).ok());
  EXPECT_EQ(other->DefaultAction(0).pyramid_shambo().hand(), kRock);
  EXPECT_EQ(other->DefaultAction(3).pyramid_shambo().hand(), kRock);
  ASSERT_TRUE(Throw(*other, kRock, kPaper).ok());  // b wins; r owes 1.
  ASSERT_GE(View(*other).payment().options(), 2u);
  EXPECT_TRUE(other->DefaultAction(0).pyramid_shambo().canonical());
}

TEST(ShamboDefaultTest, AGamePlayedByDefaultActionsEnds) {
  v1::GameConfig config;
  config.mutable_pyramid_shambo()->set_max_throws(300);
  std::unique_ptr<Game> game = GameOf(config);
  for (int seats = 2; seats <= 10; ++seats) {
    std::unique_ptr<State> state =
        Ok(game->NewInitialState(seats, RandomStream(Seed(seats))));
    int steps = 0;
    while (!state->IsTerminal() && steps < 10000) {
      std::vector<SeatAction> actions;
      for (int seat : state->ActingSeats()) {
        actions.push_back({seat, state->DefaultAction(seat)});
      }
      ASSERT_TRUE(state->Apply(actions).ok());
      ++steps;
    }
    ASSERT_TRUE(state->IsTerminal()) << seats;
    // Both throwing Rock always ties: the move limit ends it.
    EXPECT_EQ(state->Outcome().termination(), v1::TERMINATION_MOVE_LIMIT);
    EXPECT_EQ(View(*state).throws_made(), 300u);
  }
}

// ---------------------------------------------------------------------------
// Untrusted input.

TEST(ShamboValidationTest, IllegalActionsLeaveTheStateUnchanged) {
  std::unique_ptr<State> state =
      StateAt(Pos({"r1 r2 r3", "y1 y2 y3", "g1 g2 g3"}, 0));
  std::string before = Serialized(*state);
  v1::Action other_game;
  other_game.mutable_rock_paper_pyramid();
  EXPECT_EQ(state->ValidateAction(0, other_game).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, v1::Action()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, Pay("r1")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(2, Challenge(1)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(Act(*state, 2, Challenge(1)).ok());
  EXPECT_EQ(Serialized(*state), before);

  ASSERT_TRUE(Act(*state, 0, Challenge(1)).ok());
  before = Serialized(*state);
  EXPECT_EQ(state->ValidateAction(0, Hand(v1::SHAMBO_HAND_UNSPECIFIED)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      state->ValidateAction(0, Hand(static_cast<v1::ShamboHand>(7))).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(0, Challenge(2)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(state->ValidateAction(2, Hand(kRock)).code(),
            absl::StatusCode::kFailedPrecondition);
  std::vector<SeatAction> bad = {{0, Hand(kRock)},
                                 {1, Hand(v1::SHAMBO_HAND_UNSPECIFIED)}};
  EXPECT_FALSE(state->Apply(bad).ok());
  std::vector<SeatAction> wrong_seat = {{0, Hand(kRock)}, {2, Hand(kRock)}};
  EXPECT_EQ(state->Apply(wrong_seat).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Serialized(*state), before);

  ASSERT_TRUE(Throw(*state, kRock, kRock).ok());
  ASSERT_TRUE(Throw(*state, kRock, kScissors).ok());  // y owes 2 (y2).
  before = Serialized(*state);
  EXPECT_EQ(state->ValidateAction(0, Hand(kRock)).code(),
            absl::StatusCode::kInvalidArgument);
  v1::Action bad_colour = Pay("y2");
  bad_colour.mutable_pyramid_shambo()
      ->mutable_payment()
      ->mutable_pay(0)
      ->set_colour(static_cast<v1::ShamboColour>(11));
  EXPECT_EQ(state->ValidateAction(0, bad_colour).code(),
            absl::StatusCode::kInvalidArgument);
  v1::Action no_seat = Change(7, "y3", "g1 g2", "g1");
  EXPECT_EQ(state->ValidateAction(0, no_seat).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Serialized(*state), before);
}

}  // namespace
}  // namespace pyramid::shambo::testing

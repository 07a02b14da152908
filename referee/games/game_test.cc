// The helpers every game shares: SortByBytes puts actions in the order
// LegalActions promises, on the heap and on an arena; OutcomeByKeys ranks.
#include "referee/games/game.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "google/protobuf/arena.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

v1::Action Hand(v1::ShamboHand hand) {
  v1::Action action;
  action.mutable_pyramid_shambo()->set_hand(hand);
  return action;
}

std::vector<std::string> BytesOf(
    const google::protobuf::RepeatedPtrField<v1::Action>& actions) {
  std::vector<std::string> bytes;
  for (const v1::Action& action : actions) {
    bytes.push_back(DeterministicBytes(action));
  }
  return bytes;
}

void AddHands(google::protobuf::RepeatedPtrField<v1::Action>& actions) {
  for (v1::ShamboHand hand : {v1::SHAMBO_SCISSORS, v1::SHAMBO_ROCK,
                              v1::SHAMBO_PAPER, v1::SHAMBO_ROCK}) {
    *actions.Add() = Hand(hand);
  }
}

TEST(SortByBytesTest, OrdersByBytesAndKeepsRepeatsUnlessUnique) {
  google::protobuf::RepeatedPtrField<v1::Action> kept;
  AddHands(kept);
  SortByBytes(kept, /*unique=*/false);
  const std::vector<std::string> all = BytesOf(kept);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_EQ(kept[0].pyramid_shambo().hand(), v1::SHAMBO_ROCK);
  EXPECT_EQ(kept[1].pyramid_shambo().hand(), v1::SHAMBO_ROCK);

  google::protobuf::RepeatedPtrField<v1::Action> unique;
  AddHands(unique);
  SortByBytes(unique, /*unique=*/true);
  const std::vector<std::string> once = BytesOf(unique);
  ASSERT_EQ(once.size(), 3u);
  EXPECT_TRUE(
      std::adjacent_find(once.begin(), once.end(),
                         [](const std::string& a, const std::string& b) {
                           return !(a < b);
                         }) == once.end());
  EXPECT_EQ(once, std::vector<std::string>({all[0], all[2], all[3]}));
}

TEST(SortByBytesTest, SortsActionsOnAnArena) {
  google::protobuf::Arena arena;
  google::protobuf::RepeatedPtrField<v1::Action> actions(&arena);
  AddHands(actions);
  SortByBytes(actions, /*unique=*/true);
  ASSERT_EQ(actions.size(), 3);
  for (const v1::Action& action : actions) {
    EXPECT_EQ(action.GetArena(), &arena);
  }
  const std::vector<std::string> bytes = BytesOf(actions);
  EXPECT_TRUE(std::is_sorted(bytes.begin(), bytes.end()));
}

TEST(OutcomeTest, KeysRankAndScoresScore) {
  // Seat 2 was eliminated after seat 1: live seats first, by score.
  const v1::Outcome outcome = OutcomeByKeys(
      {-5, kEliminatedRankKey - 1, kEliminatedRankKey - 2, -5, -9},
      {5, 0, 0, 5, 9}, v1::TERMINATION_NORMAL);
  EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
  std::vector<uint32_t> ranks;
  std::vector<int32_t> scores;
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    ranks.push_back(seat.rank());
    scores.push_back(seat.score());
  }
  EXPECT_EQ(ranks, std::vector<uint32_t>({2, 5, 4, 2, 1}));
  EXPECT_EQ(scores, std::vector<int32_t>({5, 0, 0, 5, 9}));

  const v1::Outcome by_score =
      OutcomeByScore({5, 0, 0, 5, 9}, v1::TERMINATION_MOVE_LIMIT);
  EXPECT_EQ(by_score.termination(), v1::TERMINATION_MOVE_LIMIT);
  EXPECT_EQ(by_score.seats(2).rank(), 4u);
  EXPECT_EQ(by_score.seats(4).rank(), 1u);
}

}  // namespace
}  // namespace pyramid

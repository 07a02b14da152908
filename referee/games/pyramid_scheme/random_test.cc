// Pyramid Scheme: random self-play. Plays seeded games for 2, 3 and 4
// seats, picking uniformly among the legal actions, and checks at every
// step the rules page's invariants (all 64 Victims, 18 Police and 20 tokens
// accounted for; every pyramid obeys the placement rules; hand limits hold;
// the decision's seat acts) and hidden information (every observation shows
// its own hand, other hands only by size, the deck's top card only, never
// an unused goal; the public view no hand at all). The State contract
// (sorted legal actions, defaults, refused actions leave the state
// unchanged, clones) is tests/conformance_test.cc's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/pyramid_scheme.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/pyramid_scheme/game.h"
#include "referee/games/pyramid_scheme/testing.h"

namespace pyramid::scheme::testing {
namespace {

// What the whole run saw, to show the random games reach every rule.
struct Coverage {
  std::map<std::string, int> events;
  std::map<int, int> rewards;  // PssReward -> resolved (not lost) count.
  std::map<int, int> claimed_goals;
  std::map<int, int> end_reasons;
  std::map<int, int> phases;
  int games = 0;
  int steps = 0;
};

// Card ids visible to everyone on the board.
std::vector<int> PublicCards(const v1::PssBoard& board) {
  std::vector<int> cards;
  for (const v1::PssDisplaySlot& slot : board.display()) {
    if (slot.has_card()) cards.push_back(slot.card().id());
  }
  if (board.has_deck_top()) cards.push_back(board.deck_top().id());
  for (const v1::PssCard& card : board.discard()) cards.push_back(card.id());
  for (const v1::PssSeatView& seat : board.seats()) {
    for (const v1::PssNode& node : seat.pyramid()) {
      cards.push_back(node.card().id());
    }
  }
  return cards;
}

// The rules page's invariants and the observations' redaction, from the
// observations alone (`public_view` is the state's). `bypassed` holds the
// Victims placed with a bypass. Sets `hands` to every seat's hand.
void CheckPosition(const State& state, const v1::Observation& public_view,
                   const std::set<int>& bypassed,
                   std::vector<std::vector<int>>& hands) {
  const int seats = state.num_seats();
  ASSERT_TRUE(public_view.public_view());
  const v1::PyramidSchemeObservation& pub = public_view.pyramid_scheme();
  const v1::PssBoard& board = pub.board();
  ASSERT_EQ(board.seats_size(), seats);
  EXPECT_TRUE(pub.hand().empty());

  // Hidden information: a seat's observation is the public view plus its
  // own hand; other hands only by size.
  hands.assign(seats, {});
  const std::string public_bytes = DeterministicBytes(public_view);
  for (int seat = 0; seat < seats; ++seat) {
    v1::Observation mine = state.ObservationFor(seat);
    hands[seat] = HandIds(mine.pyramid_scheme());
    EXPECT_EQ(hands[seat].size(), board.seats(seat).hand_size());
    EXPECT_TRUE(std::is_sorted(hands[seat].begin(), hands[seat].end()));
    mine.mutable_pyramid_scheme()->clear_hand();
    mine.set_public_view(true);
    mine.clear_seat();
    EXPECT_EQ(DeterministicBytes(mine), public_bytes) << "seat " << seat;
  }
  // Exactly the goals in play, never the unused ones.
  EXPECT_EQ(board.goals_size(), 6);
  std::set<int> goal_ids;
  for (const v1::PssGoalView& goal : board.goals())
    goal_ids.insert(goal.goal());
  EXPECT_EQ(goal_ids.size(), 6u);

  // All 64 Victims accounted for, each once.
  std::vector<int> seen = PublicCards(board);
  std::vector<int> victims;
  for (int card : seen) {
    if (card < 64) victims.push_back(card);
  }
  for (const std::vector<int>& hand : hands) {
    for (int card : hand) {
      victims.push_back(card);
      // No hand card is visible publicly.
      EXPECT_EQ(std::count(seen.begin(), seen.end(), card), 0) << card;
    }
  }
  std::sort(victims.begin(), victims.end());
  EXPECT_TRUE(std::adjacent_find(victims.begin(), victims.end()) ==
              victims.end());
  const int below_top =
      static_cast<int>(board.deck_size()) - (board.has_deck_top() ? 1 : 0);
  EXPECT_EQ(static_cast<int>(victims.size()) + below_top +
                static_cast<int>(board.out_of_game()),
            64);
  EXPECT_EQ(board.deck_size() > 0, board.has_deck_top());

  // 18 Police and 20 tokens.
  int police = 0;
  std::set<int> police_ids;
  int reset = static_cast<int>(board.supply().reset_tokens());
  int bypass = static_cast<int>(board.supply().bypass_tokens());
  std::array<int, 4> capacity = {0, 0, 0, 0};
  capacity[2] = static_cast<int>(board.supply().capacity_2_tokens());
  capacity[3] = static_cast<int>(board.supply().capacity_3_tokens());
  for (int seat = 0; seat < seats; ++seat) {
    const v1::PssSeatView& view = board.seats(seat);
    reset += static_cast<int>(view.reset_tokens());
    bypass += static_cast<int>(view.bypass_tokens());
    // Hand limits hold.
    EXPECT_LE(view.hand_size(), view.hand_limit());
    if (!view.live()) {
      EXPECT_TRUE(view.pyramid().empty());
      EXPECT_EQ(view.hand_size(), 0u);
      EXPECT_GT(view.eliminated_order(), 0u);
      continue;
    }
    // Placement rules in every pyramid.
    ASSERT_FALSE(view.pyramid().empty());
    EXPECT_EQ(view.pyramid(0).kind(), v1::PSS_FOUNDER);
    EXPECT_FALSE(view.pyramid(0).has_parent());
    std::map<int, const v1::PssNode*> by_card;
    std::map<int, int> child_sum;
    std::map<int, int> children;
    int flipped = 0;
    for (int i = 0; i < view.pyramid_size(); ++i) {
      const v1::PssNode& node = view.pyramid(i);
      const int card = static_cast<int>(node.card().id());
      flipped += node.flipped() ? 1 : 0;
      int limit = static_cast<int>(node.card().number());
      for (uint32_t token : node.capacity_tokens()) {
        ASSERT_TRUE(token == 2 || token == 3);
        ++capacity[token];
        limit += static_cast<int>(token);
      }
      EXPECT_EQ(static_cast<int>(node.limit()), limit);
      if (node.kind() == v1::PSS_POLICE) {
        ++police;
        EXPECT_TRUE(police_ids.insert(card).second);
        EXPECT_EQ(node.card().number(), 3u);
        if (!node.flipped()) {
          EXPECT_TRUE(node.capacity_tokens().empty());
        }
      }
      if (i > 0) {
        ASSERT_TRUE(node.has_parent());
        auto parent = by_card.find(static_cast<int>(node.parent()));
        ASSERT_NE(parent, by_card.end()) << "parent placed later";
        // Rule 3: nothing below an unflipped Police.
        EXPECT_FALSE(parent->second->kind() == v1::PSS_POLICE &&
                     !parent->second->flipped());
        child_sum[node.parent()] += static_cast<int>(node.card().number());
        ++children[node.parent()];
        // Rule 2, unless a bypass was spent on this card.
        if (node.kind() == v1::PSS_VICTIM && !bypassed.count(card)) {
          for (const v1::PssNode* up = parent->second; up != nullptr;) {
            EXPECT_FALSE(up->kind() == v1::PSS_VICTIM && !up->flipped() &&
                         up->card().colour() == node.card().colour())
                << "card " << card << " below " << up->card().id();
            up = up->has_parent() ? by_card[up->parent()] : nullptr;
          }
        }
      }
      by_card[card] = &node;
    }
    // Rule 1.
    for (const auto& [parent, sum] : child_sum) {
      EXPECT_LE(sum, static_cast<int>(by_card[parent]->limit()));
    }
    EXPECT_EQ(static_cast<int>(view.smart_asses()), flipped);
  }
  EXPECT_EQ(police + static_cast<int>(board.supply().police()), 18);
  EXPECT_EQ(reset, 10);
  EXPECT_EQ(bypass, 4);
  EXPECT_EQ(capacity[2], 3);
  EXPECT_EQ(capacity[3], 3);
}

// Every card a result names was public before or after it, or was in the
// acting seat's own hand (placed or discarded by it).
void CheckResultLeaksNothing(const v1::PyramidSchemeResult& result,
                             const std::vector<int>& public_before,
                             const std::vector<int>& public_after,
                             const std::vector<int>& hand_before) {
  auto known = [&](int card) {
    return std::count(public_before.begin(), public_before.end(), card) ||
           std::count(public_after.begin(), public_after.end(), card) ||
           std::count(hand_before.begin(), hand_before.end(), card);
  };
  for (const v1::PssEvent& event : result.events()) {
    std::vector<int> cards;
    if (event.has_took()) cards.push_back(event.took().card().id());
    if (event.has_slot_filled()) {
      cards.push_back(event.slot_filled().card().id());
    }
    if (event.has_placed()) cards.push_back(event.placed().card().id());
    if (event.has_discarded()) {
      for (const v1::PssCard& card : event.discarded().cards()) {
        cards.push_back(card.id());
      }
    }
    for (int card : cards) {
      EXPECT_TRUE(known(card)) << "event names hidden card " << card;
    }
  }
}

// The rules page's invariants and the redaction of every observation before
// each decision (CheckPosition), what each result names, the outcome's
// ranks, and what the run saw.
class SchemeChecks : public RandomGameChecks {
 public:
  explicit SchemeChecks(Coverage& coverage) : coverage_(coverage) {}

  void BeforeStep(const State& state) override {
    ++coverage_.steps;
    const std::vector<int> acting = state.ActingSeats();
    ASSERT_EQ(acting.size(), 1u);
    seat_ = acting[0];
    const v1::Observation view = state.PublicView();
    const v1::PyramidSchemeObservation& pub = view.pyramid_scheme();
    ASSERT_EQ(pub.decision().seat(), static_cast<uint32_t>(seat_));
    ASSERT_TRUE(pub.board().seats(seat_).live());
    ++coverage_.phases[pub.decision().phase()];
    CheckPosition(state, view, bypassed_, hands_);
    public_before_ = PublicCards(pub.board());
  }

  void AfterStep(const State& state, const v1::Result& result) override {
    const v1::PyramidSchemeResult& own = result.pyramid_scheme();
    CheckResultLeaksNothing(
        own, public_before_,
        PublicCards(state.PublicView().pyramid_scheme().board()),
        hands_[seat_]);
    for (const std::string& kind : EventKinds(own)) {
      ++coverage_.events[kind];
    }
    for (const v1::PssEvent& event : own.events()) {
      if (event.has_placed() && event.placed().bypass_used()) {
        bypassed_.insert(event.placed().card().id());
      }
      if (event.has_reward() && !event.reward().lost()) {
        ++coverage_.rewards[event.reward().reward()];
      }
      if (event.has_goal_claimed()) {
        ++coverage_.claimed_goals[event.goal_claimed().goal()];
      }
      if (event.has_game_ended()) {
        ++coverage_.end_reasons[event.game_ended().reason()];
      }
    }
  }

  void AtEnd(const State& state) override {
    const v1::Observation view = state.PublicView();
    CheckPosition(state, view, bypassed_, hands_);
    // The outcome ranks live seats by smart-asses above eliminated ones.
    const v1::Outcome outcome = state.Outcome();
    const v1::PssBoard& board = view.pyramid_scheme().board();
    std::vector<int64_t> keys;
    for (int seat = 0; seat < state.num_seats(); ++seat) {
      const v1::PssSeatView& seat_view = board.seats(seat);
      const int score =
          seat_view.live() ? static_cast<int>(seat_view.smart_asses()) : 0;
      EXPECT_EQ(outcome.seats(seat).score(), score);
      keys.push_back(seat_view.live()
                         ? -int64_t{score}
                         : 1000 - int64_t{seat_view.eliminated_order()});
    }
    EXPECT_THAT(Ranks(outcome),
                ::testing::ElementsAreArray(CompetitionRanks(keys)));
  }

 private:
  Coverage& coverage_;
  // The Victims placed with a bypass.
  std::set<int> bypassed_;
  // Before the decision: its seat, every seat's hand, the public cards.
  int seat_ = 0;
  std::vector<std::vector<int>> hands_;
  std::vector<int> public_before_;
};

void PlayOneGame(int seats, int seed, Coverage& coverage) {
  SCOPED_TRACE(::testing::Message() << seats << " seats, seed " << seed);
  Digest game_seed = Seed(0);
  game_seed[0] = static_cast<uint8_t>(seed & 0xff);
  game_seed[1] = static_cast<uint8_t>(seed >> 8);
  game_seed[31] = static_cast<uint8_t>(seats);
  std::unique_ptr<State> state = NewGame(seats, game_seed);
  ASSERT_NE(state, nullptr);
  Digest choice_seed = game_seed;
  choice_seed[2] ^= 0x5a;  // The players' stream differs from the game's.
  RandomStream rng(choice_seed);
  ++coverage.games;
  SchemeChecks checks(coverage);
  PlayRandomGame(*state, rng, checks);
}

std::string Summary(const Coverage& coverage) {
  std::string summary = absl::StrCat(coverage.games, " games, ", coverage.steps,
                                     " decisions; ends:");
  for (const auto& [reason, count] : coverage.end_reasons) {
    absl::StrAppend(
        &summary, " ",
        v1::PssEndReason_Name(static_cast<v1::PssEndReason>(reason)), "=",
        count);
  }
  absl::StrAppend(&summary, "; rewards resolved:");
  for (const auto& [reward, count] : coverage.rewards) {
    absl::StrAppend(&summary, " ",
                    v1::PssReward_Name(static_cast<v1::PssReward>(reward)), "=",
                    count);
  }
  absl::StrAppend(&summary, "; goals claimed:");
  for (const auto& [goal, count] : coverage.claimed_goals) {
    absl::StrAppend(&summary, " ", goal, "x", count);
  }
  absl::StrAppend(&summary, "; events:");
  for (const auto& [kind, count] : coverage.events) {
    absl::StrAppend(&summary, " ", kind, "=", count);
  }
  return summary;
}

void PlayMany(int games_per_seat_count, int first_seed, Coverage& coverage) {
  for (int seats = 2; seats <= 4; ++seats) {
    for (int i = 0; i < games_per_seat_count; ++i) {
      PlayOneGame(seats, first_seed + i, coverage);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Item 2 of the acceptance list on its own: every observation and result
// of full random games (CheckPosition's first half and
// CheckResultLeaksNothing run at every step).
TEST(PssHiddenInfoTest, EveryObservationOfRandomGamesIsRedacted) {
  Coverage coverage;
  PlayMany(5, 500, coverage);
  EXPECT_EQ(coverage.games, 15);
}

TEST(PssRandomTest, RandomGamesKeepInvariants) {
  Coverage coverage;
  PlayMany(30, 0, coverage);
  // The random games reach reshuffles, eliminations, goals, Police and the
  // common rewards (the rare ones have their scenario tests).
  for (const char* kind :
       {"reshuffled", "eliminated", "police_placed", "goal_claimed", "flipped",
        "token_used", "capacity_placed", "hand_limit_raised"}) {
    EXPECT_GT(coverage.events[kind], 0) << kind;
  }
  for (v1::PssReward reward :
       {v1::PSS_FLIP_OTHER, v1::PSS_TAKE_RESET, v1::PSS_TAKE_BYPASS}) {
    EXPECT_GT(coverage.rewards[reward], 0) << v1::PssReward_Name(reward);
  }
  RecordProperty("coverage", Summary(coverage));
}

// How eager a seat is to make a move of `action`'s kind: tokens used
// whenever held, every flip the window offers before its stop, a
// placement (which opens a window) before a take.
int Eagerness(const v1::Action& action) {
  switch (action.pyramid_scheme().decision_case()) {
    case v1::PyramidSchemeAction::kUseReset:
    case v1::PyramidSchemeAction::kArmBypass:
      return 3;
    case v1::PyramidSchemeAction::kFlip:
    case v1::PyramidSchemeAction::kPlace:
      return 2;
    case v1::PyramidSchemeAction::kStopFlipping:
    case v1::PyramidSchemeAction::kEndTurn:
      return 0;
    default:
      return 1;
  }
}

// Plays a match of `seats` seats under `config` to its end, its seats
// choosing uniformly among their legal actions (`eager`: among the most
// eager, Eagerness); its moves.
uint64_t PlayCountingMoves(const v1::GameConfig& config, int seats, int game,
                           bool eager) {
  Digest game_seed = Seed(0);
  game_seed[0] = static_cast<uint8_t>(game & 0xff);
  game_seed[1] = static_cast<uint8_t>(game >> 8);
  game_seed[2] = 0xb0;
  game_seed[31] = static_cast<uint8_t>(seats);
  std::unique_ptr<State> state = NewGame(seats, game_seed, config);
  if (state == nullptr) return 0;
  Digest choice_seed = game_seed;
  choice_seed[3] ^= 0x5a;
  RandomStream chooser(choice_seed);
  MoveCount count;
  if (!eager) {
    PlayRandomGame(*state, chooser, count);
    return count.moves;
  }
  while (!state->IsTerminal() && count.moves < uint64_t{kMaxRandomSteps}) {
    const int seat = state->ActingSeats().front();
    std::vector<v1::Action> most;
    int eagerness = -1;
    for (v1::Action& action : state->LegalActions(seat)) {
      const int e = Eagerness(action);
      if (e > eagerness) {
        most.clear();
        eagerness = e;
      }
      if (e == eagerness) most.push_back(std::move(action));
    }
    SeatAction chosen{seat, most.empty() ? state->DefaultAction(seat)
                                         : most[chooser.Uniform(most.size())]};
    const absl::StatusOr<v1::Result> result = state->Apply({&chosen, 1});
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) break;
    ++count.moves;
  }
  return count.moves;
}

// No match makes more moves than the game's bound (ExpectMovesWithinBound):
// every seat count, max_turns 1 to 200, random play and play eager for moves
// (Eagerness).
TEST(PssRandomTest, NoMatchMakesMoreMovesThanItsBound) {
  ExpectMovesWithinBound(
      Description(), /*games=*/40,
      [](int game) { return Config(1 + (game * 37) % 200); },
      [](const v1::GameConfig& config, int seats, int game) {
        std::vector<CountedMatch> matches;
        for (bool eager : {false, true}) {
          matches.push_back({PlayCountingMoves(config, seats, game, eager),
                             eager ? "eager" : "random"});
        }
        return matches;
      });
}

}  // namespace
}  // namespace pyramid::scheme::testing

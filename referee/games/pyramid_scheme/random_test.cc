// Pyramid Scheme: random self-play. Plays seeded games for 2, 3 and 4
// seats, picking uniformly among the legal actions, and checks at every
// step the rules page's invariants (all 64 Victims, 18 Police and 20 tokens
// accounted for; every pyramid obeys the placement rules; hand limits hold),
// the State contract (acting seat, sorted legal actions, defaults, refused
// actions leave the state unchanged) and hidden information (every
// observation shows its own hand, other hands only by size, the deck's top
// card only, never an unused goal; the public view no hand at all).
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

// A few random, mostly malformed, candidate actions.
v1::Action RandomCandidate(RandomStream& rng) {
  v1::PyramidSchemeAction a;
  const int card = static_cast<int>(rng.Uniform(86));
  const int other = static_cast<int>(rng.Uniform(86));
  switch (rng.Uniform(11)) {
    case 0:
      a.mutable_take()->set_slot(rng.Uniform(4));
      break;
    case 1:
      a.mutable_place()->set_card(card);
      a.mutable_place()->set_parent(other);
      break;
    case 2:
      a.mutable_use_reset();
      break;
    case 3:
      a.mutable_arm_bypass();
      break;
    case 4:
      a.mutable_flip()->set_card(card);
      break;
    case 5:
      a.mutable_stop_flipping();
      break;
    case 6:
      a.mutable_reward_target()->set_card(card);
      break;
    case 7:
      a.mutable_discard_hand()->add_cards(card);
      if (rng.Uniform(2)) a.mutable_discard_hand()->add_cards(other);
      break;
    case 8:
      a.mutable_reserve_goal()->set_goal(rng.Uniform(19));
      break;
    case 9:
      a.mutable_place_police()->set_parent(card);
      break;
    default:
      a.mutable_end_turn();
      break;
  }
  v1::Action action;
  *action.mutable_pyramid_scheme() = a;
  return action;
}

void PlayRandomGame(int seats, int seed, bool full_checks, Coverage& coverage) {
  SCOPED_TRACE(::testing::Message() << seats << " seats, seed " << seed);
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), v1::GameConfig());
  ASSERT_TRUE(game.ok());
  Digest game_seed = Seed(0);
  game_seed[0] = static_cast<uint8_t>(seed & 0xff);
  game_seed[1] = static_cast<uint8_t>(seed >> 8);
  game_seed[31] = static_cast<uint8_t>(seats);
  absl::StatusOr<std::unique_ptr<State>> made =
      (*game)->NewInitialState(seats, RandomStream(game_seed));
  ASSERT_TRUE(made.ok());
  std::unique_ptr<State> state = *std::move(made);
  Digest choice_seed = game_seed;
  choice_seed[2] ^= 0x5a;  // The players' stream differs from the game's.
  RandomStream rng(choice_seed);
  std::set<int> bypassed;
  ++coverage.games;
  v1::Observation view = state->PublicView();
  std::vector<std::vector<int>> hands;
  for (int step = 0; !state->IsTerminal(); ++step) {
    ASSERT_LT(step, 200000) << "game does not end";
    ++coverage.steps;
    const std::vector<int> acting = state->ActingSeats();
    ASSERT_EQ(acting.size(), 1u);
    ASSERT_FALSE(state->IsSimultaneous());
    const int seat = acting[0];
    const v1::PyramidSchemeObservation& pub = view.pyramid_scheme();
    ASSERT_EQ(pub.decision().seat(), static_cast<uint32_t>(seat));
    ASSERT_TRUE(pub.board().seats(seat).live());
    ++coverage.phases[pub.decision().phase()];
    const std::vector<v1::Action> legal = state->LegalActions(seat);
    ASSERT_FALSE(legal.empty());
    if (full_checks) {
      CheckPosition(*state, view, bypassed, hands);
      std::vector<std::string> bytes;
      for (const v1::Action& action : legal) {
        bytes.push_back(DeterministicBytes(action));
        ASSERT_TRUE(state->ValidateAction(seat, action).ok())
            << action.ShortDebugString();
      }
      for (size_t i = 1; i < bytes.size(); ++i) {
        ASSERT_LT(bytes[i - 1], bytes[i]);
      }
      const std::string default_bytes =
          DeterministicBytes(state->DefaultAction(seat));
      EXPECT_TRUE(
          std::binary_search(bytes.begin(), bytes.end(), default_bytes));
      for (int other = 0; other < seats; ++other) {
        if (other == seat) continue;
        EXPECT_TRUE(state->LegalActions(other).empty());
      }
      // Candidates: valid iff listed; a refused one changes nothing.
      bool compared = false;
      for (int i = 0; i < 3; ++i) {
        const v1::Action candidate = RandomCandidate(rng);
        const bool listed = std::binary_search(bytes.begin(), bytes.end(),
                                               DeterministicBytes(candidate));
        const absl::Status status = state->ValidateAction(seat, candidate);
        EXPECT_EQ(status.ok(), listed) << candidate.ShortDebugString();
        if (status.ok()) continue;
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
        EXPECT_FALSE(Act(*state, seat, candidate).ok());
        if (compared) continue;
        compared = true;
        EXPECT_EQ(DeterministicBytes(state->PublicView()),
                  DeterministicBytes(view));
      }
    }
    const v1::Action& chosen = legal[rng.Uniform(legal.size())];
    const std::vector<int> public_before = PublicCards(pub.board());
    std::unique_ptr<State> clone = full_checks ? state->Clone() : nullptr;
    absl::StatusOr<v1::PyramidSchemeResult> result = Act(*state, seat, chosen);
    ASSERT_TRUE(result.ok()) << result.status();
    v1::Observation next = state->PublicView();
    if (full_checks) {
      // A clone replays to the same result and position.
      absl::StatusOr<v1::PyramidSchemeResult> again = Act(*clone, seat, chosen);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(DeterministicBytes(*again), DeterministicBytes(*result));
      EXPECT_EQ(DeterministicBytes(clone->PublicView()),
                DeterministicBytes(next));
      CheckResultLeaksNothing(*result, public_before,
                              PublicCards(next.pyramid_scheme().board()),
                              hands[seat]);
    }
    view = std::move(next);
    for (const std::string& kind : EventKinds(*result)) {
      ++coverage.events[kind];
    }
    for (const v1::PssEvent& event : result->events()) {
      if (event.has_placed() && event.placed().bypass_used()) {
        bypassed.insert(event.placed().card().id());
      }
      if (event.has_reward() && !event.reward().lost()) {
        ++coverage.rewards[event.reward().reward()];
      }
      if (event.has_goal_claimed()) {
        ++coverage.claimed_goals[event.goal_claimed().goal()];
      }
      if (event.has_game_ended()) {
        ++coverage.end_reasons[event.game_ended().reason()];
      }
    }
  }
  if (full_checks) CheckPosition(*state, view, bypassed, hands);
  EXPECT_TRUE(state->ActingSeats().empty());
  // The outcome ranks live seats by smart-asses above eliminated ones.
  const v1::Outcome outcome = state->Outcome();
  const v1::PssBoard& board = view.pyramid_scheme().board();
  std::vector<int64_t> keys;
  for (int seat = 0; seat < seats; ++seat) {
    const v1::PssSeatView& view = board.seats(seat);
    const int score = view.live() ? static_cast<int>(view.smart_asses()) : 0;
    EXPECT_EQ(outcome.seats(seat).score(), score);
    keys.push_back(view.live() ? -int64_t{score}
                               : 1000 - int64_t{view.eliminated_order()});
  }
  EXPECT_THAT(Ranks(outcome),
              ::testing::ElementsAreArray(CompetitionRanks(keys)));
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
      PlayRandomGame(seats, first_seed + i,
                     /*full_checks=*/true, coverage);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Item 2 of the acceptance list on its own: every observation and result
// of full random games (CheckPosition's first half and
// CheckResultLeaksNothing run at every step).
TEST(PssHiddenInformationTest, EveryObservationOfRandomGamesIsRedacted) {
  Coverage coverage;
  PlayMany(5, 500, coverage);
  EXPECT_EQ(coverage.games, 15);
}

TEST(PssRandomTest, RandomGamesKeepEveryInvariant) {
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

}  // namespace
}  // namespace pyramid::scheme::testing

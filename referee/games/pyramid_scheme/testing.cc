#include "referee/games/pyramid_scheme/testing.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "referee/games/pyramid_scheme/state.h"

namespace pyramid::scheme::testing {

v1::Action Take(int slot) { return TakeAction(slot); }

v1::Action Place(int card, int parent) { return PlaceAction(card, parent); }

v1::Action UseReset() { return UseResetAction(); }

v1::Action ArmBypass() { return ArmBypassAction(); }

v1::Action Flip(int card) { return FlipAction(card); }

v1::Action Stop() { return StopFlippingAction(); }

// Every reward but RESERVE_GOAL targets a card.
v1::Action Target(int card) { return TargetAction(v1::PSS_NO_REWARD, card); }

v1::Action DiscardHand(std::initializer_list<int> cards) {
  // A mask with every position set: all of `cards` (at most 32), in order.
  return DiscardAction(std::vector<int>(cards), ~uint32_t{0});
}

v1::Action Reserve(int goal) {
  return TargetAction(v1::PSS_RESERVE_GOAL, goal);
}

v1::Action PlacePolice(int parent) { return PlacePoliceAction(parent); }

v1::Action EndTurn() { return EndTurnAction(); }

TestPosition BasePosition(int seats) {
  TestPosition position;
  position.seats.resize(seats);
  position.display = {V(kGreen, 4), V(kBlue, 4), V(kPink, 4)};
  position.deck = {V(kYellow, 4), V(kGreen, 2), V(kBlue, 2), V(kPink, 2)};
  return position;
}

std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config, uint8_t seed) {
  absl::StatusOr<std::unique_ptr<State>> state =
      scheme::NewStateForTesting(config, position, RandomStream(Seed(seed)));
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

absl::StatusOr<v1::PyramidSchemeResult> Act(State& state, int seat,
                                            const v1::Action& action) {
  return GamePart(ActAlone(state, seat, action), &v1::Result::pyramid_scheme);
}

v1::PyramidSchemeObservation View(const State& state, int seat) {
  return seat < 0 ? state.PublicView().pyramid_scheme()
                  : state.ObservationFor(seat).pyramid_scheme();
}

const v1::PssNode* FindNode(const v1::PyramidSchemeObservation& obs, int seat,
                            int card) {
  for (const v1::PssNode& node : obs.board().seats(seat).pyramid()) {
    if (static_cast<int>(node.card().id()) == card) return &node;
  }
  return nullptr;
}

std::vector<int> HandIds(const v1::PyramidSchemeObservation& obs) {
  std::vector<int> ids;
  for (const v1::PssCard& card : obs.hand()) ids.push_back(card.id());
  return ids;
}

std::vector<int> DisplayIds(const v1::PyramidSchemeObservation& obs) {
  std::vector<int> ids;
  for (const v1::PssDisplaySlot& slot : obs.board().display()) {
    ids.push_back(slot.has_card() ? static_cast<int>(slot.card().id()) : -1);
  }
  return ids;
}

std::vector<int> DiscardIds(const v1::PyramidSchemeObservation& obs) {
  std::vector<int> ids;
  for (const v1::PssCard& card : obs.board().discard())
    ids.push_back(card.id());
  return ids;
}

std::vector<std::string> EventKinds(const v1::PyramidSchemeResult& result) {
  std::vector<std::string> kinds;
  const google::protobuf::OneofDescriptor* oneof =
      v1::PssEvent::descriptor()->FindOneofByName("kind");
  for (const v1::PssEvent& event : result.events()) {
    const google::protobuf::FieldDescriptor* field =
        event.GetReflection()->GetOneofFieldDescriptor(event, oneof);
    kinds.push_back(field == nullptr ? "?" : field->name());
  }
  return kinds;
}

std::vector<std::string> Claims(const v1::PyramidSchemeResult& result) {
  std::vector<std::string> claims;
  for (const v1::PssEvent& event : result.events()) {
    if (!event.has_goal_claimed()) continue;
    claims.push_back(absl::StrCat(event.goal_claimed().goal(), "@",
                                  event.goal_claimed().seat()));
  }
  return claims;
}

std::vector<std::string> PolicePlacements(
    const v1::PyramidSchemeResult& result) {
  std::vector<std::string> placements;
  for (const v1::PssEvent& event : result.events()) {
    if (!event.has_police_placed()) continue;
    const v1::PssPolicePlaced& p = event.police_placed();
    placements.push_back(
        absl::StrCat(p.seat(), ":", p.police(), ">", p.parent()));
  }
  return placements;
}

v1::GameConfig Config(int max_turns) {
  v1::GameConfig config;
  config.set_game("pyramid_scheme");
  if (max_turns != 0) {
    config.mutable_pyramid_scheme()->set_max_turns(
        static_cast<uint32_t>(max_turns));
  }
  return config;
}

std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config) {
  return game_testing::NewGame(config, seats, seed);
}

}  // namespace pyramid::scheme::testing

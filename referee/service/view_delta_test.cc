#include "referee/service/view_delta.h"

#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"

namespace pyramid {
namespace {

struct Case {
  const char* name;
  const char* game;
  int seats;
};

const Case kCases[] = {
    {"RockPaperPyramid", "rock_paper_pyramid", 3},
    {"PyramidShambo", "pyramid_shambo", 4},
    {"FlamingPyramids", "flaming_pyramids", 3},
    {"PyramidScheme", "pyramid_scheme", 4},
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ViewDeltaTest : public ::testing::TestWithParam<Case> {};

// Random games of every game: after every move, the delta from the view
// before applied to the view a watcher holds gives, byte for byte, the
// view after; and the deltas of a whole game weigh less than its views.
TEST_P(ViewDeltaTest, ApplyingEachDeltaGivesTheNextView) {
  v1::GameConfig config;
  config.set_game(GetParam().game);
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config);
  ASSERT_TRUE(game.ok()) << game.status();
  for (int g = 0; g < 5; ++g) {
    SCOPED_TRACE(absl::StrCat("game ", g));
    const std::string tag = absl::StrCat(GetParam().name, "/", g);
    absl::StatusOr<std::unique_ptr<State>> initial =
        (*game)->NewInitialState(GetParam().seats, RandomStream(Sha256(tag)));
    ASSERT_TRUE(initial.ok()) << initial.status();
    std::unique_ptr<State> state = *std::move(initial);
    RandomStream rng(Sha256(absl::StrCat("player ", tag)));
    v1::Observation held;  // A watcher that joined before the seed.
    v1::Observation before;
    size_t view_bytes = 0;
    size_t delta_bytes = 0;
    for (int step = 0; step < 3000; ++step) {
      const v1::Observation after = state->PublicView();
      const v1::ViewDelta delta = DiffViews(before, after, step);
      ASSERT_TRUE(ApplyViewDelta(delta, &held).ok());
      ASSERT_EQ(held.SerializeAsString(), after.SerializeAsString())
          << "step " << step << "\ndelta " << delta.ShortDebugString();
      view_bytes += after.ByteSizeLong();
      delta_bytes += delta.ByteSizeLong();
      if (state->IsTerminal()) break;
      std::vector<SeatAction> chosen;
      for (int seat : state->ActingSeats()) {
        const std::vector<v1::Action> legal = state->LegalActions(seat);
        chosen.push_back({seat, legal.empty()
                                    ? state->DefaultAction(seat)
                                    : legal[rng.Uniform(legal.size())]});
      }
      ASSERT_TRUE(state->Apply(chosen).ok());
      before = after;
    }
    ASSERT_TRUE(state->IsTerminal());
    EXPECT_LT(delta_bytes, view_bytes);
    if (g == 0) {
      std::cout << GetParam().name << ": " << delta_bytes
                << " bytes of deltas for " << view_bytes
                << " bytes of whole views\n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Games, ViewDeltaTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

v1::Observation Rpp(const std::string& text) {
  v1::Observation o;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &o));
  return o;
}

// Each kind of change, as the proto describes it.
TEST(ViewDeltaRulesTest, UnchangedFieldsAreLeftOutAndGrowthIsAppended) {
  const v1::Observation before = Rpp(R"pb(
    public_view: true
    rock_paper_pyramid {
      rounds_played: 1
      total_rounds: 9
      history { round: 1 }
    })pb");
  const v1::Observation after = Rpp(R"pb(
    public_view: true
    rock_paper_pyramid {
      rounds_played: 2
      total_rounds: 9
      history { round: 1 }
      history { round: 2 }
    })pb");
  const v1::ViewDelta delta = DiffViews(before, after, 7);
  EXPECT_EQ(delta.decision_id(), 7u);
  EXPECT_EQ(delta.changed().rock_paper_pyramid().ShortDebugString(),
            "rounds_played: 2 history { round: 2 }");
  ASSERT_EQ(delta.appended_size(), 1);
  EXPECT_EQ(delta.appended(0), 4u);  // history
  EXPECT_EQ(delta.cleared_size(), 0);
}

TEST(ViewDeltaRulesTest, RewrittenFieldsAreSentWholeAndEmptiedOnesCleared) {
  const v1::Observation before = Rpp(R"pb(
    public_view: true
    rock_paper_pyramid {
      rounds_played: 2
      history { round: 1 }
      history { round: 2 }
    })pb");
  const v1::Observation after = Rpp(R"pb(
    public_view: true
    rock_paper_pyramid { history { round: 5 } })pb");
  const v1::ViewDelta delta = DiffViews(before, after, 0);
  EXPECT_EQ(delta.changed().rock_paper_pyramid().ShortDebugString(),
            "history { round: 5 }");
  EXPECT_EQ(delta.appended_size(), 0);
  ASSERT_EQ(delta.cleared_size(), 1);
  EXPECT_EQ(delta.cleared(0), 1u);  // rounds_played
  v1::Observation held = before;
  ASSERT_TRUE(ApplyViewDelta(delta, &held).ok());
  EXPECT_EQ(held.SerializeAsString(), after.SerializeAsString());
}

TEST(ViewDeltaRulesTest, BadDeltasAreRefused) {
  v1::Observation held;
  v1::ViewDelta none;
  EXPECT_FALSE(ApplyViewDelta(none, &held).ok());
  v1::ViewDelta unknown;
  unknown.mutable_changed()->mutable_rock_paper_pyramid();
  unknown.add_cleared(999);
  EXPECT_FALSE(ApplyViewDelta(unknown, &held).ok());
  v1::ViewDelta singular;
  singular.mutable_changed()->mutable_rock_paper_pyramid();
  singular.add_appended(1);  // rounds_played is not repeated.
  EXPECT_FALSE(ApplyViewDelta(singular, &held).ok());
}

}  // namespace
}  // namespace pyramid

// Fuzz target: every game's action decoding and legality check on the
// actions a seat may send (any bytes), deep into real games. The input
// picks a game, its options and seat count, the deal's seed, then for each
// decision and acting seat either a listed legal action or raw bytes parsed
// as an Action. Checked on every state reached:
//   * ValidateAction never crashes, and a refused action leaves the state
//     as it was (its public view is unchanged);
//   * the default action and every listed legal action validate and fit
//     the game's maximum action size; bytes with unknown fields are refused
//     by ParseSeatAction before the game sees them;
//   * Apply of validated actions succeeds; the game ends only through
//     IsTerminal, and its Outcome has one entry per seat.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

namespace v1 = ::pyramid::referee::v1;

using ::pyramid::fuzz::Check;

v1::GameConfig Config(FuzzedDataProvider& in) {
  v1::GameConfig config;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0:
      config.set_game("rock_paper_pyramid");
      config.mutable_rock_paper_pyramid()->set_red(in.ConsumeBool());
      config.mutable_rock_paper_pyramid()->set_winner_takes(
          static_cast<v1::RppWinnerTakes>(in.ConsumeIntegralInRange(0, 2)));
      break;
    case 1:
      config.set_game("pyramid_shambo");
      config.mutable_pyramid_shambo()->set_max_throws(
          in.ConsumeIntegralInRange(1, 40));
      break;
    case 2:
      config.set_game("flaming_pyramids");
      config.mutable_flaming_pyramids()->set_curse(in.ConsumeBool());
      config.mutable_flaming_pyramids()->set_max_turns(
          in.ConsumeIntegralInRange(1, 60));
      break;
    default:
      config.set_game("pyramid_scheme");
      config.mutable_pyramid_scheme()->set_max_turns(
          in.ConsumeIntegralInRange(1, 60));
      break;
  }
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  absl::StatusOr<std::unique_ptr<pyramid::Game>> game =
      pyramid::MakeGame(Config(in));
  Check(game.ok());
  const int seats =
      in.ConsumeIntegralInRange((*game)->min_seats(), (*game)->max_seats());
  const std::string seed = in.ConsumeBytesAsString(8);
  absl::StatusOr<std::unique_ptr<pyramid::State>> state =
      (*game)->NewInitialState(seats,
                               pyramid::RandomStream(pyramid::Sha256(seed)));
  Check(state.ok());
  pyramid::State& s = **state;
  for (int step = 0; step < 400 && !s.IsTerminal(); ++step) {
    const std::vector<int> acting = s.ActingSeats();
    Check(!acting.empty());
    std::vector<pyramid::SeatAction> actions;
    for (int seat : acting) {
      const v1::Action fallback = s.DefaultAction(seat);
      Check(s.ValidateAction(seat, fallback).ok());
      Check(fallback.ByteSizeLong() <= (*game)->max_action_bytes());
      pyramid::SeatAction chosen{seat, fallback};
      if (in.ConsumeBool()) {
        // Any bytes a seat might send.
        const std::string bytes =
            in.ConsumeRandomLengthString(in.ConsumeIntegralInRange(0, 256));
        absl::StatusOr<v1::Action> sent = pyramid::ParseSeatAction(bytes);
        if (sent.ok()) {
          const std::string before = s.PublicView().SerializeAsString();
          if (s.ValidateAction(seat, *sent).ok()) {
            chosen.action = *sent;
          } else {
            Check(s.PublicView().SerializeAsString() == before);
          }
        }
      } else if (s.ListsLegalActions()) {
        const std::vector<v1::Action> legal = s.LegalActions(seat);
        Check(!legal.empty());
        const v1::Action& pick =
            legal[in.ConsumeIntegralInRange<size_t>(0, legal.size() - 1)];
        Check(s.ValidateAction(seat, pick).ok());
        Check(pick.ByteSizeLong() <= (*game)->max_action_bytes());
        chosen.action = pick;
      }
      // A seat that is not acting is refused.
      Check(!s.ValidateAction(seats, chosen.action).ok());
      actions.push_back(std::move(chosen));
    }
    Check(s.Apply(actions).ok());
    (void)s.ObservationFor(acting.front()).ByteSizeLong();
    (void)s.StoppedOutcome();
  }
  if (s.IsTerminal()) {
    Check(s.ActingSeats().empty());
    Check(s.Outcome().seats_size() == seats);
  }
  return 0;
}

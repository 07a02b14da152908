#include "referee/games/flaming_pyramids/testing.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"
#include "gtest/gtest.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/flaming_pyramids/state.h"
#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp::testing {
namespace {

int RegularTile(int colour, int weight) {
  for (int i = 0; i < kTilesPerColour; ++i) {
    if (kColourWeights[i] == weight) return colour * kTilesPerColour + i;
  }
  return -1;
}

// Every tile id the observation mentions: any uint32 field named like a
// tile (tile, cause, own_hand, under, removed), at any depth.
void CollectTiles(const google::protobuf::Message& message,
                  std::vector<int>& tiles) {
  static const std::set<std::string> kTileFields = {"tile", "cause", "own_hand",
                                                    "under", "removed"};
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    using FD = google::protobuf::FieldDescriptor;
    if (field->cpp_type() == FD::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          CollectTiles(reflection->GetRepeatedMessage(message, field, i),
                       tiles);
        }
      } else {
        CollectTiles(reflection->GetMessage(message, field), tiles);
      }
      continue;
    }
    if (field->cpp_type() != FD::CPPTYPE_UINT32 ||
        kTileFields.count(field->name()) == 0) {
      continue;
    }
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        tiles.push_back(
            static_cast<int>(reflection->GetRepeatedUInt32(message, field, i)));
      }
    } else {
      tiles.push_back(static_cast<int>(reflection->GetUInt32(message, field)));
    }
  }
}

}  // namespace

int Y(int weight) { return RegularTile(0, weight); }
int R(int weight) { return RegularTile(1, weight); }
int G(int weight) { return RegularTile(2, weight); }
int B(int weight) { return RegularTile(3, weight); }

void PrintTo(const Placed& placed, std::ostream* out) {
  *out << "(" << placed.row << ", " << placed.x << ") "
       << TileName(placed.tile);
}

Board MakeBoard(std::initializer_list<Placed> cells) {
  Board board;
  for (const Placed& p : cells) board.Put(Cell{p.row, p.x}, p.tile);
  return board;
}

std::vector<Placed> Layout(const State& state) {
  std::vector<Placed> cells;
  const TestPosition position = PositionOf(state);
  for (const auto& [cell, tile] : position.board.cells()) {
    cells.push_back({cell.row, cell.x, tile});
  }
  return cells;
}

std::vector<Placed> InScanOrder(std::vector<Placed> cells) {
  std::sort(cells.begin(), cells.end(), [](const Placed& a, const Placed& b) {
    return ScanLess()(Cell{a.row, a.x}, Cell{b.row, b.x});
  });
  return cells;
}

v1::GameConfig Config(bool curse, uint32_t max_turns) {
  v1::GameConfig config;
  config.set_game("flaming_pyramids");
  config.mutable_flaming_pyramids()->set_curse(curse);
  config.mutable_flaming_pyramids()->set_max_turns(max_turns);
  return config;
}

std::unique_ptr<State> StateAt(const TestPosition& position,
                               const v1::GameConfig& config,
                               uint32_t rules_version) {
  absl::StatusOr<std::unique_ptr<State>> state =
      NewStateForTesting(config, position, rules_version);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

std::unique_ptr<State> NewGame(int seats, const Digest& seed,
                               const v1::GameConfig& config) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGameOf(Description(), config);
  if (!game.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<State>> state =
      (*game)->NewInitialState(seats, RandomStream(seed));
  if (!state.ok()) return nullptr;
  return *std::move(state);
}

v1::Action Place(int tile, int row, int x) {
  return PlaceAction(tile, Cell{row, x});
}

v1::Action Fall(v1::FpDirection direction) { return FallAction(direction); }

absl::StatusOr<v1::FlamingPyramidsResult> Act(State& state, int seat,
                                              const v1::Action& action) {
  return GamePart(ActAlone(state, seat, action), &v1::Result::flaming_pyramids);
}

std::string CheckInvariants(const State& state) {
  const TestPosition position = PositionOf(state);
  std::vector<int> count(kNumTiles, 0);
  for (const auto& [cell, tile] : position.board.cells()) ++count[tile];
  for (int seat = 0; seat < position.num_seats; ++seat) {
    for (int tile : position.hands[seat]) ++count[tile];
    for (int tile : position.piles[seat]) ++count[tile];
    if (position.hands[seat].size() > static_cast<size_t>(kHandSize)) {
      return absl::StrCat("seat ", seat, " holds more than 5 in hand");
    }
    if (position.dealt_left[seat] >
        static_cast<int>(position.piles[seat].size())) {
      return absl::StrCat("seat ", seat, " dealt_left above pile size");
    }
  }
  for (int tile : position.removed) ++count[tile];
  for (int tile = 0; tile < kNumTiles; ++tile) {
    if (count[tile] != 1) {
      return absl::StrCat("tile ", tile, " accounted for ", count[tile],
                          " times");
    }
  }
  const v1::FlamingPyramidsObservation view =
      state.PublicView().flaming_pyramids();
  const std::vector<int> acting = state.ActingSeats();
  switch (view.phase()) {
    case v1::FP_FALL:
      if (acting != std::vector<int>{static_cast<int>(view.receiver())}) {
        return "the chooser is not the acting seat";
      }
      return "";  // Mid-mayhem: the layout may be unsettled.
    case v1::FP_PLACE:
      if (acting != std::vector<int>{position.active_seat}) {
        return "the active seat is not acting";
      }
      if (position.hands[position.active_seat].empty()) {
        return "the active seat has an empty hand";
      }
      break;
    case v1::FP_GAME_OVER:
      if (!acting.empty()) return "seats act after the end";
      break;
    default:
      return "bad phase";
  }
  for (const auto& [cell, tile] : position.board.cells()) {
    if (position.board.InFreeAir(cell)) {
      return absl::StrCat("tile ", tile, " floats at (", cell.row, ", ", cell.x,
                          ")");
    }
    if (!position.board.Fits(cell)) {
      return absl::StrCat("tile ", tile, " breaks the building rule at (",
                          cell.row, ", ", cell.x, ")");
    }
  }
  if (state.IsTerminal() || view.phase() != v1::FP_PLACE) return "";
  if (FindMayhem(position.board, view.curse()).has_value()) {
    return "mayhem left unresolved";
  }
  return "";
}

std::string CheckRedaction(const State& state, int seat,
                           const v1::Observation& observation,
                           const std::vector<bool>& seen) {
  const TestPosition position = PositionOf(state);
  const v1::FlamingPyramidsObservation& view = observation.flaming_pyramids();
  if (view.seats_size() != position.num_seats) return "wrong seat count";
  std::vector<bool> hidden(kNumTiles, false);  // Must never appear.
  std::vector<bool> other_hand(kNumTiles, false);
  for (int s = 0; s < position.num_seats; ++s) {
    const v1::FpSeatView& seat_view = view.seats(s);
    const std::vector<int>& pile = position.piles[s];
    for (int i = 0; i < position.dealt_left[s]; ++i) hidden[pile[i]] = true;
    if (seat_view.dealt_left() !=
            static_cast<uint32_t>(position.dealt_left[s]) ||
        seat_view.pile_size() != pile.size() ||
        seat_view.hand_size() != position.hands[s].size()) {
      return absl::StrCat("seat ", s, "'s counts are wrong");
    }
    const std::vector<int> under(pile.begin() + position.dealt_left[s],
                                 pile.end());
    if (std::vector<int>(seat_view.under().begin(), seat_view.under().end()) !=
        under) {
      return absl::StrCat("seat ", s, "'s face-up tiles are wrong");
    }
    if (s == seat) {
      if (std::vector<int>(seat_view.own_hand().begin(),
                           seat_view.own_hand().end()) != position.hands[s]) {
        return "the seat's own hand is wrong";
      }
      continue;
    }
    if (!seat_view.own_hand().empty()) {
      return absl::StrCat(
          "seat ", s, "'s hand is shown to ",
          seat < 0 ? "the public" : absl::StrCat("seat ", seat));
    }
    for (int tile : position.hands[s]) other_hand[tile] = true;
  }
  std::vector<int> mentioned;
  CollectTiles(observation, mentioned);
  for (int tile : mentioned) {
    if (tile < 0 || tile >= kNumTiles) return "tile id out of range";
    if (hidden[tile]) {
      return absl::StrCat("tile ", tile, " of a dealt pile part is shown");
    }
    if (other_hand[tile] && !seen[tile]) {
      return absl::StrCat("tile ", tile, " of another hand is shown");
    }
  }
  return "";
}

void MarkPublic(const State& state, const v1::Result* result,
                std::vector<bool>& seen) {
  const TestPosition position = PositionOf(state);
  for (const auto& [cell, tile] : position.board.cells()) seen[tile] = true;
  for (int s = 0; s < position.num_seats; ++s) {
    const std::vector<int>& pile = position.piles[s];
    for (size_t i = position.dealt_left[s]; i < pile.size(); ++i) {
      seen[pile[i]] = true;
    }
  }
  for (int tile : position.removed) seen[tile] = true;
  if (result == nullptr) return;
  std::vector<int> mentioned;
  CollectTiles(*result, mentioned);
  for (int tile : mentioned) seen[tile] = true;
}

std::string CheckResultRedaction(const State& state, const v1::Result& result) {
  const TestPosition position = PositionOf(state);
  std::vector<int> mentioned;
  CollectTiles(result, mentioned);
  for (int s = 0; s < position.num_seats; ++s) {
    for (int i = 0; i < position.dealt_left[s]; ++i) {
      const int dealt = position.piles[s][i];
      if (std::find(mentioned.begin(), mentioned.end(), dealt) !=
          mentioned.end()) {
        return absl::StrCat("the result shows dealt tile ", dealt);
      }
    }
  }
  return "";
}

// A placement-phase position: seat `active` to play; piles all face up
// unless `dealt_left` says otherwise. Unmentioned tiles are out of the game.
TestPosition Pos(Board board, std::vector<std::vector<int>> hands,
                 std::vector<std::vector<int>> piles, int active) {
  TestPosition position;
  position.num_seats = static_cast<int>(hands.size());
  position.board = std::move(board);
  position.hands = std::move(hands);
  position.piles = piles.empty()
                       ? std::vector<std::vector<int>>(position.num_seats)
                       : std::move(piles);
  position.active_seat = active;
  return position;
}

Board GappedRow() {
  return MakeBoard({{1, 3, Y(20)},
                    {0, 0, Y(2)},
                    {0, 1, R(2)},
                    {0, 3, Y(30)},
                    {0, 4, R(10)},
                    {0, 6, G(2)}});
}

std::vector<Cell> Spots(const State& state) {
  return PositionOf(state).board.LegalSpots();
}

std::vector<std::pair<int, int>> SpotList(const State& state) {
  std::vector<std::pair<int, int>> spots;
  for (Cell cell : Spots(state)) spots.emplace_back(cell.row, cell.x);
  return spots;
}

std::vector<int> Pile(const State& state, int seat) {
  return PositionOf(state).piles[seat];
}

std::vector<int> Hand(const State& state, int seat) {
  return PositionOf(state).hands[seat];
}

v1::FlamingPyramidsObservation View(const State& state, int seat) {
  return (seat < 0 ? state.PublicView() : state.ObservationFor(seat))
      .flaming_pyramids();
}

void PrintTo(const Move& m, std::ostream* out) {
  *out << TileName(m.tile) << " -> " << v1::FpDestination_Name(m.to) << " "
       << m.where << " " << m.x;
}
Move ToTable(int tile, int row, int x) {
  return {tile, v1::FP_TO_TABLE, row, x};
}
Move ToPile(int tile, int seat) { return {tile, v1::FP_TO_PILE, seat, 0}; }
Move Removed(int tile) { return {tile, v1::FP_TO_REMOVED, 0, 0}; }

std::vector<Move> Moves(const v1::FpEvent& event) {
  std::vector<Move> moves;
  for (const v1::FpTileMove& m : event.moves()) {
    const int tile = static_cast<int>(m.tile());
    switch (m.to()) {
      case v1::FP_TO_TABLE:
        moves.push_back(ToTable(tile, static_cast<int>(m.to_row()), m.to_x()));
        break;
      case v1::FP_TO_PILE:
        moves.push_back(ToPile(tile, static_cast<int>(m.pile_seat())));
        break;
      default:
        moves.push_back(Removed(tile));
    }
  }
  return moves;
}

}  // namespace pyramid::fp::testing

#include "referee/games/flaming_pyramids/state.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids/board.h"
#include "referee/games/flaming_pyramids/tables.h"

namespace pyramid::fp {

v1::FpEventKind EventKindProto(MayhemKind kind) {
  switch (kind) {
    case MayhemKind::kFreeAir:
      return v1::FP_FREE_AIR;
    case MayhemKind::kCollapse:
      return v1::FP_COLLAPSE;
    case MayhemKind::kExplosion:
      return v1::FP_EXPLOSION;
    case MayhemKind::kFire:
      return v1::FP_FIRE;
    case MayhemKind::kCurse:
      return v1::FP_CURSE;
  }
  return v1::FP_EVENT_KIND_UNSPECIFIED;
}

void SetCell(Cell cell, int tile, v1::FpCell& out) {
  out.set_tile(static_cast<uint32_t>(tile));
  out.set_row(static_cast<uint32_t>(cell.row));
  out.set_x(cell.x);
}

void AddLayout(const Board& board,
               google::protobuf::RepeatedPtrField<v1::FpCell>& out) {
  // Room for every cell at once, rather than growing the field (on an
  // arena, each growth leaves the old array behind) as they are added.
  out.Reserve(out.size() + board.size());
  for (const auto& [cell, tile] : board.cells())
    SetCell(cell, tile, *out.Add());
}

v1::FpTileMove* AddMove(int tile, Cell from, v1::FpDestination to,
                        v1::FpEvent& event) {
  v1::FpTileMove* move = event.add_moves();
  move->set_tile(static_cast<uint32_t>(tile));
  move->set_from_row(static_cast<uint32_t>(from.row));
  move->set_from_x(from.x);
  move->set_to(to);
  return move;
}

v1::Action PlaceAction(int tile, Cell spot) {
  v1::Action action;
  v1::FpPlace* place = action.mutable_flaming_pyramids()->mutable_place();
  place->set_tile(static_cast<uint32_t>(tile));
  place->set_row(static_cast<uint32_t>(spot.row));
  place->set_x(spot.x);
  return action;
}

v1::Action FallAction(v1::FpDirection direction) {
  v1::Action action;
  action.mutable_flaming_pyramids()->set_fall(direction);
  return action;
}

FlamingPyramidsState::FlamingPyramidsState(const Options& options,
                                           int num_seats, RandomStream& stream)
    : State(Description()),
      options_(options),
      num_seats_(num_seats),
      hands_(num_seats),
      piles_(num_seats) {
  Deal(stream);
}

FlamingPyramidsState::FlamingPyramidsState(const Options& options,
                                           const TestPosition& position)
    : State(Description()),
      options_(options),
      num_seats_(position.num_seats),
      board_(position.board),
      hands_(position.hands),
      piles_(position.num_seats),
      removed_(position.removed),
      active_(position.active_seat),
      receiver_(position.active_seat),
      turns_completed_(position.turns_completed) {
  for (std::vector<int>& hand : hands_) std::sort(hand.begin(), hand.end());
  for (int seat = 0; seat < num_seats_; ++seat) {
    piles_[seat].tiles.assign(position.piles[seat].begin(),
                              position.piles[seat].end());
    if (!position.dealt_left.empty()) {
      piles_[seat].dealt_left = position.dealt_left[seat];
    }
  }
}

// The rules page's deal: shuffle [0..44]; deal seats x per_seat tiles round
// the table, first dealt on top; lay the rest (incendiaries removed) as row
// 0 from (0, 0) rightwards; draw hands; then draw the first player.
void FlamingPyramidsState::Deal(RandomStream& stream) {
  std::vector<int> order(kNumTiles);
  std::iota(order.begin(), order.end(), 0);
  stream.Shuffle(order);
  const int dealt = num_seats_ * (kNumTiles / num_seats_);
  for (int k = 0; k < dealt; ++k) {
    piles_[k % num_seats_].tiles.push_back(order[k]);
  }
  int next_x = 0;
  for (int k = dealt; k < kNumTiles; ++k) {
    if (IsIncendiary(order[k])) {
      removed_.push_back(order[k]);
    } else {
      board_.Put(Cell{0, next_x++}, order[k]);
    }
  }
  for (int seat = 0; seat < num_seats_; ++seat) {
    piles_[seat].dealt_left = static_cast<int>(piles_[seat].tiles.size());
    Draw(seat);
  }
  active_ = static_cast<int>(stream.Uniform(static_cast<uint64_t>(num_seats_)));
  receiver_ = active_;
}

// Draws from the top of `seat`'s pile until the hand holds kHandSize tiles
// or the pile is empty. Returns the number drawn.
int FlamingPyramidsState::Draw(int seat) {
  std::vector<int>& hand = hands_[seat];
  Pile& pile = piles_[seat];
  int drawn = 0;
  while (static_cast<int>(hand.size()) < kHandSize && !pile.tiles.empty()) {
    const int tile = pile.tiles.front();
    pile.tiles.pop_front();
    if (pile.dealt_left > 0) --pile.dealt_left;
    hand.insert(std::upper_bound(hand.begin(), hand.end(), tile), tile);
    ++drawn;
  }
  return drawn;
}

absl::Status FlamingPyramidsState::DoValidateAction(
    int seat, const v1::Action& action) const {
  const v1::FlamingPyramidsAction& fp_action = action.flaming_pyramids();
  if (phase_ == Phase::kFall) {
    if (fp_action.choice_case() != v1::FlamingPyramidsAction::kFall) {
      return Refuse("a tile is falling; expected a fall direction");
    }
    if (fp_action.fall() != v1::FP_LEFT && fp_action.fall() != v1::FP_RIGHT) {
      return Refuse(
          absl::StrCat("fall direction must be FP_LEFT or "
                       "FP_RIGHT, got ",
                       static_cast<int>(fp_action.fall())));
    }
    return absl::OkStatus();
  }
  if (fp_action.choice_case() != v1::FlamingPyramidsAction::kPlace) {
    return Refuse("expected a placement (tile and spot)");
  }
  const v1::FpPlace& place = fp_action.place();
  if (place.tile() >= static_cast<uint32_t>(kNumTiles) ||
      !InHand(seat, static_cast<int>(place.tile()))) {
    return Refuse(absl::StrCat("tile ", place.tile(), " is not in seat ", seat,
                               "'s hand"));
  }
  const bool legal =
      place.row() <= static_cast<uint32_t>(std::numeric_limits<int>::max()) &&
      board_.IsLegalSpot(Cell{static_cast<int>(place.row()), place.x()});
  if (!legal) {
    return Refuse(absl::StrCat("(", place.row(), ", ", place.x(),
                               ") is not a legal spot"));
  }
  return absl::OkStatus();
}

// Every (hand tile, legal spot) pair, or the two directions; sorted by
// serialized bytes.
void FlamingPyramidsState::LegalActionsInto(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const {
  if (!IsActing(seat)) return;
  if (phase_ == Phase::kFall) {
    *out.Add() = FallAction(v1::FP_LEFT);
    *out.Add() = FallAction(v1::FP_RIGHT);
    return;
  }
  for (Cell spot : board_.LegalSpots()) {
    for (int tile : hands_[seat]) *out.Add() = PlaceAction(tile, spot);
  }
  SortByBytes(out, /*unique=*/false);
}

// Same answer as the default, without listing every placement: a fall has
// two directions, and placements pair every hand tile with every legal spot.
std::optional<v1::Action> FlamingPyramidsState::SoleLegalAction(
    int seat) const {
  if (!IsActing(seat) || phase_ != Phase::kPlace || hands_[seat].size() != 1) {
    return std::nullopt;
  }
  const std::vector<Cell> spots = board_.LegalSpots();
  if (spots.size() != 1) return std::nullopt;
  return PlaceAction(hands_[seat].front(), spots.front());
}

// The rules page: the lowest tile id in hand at the first legal spot in
// scan order; a fall goes left.
v1::Action FlamingPyramidsState::DefaultAction(int seat) const {
  if (!IsActing(seat)) return v1::Action();
  if (phase_ == Phase::kFall) return FallAction(v1::FP_LEFT);
  return PlaceAction(hands_[seat].front(), board_.LegalSpots().front());
}

// Fewest tiles held is best; the winner ranks first. Score: tiles held.
v1::Outcome FlamingPyramidsState::RankedOutcome(
    v1::Termination termination) const {
  std::vector<int64_t> keys;
  std::vector<int32_t> scores;
  for (int seat = 0; seat < num_seats_; ++seat) {
    keys.push_back(winner_ == seat ? -1 : Held(seat));
    scores.push_back(Held(seat));
  }
  return OutcomeByKeys(keys, scores, termination);
}

namespace {

// Checks a test position; on success fills `removed` with the tiles it does
// not mention.
absl::Status CheckPosition(const Options& options, TestPosition& position) {
  const int n = position.num_seats;
  if (n < Description().min_seats || n > Description().max_seats) {
    return absl::InvalidArgumentError(absl::StrCat("bad seat count ", n));
  }
  if (static_cast<int>(position.hands.size()) != n ||
      static_cast<int>(position.piles.size()) != n ||
      (!position.dealt_left.empty() &&
       static_cast<int>(position.dealt_left.size()) != n)) {
    return absl::InvalidArgumentError("hands, piles or dealt_left size");
  }
  if (position.active_seat < 0 || position.active_seat >= n) {
    return absl::InvalidArgumentError("bad active seat");
  }
  for (const std::vector<int>& hand : position.hands) {
    if (hand.empty()) return absl::InvalidArgumentError("empty hand");
  }
  if (position.turns_completed < 0 ||
      position.turns_completed >= options.max_turns) {
    return absl::InvalidArgumentError("turns_completed out of range");
  }
  std::vector<bool> seen(kNumTiles, false);
  auto mention = [&seen](int tile) {
    if (tile < 0 || tile >= kNumTiles || seen[tile]) return false;
    seen[tile] = true;
    return true;
  };
  bool has_row0 = false;
  for (const auto& [cell, tile] : position.board.cells()) {
    if (cell.row < 0 || !mention(tile)) {
      return absl::InvalidArgumentError("bad table tile");
    }
    has_row0 = has_row0 || cell.row == 0;
  }
  if (!position.board.empty() && !has_row0) {
    return absl::InvalidArgumentError("a non-empty table needs a row-0 tile");
  }
  for (int seat = 0; seat < n; ++seat) {
    for (int tile : position.hands[seat]) {
      if (!mention(tile)) return absl::InvalidArgumentError("bad hand tile");
    }
    for (int tile : position.piles[seat]) {
      if (!mention(tile)) return absl::InvalidArgumentError("bad pile tile");
    }
    if (!position.dealt_left.empty() &&
        (position.dealt_left[seat] < 0 ||
         position.dealt_left[seat] >
             static_cast<int>(position.piles[seat].size()))) {
      return absl::InvalidArgumentError("bad dealt_left");
    }
  }
  for (int tile : position.removed) {
    if (!mention(tile)) return absl::InvalidArgumentError("bad removed tile");
  }
  for (int tile = 0; tile < kNumTiles; ++tile) {
    if (!seen[tile]) position.removed.push_back(tile);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const TestPosition& position,
    uint32_t rules_version) {
  absl::StatusOr<ResolvedConfig> resolved =
      ResolveConfig(Description(), config, rules_version);
  if (!resolved.ok()) return resolved.status();
  const Options options = ToOptions(resolved->options, resolved->rules_version);
  TestPosition checked = position;
  if (absl::Status status = CheckPosition(options, checked); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("flaming_pyramids position: ", status.message()));
  }
  std::unique_ptr<State> state =
      std::make_unique<FlamingPyramidsState>(options, checked);
  return state;
}

TestPosition PositionOf(const State& state) {
  const auto& fp_state = dynamic_cast<const FlamingPyramidsState&>(state);
  TestPosition position;
  position.num_seats = fp_state.num_seats_;
  position.board = fp_state.board_;
  position.hands = fp_state.hands_;
  for (const Pile& pile : fp_state.piles_) {
    position.piles.emplace_back(pile.tiles.begin(), pile.tiles.end());
    position.dealt_left.push_back(pile.dealt_left);
  }
  position.removed = fp_state.removed_;
  position.active_seat = fp_state.active_;
  position.turns_completed = fp_state.turns_completed_;
  return position;
}

}  // namespace pyramid::fp

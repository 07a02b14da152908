#include "referee/games/flaming_pyramids.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "pyramid/referee/v1/flaming_pyramids.pb.h"
#include "referee/games/flaming_pyramids_board.h"
#include "referee/games/flaming_pyramids_tiles.h"

namespace pyramid {
namespace {

using fp::Board;
using fp::Cell;
using fp::Mayhem;
using fp::MayhemKind;

inline constexpr std::string_view kGameId = "flaming_pyramids";
// Version 2: a collapse's supports go under the receiver's pile when the
// collapse happens, before its fall is asked (version 1 moved them with the
// fall, so a chooser that forfeited at that fall kept them out of its
// score, and the table showed them during the fall).
inline constexpr uint32_t kRulesVersion = 2;
inline constexpr uint32_t kOldestRulesVersion = 1;
// Actions are a few small fields (docs/protocol.md, "Action size").
inline constexpr size_t kMaxActionBytes = 64;

struct Options {
  bool curse = false;
  int max_turns = fp::kDefaultMaxTurns;
  uint32_t rules_version = kRulesVersion;
};

enum class Phase { kPlace, kFall, kOver };

// A seat's pile, top first. The first `dealt_left` tiles are still face down
// from the deal; the rest went under the pile face up, in that order.
struct Pile {
  std::deque<int> tiles;
  int dealt_left = 0;
};

absl::StatusOr<Options> ParseOptions(const v1::GameConfig& config) {
  if (!config.game().empty() && config.game() != kGameId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flaming_pyramids: config names game \"", config.game(), "\""));
  }
  Options options;
  switch (config.options_case()) {
    case v1::GameConfig::OPTIONS_NOT_SET:
      return options;
    case v1::GameConfig::kFlamingPyramids:
      break;
    default:
      return absl::InvalidArgumentError(
          "flaming_pyramids: options belong to another game");
  }
  const v1::FlamingPyramidsOptions& proto = config.flaming_pyramids();
  options.curse = proto.curse();
  if (proto.max_turns() > static_cast<uint32_t>(fp::kMaxMaxTurns)) {
    return absl::InvalidArgumentError(
        absl::StrCat("flaming_pyramids: max_turns ", proto.max_turns(),
                     " is above ", fp::kMaxMaxTurns));
  }
  if (proto.max_turns() != 0) {
    options.max_turns = static_cast<int>(proto.max_turns());
  }
  return options;
}

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

std::string DeterministicBytes(const v1::Action& action) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  action.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
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

class FlamingPyramidsState final : public State {
 public:
  // A new game: the deal and the first player, drawn from `stream`. These
  // are the game's only draws, so the stream is not kept.
  FlamingPyramidsState(const Options& options, int num_seats,
                       RandomStream stream);

  // A game at the start of a turn of a validated `position`.
  FlamingPyramidsState(const Options& options, const fp::Position& position);

  int num_seats() const override { return num_seats_; }
  bool IsTerminal() const override { return phase_ == Phase::kOver; }

  std::vector<int> ActingSeats() const override {
    switch (phase_) {
      case Phase::kPlace:
        return {active_};
      case Phase::kFall:
        return {receiver_};
      case Phase::kOver:
        return {};
    }
    return {};
  }

  bool IsSimultaneous() const override { return false; }

  absl::Status ValidateAction(int seat,
                              const v1::Action& action) const override;
  std::vector<v1::Action> LegalActions(int seat) const override;
  std::optional<v1::Action> SoleLegalAction(int seat) const override;
  v1::Action DefaultAction(int seat) const override;

  v1::Observation ObservationFor(int seat) const override {
    v1::Observation observation = View(seat);
    observation.set_public_view(false);
    observation.set_seat(static_cast<uint32_t>(seat));
    return observation;
  }

  v1::Observation PublicView() const override {
    v1::Observation observation = View(-1);
    observation.set_public_view(true);
    return observation;
  }

  v1::Outcome Outcome() const override {
    return Ranked(winner_.has_value() ? v1::TERMINATION_NORMAL
                                      : v1::TERMINATION_MOVE_LIMIT);
  }

  v1::Outcome StoppedOutcome() const override {
    return Ranked(v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<FlamingPyramidsState>(*this);
  }

  fp::Position ToPosition() const;

 protected:
  v1::Result DoApply(absl::Span<const SeatAction> actions) override;

 private:
  bool IsActing(int seat) const {
    const std::vector<int> acting = ActingSeats();
    return !acting.empty() && acting[0] == seat;
  }
  int PreviousSeat() const { return (active_ + num_seats_ - 1) % num_seats_; }
  int Held(int seat) const {
    return static_cast<int>(hands_[seat].size() + piles_[seat].tiles.size());
  }
  bool InHand(int seat, int tile) const {
    return std::binary_search(hands_[seat].begin(), hands_[seat].end(), tile);
  }

  void Deal(RandomStream& stream);
  int Draw(int seat);
  void Place(const v1::FpPlace& place, v1::FlamingPyramidsResult& result);
  void ResolveMayhem(v1::FlamingPyramidsResult& result);
  void ApplyEvent(const Mayhem& mayhem, v1::FpDirection direction,
                  v1::FpEvent& event);
  void EndTurn(v1::FlamingPyramidsResult& result);
  void SetPending(v1::FpPendingFall& pending) const;
  v1::Observation View(int seat) const;
  v1::Outcome Ranked(v1::Termination termination) const;

  Options options_;
  int num_seats_;
  Board board_;
  std::vector<std::vector<int>> hands_;  // Each sorted ascending.
  std::vector<Pile> piles_;
  std::vector<int> removed_;  // In the order the tiles left the game.
  int active_ = 0;
  // Receiver of this turn's mayhem tiles and chooser of its falls.
  int receiver_ = 0;
  int turns_completed_ = 0;
  Phase phase_ = Phase::kPlace;
  // The fall the chooser must direct (phase kFall).
  std::optional<Mayhem> pending_;
  // Rules version 2: the tiles of pending_->to_pile (a collapse's supports),
  // which went under the receiver's pile when the collapse happened.
  std::vector<int> pending_supports_;
  std::optional<int> winner_;
  // The public record of the turn in progress (from its placement on).
  v1::FpTurn current_turn_;
  // The last completed turns, oldest first: at most num_seats_ of them.
  std::deque<v1::FpTurn> recent_turns_;
};

FlamingPyramidsState::FlamingPyramidsState(const Options& options,
                                           int num_seats, RandomStream stream)
    : options_(options),
      num_seats_(num_seats),
      hands_(num_seats),
      piles_(num_seats) {
  Deal(stream);
}

FlamingPyramidsState::FlamingPyramidsState(const Options& options,
                                           const fp::Position& position)
    : options_(options),
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
  std::vector<int> order(fp::kNumTiles);
  std::iota(order.begin(), order.end(), 0);
  stream.Shuffle(order);
  const int dealt = num_seats_ * (fp::kNumTiles / num_seats_);
  for (int k = 0; k < dealt; ++k) {
    piles_[k % num_seats_].tiles.push_back(order[k]);
  }
  int next_x = 0;
  for (int k = dealt; k < fp::kNumTiles; ++k) {
    if (fp::IsIncendiary(order[k])) {
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
  while (static_cast<int>(hand.size()) < fp::kHandSize && !pile.tiles.empty()) {
    const int tile = pile.tiles.front();
    pile.tiles.pop_front();
    if (pile.dealt_left > 0) --pile.dealt_left;
    hand.insert(std::upper_bound(hand.begin(), hand.end(), tile), tile);
    ++drawn;
  }
  return drawn;
}

absl::Status FlamingPyramidsState::ValidateAction(
    int seat, const v1::Action& action) const {
  if (!IsActing(seat)) {
    return absl::FailedPreconditionError(
        absl::StrCat("flaming_pyramids: seat ", seat, " is not acting"));
  }
  if (action.kind_case() != v1::Action::kFlamingPyramids) {
    return absl::InvalidArgumentError(
        "flaming_pyramids: not a flaming_pyramids action");
  }
  const v1::FlamingPyramidsAction& fp_action = action.flaming_pyramids();
  if (phase_ == Phase::kFall) {
    if (fp_action.choice_case() != v1::FlamingPyramidsAction::kFall) {
      return absl::InvalidArgumentError(
          "flaming_pyramids: a tile is falling; expected a fall direction");
    }
    if (fp_action.fall() != v1::FP_LEFT && fp_action.fall() != v1::FP_RIGHT) {
      return absl::InvalidArgumentError(
          absl::StrCat("flaming_pyramids: fall direction must be FP_LEFT or "
                       "FP_RIGHT, got ",
                       static_cast<int>(fp_action.fall())));
    }
    return absl::OkStatus();
  }
  if (fp_action.choice_case() != v1::FlamingPyramidsAction::kPlace) {
    return absl::InvalidArgumentError(
        "flaming_pyramids: expected a placement (tile and spot)");
  }
  const v1::FpPlace& place = fp_action.place();
  if (place.tile() >= static_cast<uint32_t>(fp::kNumTiles) ||
      !InHand(seat, static_cast<int>(place.tile()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("flaming_pyramids: tile ", place.tile(),
                     " is not in seat ", seat, "'s hand"));
  }
  const std::vector<Cell> spots = board_.LegalSpots();
  const bool legal =
      place.row() <= static_cast<uint32_t>(std::numeric_limits<int>::max()) &&
      std::find(spots.begin(), spots.end(),
                Cell{static_cast<int>(place.row()), place.x()}) != spots.end();
  if (!legal) {
    return absl::InvalidArgumentError(absl::StrCat("flaming_pyramids: (",
                                                   place.row(), ", ", place.x(),
                                                   ") is not a legal spot"));
  }
  return absl::OkStatus();
}

// Every (hand tile, legal spot) pair, or the two directions; sorted by
// serialized bytes.
std::vector<v1::Action> FlamingPyramidsState::LegalActions(int seat) const {
  std::vector<v1::Action> actions;
  if (!IsActing(seat)) return actions;
  if (phase_ == Phase::kFall) {
    actions.push_back(FallAction(v1::FP_LEFT));
    actions.push_back(FallAction(v1::FP_RIGHT));
    return actions;
  }
  std::vector<std::pair<std::string, v1::Action>> keyed;
  for (Cell spot : board_.LegalSpots()) {
    for (int tile : hands_[seat]) {
      v1::Action action = PlaceAction(tile, spot);
      keyed.emplace_back(DeterministicBytes(action), std::move(action));
    }
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [bytes, action] : keyed) actions.push_back(std::move(action));
  return actions;
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

v1::Result FlamingPyramidsState::DoApply(absl::Span<const SeatAction> actions) {
  const SeatAction& seat_action = actions.front();
  const v1::FlamingPyramidsAction& action =
      seat_action.action.flaming_pyramids();
  v1::Result result;
  v1::FlamingPyramidsResult& fp_result = *result.mutable_flaming_pyramids();
  fp_result.set_turn(static_cast<uint32_t>(turns_completed_ + 1));
  fp_result.set_seat(static_cast<uint32_t>(seat_action.seat));
  fp_result.set_active_seat(static_cast<uint32_t>(active_));
  if (phase_ == Phase::kPlace) {
    Place(action.place(), fp_result);
  } else {
    const Mayhem fall = *pending_;
    pending_.reset();
    v1::FpEvent& event = *fp_result.add_events();
    ApplyEvent(fall, action.fall(), event);
  }
  ResolveMayhem(fp_result);
  AddLayout(board_, *fp_result.mutable_pyramid());
  return result;
}

void FlamingPyramidsState::Place(const v1::FpPlace& place,
                                 v1::FlamingPyramidsResult& result) {
  const int tile = static_cast<int>(place.tile());
  std::vector<int>& hand = hands_[active_];
  hand.erase(std::find(hand.begin(), hand.end(), tile));
  board_.Put(Cell{static_cast<int>(place.row()), place.x()}, tile);
  *result.mutable_placed() = place;
  current_turn_.Clear();
  current_turn_.set_turn(static_cast<uint32_t>(turns_completed_ + 1));
  current_turn_.set_seat(static_cast<uint32_t>(active_));
  *current_turn_.mutable_placed() = place;
}

// Mayhem, one event at a time, each found by scanning again from check 1,
// until it is over (the turn ends) or a tile must fall (the chooser is
// asked).
void FlamingPyramidsState::ResolveMayhem(v1::FlamingPyramidsResult& result) {
  while (true) {
    std::optional<Mayhem> mayhem = fp::FindMayhem(board_, options_.curse);
    if (!mayhem.has_value()) {
      EndTurn(result);
      return;
    }
    if (mayhem->Falls()) {
      pending_ = std::move(mayhem);
      phase_ = Phase::kFall;
      if (options_.rules_version >= 2) {
        // The supports go at once; only the fall waits for its direction.
        for (Cell cell : pending_->to_pile) {
          const int tile = board_.Take(cell);
          piles_[receiver_].tiles.push_back(tile);
          pending_supports_.push_back(tile);
        }
      }
      SetPending(*result.mutable_pending());
      return;
    }
    ApplyEvent(*mayhem, v1::FP_DIRECTION_UNSPECIFIED, *result.add_events());
  }
}

// Carries out one event: tiles under the receiver's pile in order, tiles out
// of the game, then the fall (in `direction`). A curse's tiles go to the
// previous seat, which receives and chooses for the rest of the turn.
void FlamingPyramidsState::ApplyEvent(const Mayhem& mayhem,
                                      v1::FpDirection direction,
                                      v1::FpEvent& event) {
  const int receiver =
      mayhem.kind == MayhemKind::kCurse ? PreviousSeat() : receiver_;
  event.set_kind(EventKindProto(mayhem.kind));
  event.set_cause(static_cast<uint32_t>(*board_.At(mayhem.cause)));
  event.set_receiver(static_cast<uint32_t>(receiver));
  for (size_t i = 0; i < mayhem.to_pile.size(); ++i) {
    const Cell cell = mayhem.to_pile[i];
    int tile;
    if (i < pending_supports_.size()) {  // Gone when the collapse happened.
      tile = pending_supports_[i];
    } else {
      tile = board_.Take(cell);
      piles_[receiver].tiles.push_back(tile);
    }
    AddMove(tile, cell, v1::FP_TO_PILE, event)
        ->set_pile_seat(static_cast<uint32_t>(receiver));
  }
  pending_supports_.clear();
  for (Cell cell : mayhem.removed) {
    const int tile = board_.Take(cell);
    removed_.push_back(tile);
    AddMove(tile, cell, v1::FP_TO_REMOVED, event);
  }
  if (mayhem.Falls()) {
    const Cell to = direction == v1::FP_LEFT ? fp::LeftSupport(mayhem.cause)
                                             : fp::RightSupport(mayhem.cause);
    const int tile = board_.Take(mayhem.cause);
    board_.Put(to, tile);
    v1::FpTileMove* move = AddMove(tile, mayhem.cause, v1::FP_TO_TABLE, event);
    move->set_to_row(static_cast<uint32_t>(to.row));
    move->set_to_x(to.x);
    event.set_direction(direction);
  }
  receiver_ = receiver;
  *current_turn_.add_events() = event;
}

void FlamingPyramidsState::SetPending(v1::FpPendingFall& pending) const {
  pending.set_kind(EventKindProto(pending_->kind));
  const Cell cell = pending_->cause;
  pending.set_tile(static_cast<uint32_t>(*board_.At(cell)));
  pending.set_row(static_cast<uint32_t>(cell.row));
  pending.set_x(cell.x);
  pending.set_chooser(static_cast<uint32_t>(receiver_));
  for (size_t i = 0; i < pending_->to_pile.size(); ++i) {
    const Cell support = pending_->to_pile[i];
    SetCell(support,
            i < pending_supports_.size() ? pending_supports_[i]
                                         : *board_.At(support),
            *pending.add_supports());
  }
}

// Steps 3 and 4 of a turn, then the move limit and the next seat.
void FlamingPyramidsState::EndTurn(v1::FlamingPyramidsResult& result) {
  v1::FpTurnEnd& end = *result.mutable_turn_end();
  end.set_drawn(static_cast<uint32_t>(Draw(active_)));
  const bool won = Held(active_) == 0;
  ++turns_completed_;
  end.set_won(won);
  end.set_turns_completed(static_cast<uint32_t>(turns_completed_));
  for (int seat = 0; seat < num_seats_; ++seat) {
    end.add_held(static_cast<uint32_t>(Held(seat)));
  }
  const bool move_limit = !won && turns_completed_ >= options_.max_turns;
  end.set_move_limit(move_limit);
  *current_turn_.mutable_end() = end;
  recent_turns_.push_back(std::move(current_turn_));
  current_turn_.Clear();
  while (static_cast<int>(recent_turns_.size()) > num_seats_) {
    recent_turns_.pop_front();
  }
  if (won) winner_ = active_;
  if (won || move_limit) {
    phase_ = Phase::kOver;
    return;
  }
  active_ = (active_ + 1) % num_seats_;
  receiver_ = active_;
  phase_ = Phase::kPlace;
}

v1::Observation FlamingPyramidsState::View(int seat) const {
  v1::Observation observation;
  v1::FlamingPyramidsObservation& view =
      *observation.mutable_flaming_pyramids();
  switch (phase_) {
    case Phase::kPlace:
      view.set_phase(v1::FP_PLACE);
      break;
    case Phase::kFall:
      view.set_phase(v1::FP_FALL);
      break;
    case Phase::kOver:
      view.set_phase(v1::FP_GAME_OVER);
      break;
  }
  view.set_active_seat(static_cast<uint32_t>(active_));
  view.set_receiver(static_cast<uint32_t>(receiver_));
  view.set_turns_completed(static_cast<uint32_t>(turns_completed_));
  view.set_max_turns(static_cast<uint32_t>(options_.max_turns));
  view.set_curse(options_.curse);
  AddLayout(board_, *view.mutable_pyramid());
  for (int s = 0; s < num_seats_; ++s) {
    v1::FpSeatView& seat_view = *view.add_seats();
    const Pile& pile = piles_[s];
    seat_view.set_hand_size(static_cast<uint32_t>(hands_[s].size()));
    seat_view.set_pile_size(static_cast<uint32_t>(pile.tiles.size()));
    seat_view.set_dealt_left(static_cast<uint32_t>(pile.dealt_left));
    for (size_t i = static_cast<size_t>(pile.dealt_left); i < pile.tiles.size();
         ++i) {
      seat_view.add_under(static_cast<uint32_t>(pile.tiles[i]));
    }
    if (s == seat) {
      for (int tile : hands_[s])
        seat_view.add_own_hand(static_cast<uint32_t>(tile));
    }
  }
  for (int tile : removed_) view.add_removed(static_cast<uint32_t>(tile));
  if (phase_ == Phase::kPlace) {
    for (Cell spot : board_.LegalSpots()) {
      v1::FpSpot& out = *view.add_legal_spots();
      out.set_row(static_cast<uint32_t>(spot.row));
      out.set_x(spot.x);
    }
  }
  if (phase_ == Phase::kFall) {
    SetPending(*view.mutable_pending());
    *view.mutable_current_turn() = current_turn_;
  }
  for (const v1::FpTurn& turn : recent_turns_) *view.add_recent_turns() = turn;
  if (winner_.has_value()) view.set_winner(static_cast<uint32_t>(*winner_));
  return observation;
}

// Fewest tiles held is best; the winner ranks first. Score: tiles held.
v1::Outcome FlamingPyramidsState::Ranked(v1::Termination termination) const {
  std::vector<int64_t> keys;
  for (int seat = 0; seat < num_seats_; ++seat) {
    keys.push_back(winner_ == seat ? -1 : Held(seat));
  }
  const std::vector<uint32_t> ranks = CompetitionRanks(keys);
  v1::Outcome outcome;
  outcome.set_termination(termination);
  for (int seat = 0; seat < num_seats_; ++seat) {
    v1::SeatOutcome* result = outcome.add_seats();
    result->set_rank(ranks[seat]);
    result->set_score(Held(seat));
  }
  return outcome;
}

fp::Position FlamingPyramidsState::ToPosition() const {
  fp::Position position;
  position.num_seats = num_seats_;
  position.board = board_;
  position.hands = hands_;
  for (const Pile& pile : piles_) {
    position.piles.emplace_back(pile.tiles.begin(), pile.tiles.end());
    position.dealt_left.push_back(pile.dealt_left);
  }
  position.removed = removed_;
  position.active_seat = active_;
  position.turns_completed = turns_completed_;
  return position;
}

// Checks a test position; on success fills `removed` with the tiles it does
// not mention.
absl::Status CheckPosition(const Options& options, fp::Position& position) {
  const int n = position.num_seats;
  if (n < fp::kMinSeats || n > fp::kMaxSeats) {
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
  std::vector<bool> seen(fp::kNumTiles, false);
  auto mention = [&seen](int tile) {
    if (tile < 0 || tile >= fp::kNumTiles || seen[tile]) return false;
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
  for (int tile = 0; tile < fp::kNumTiles; ++tile) {
    if (!seen[tile]) position.removed.push_back(tile);
  }
  return absl::OkStatus();
}

class FlamingPyramidsGame final : public Game {
 public:
  explicit FlamingPyramidsGame(const Options& options) : options_(options) {}

  std::string_view id() const override { return kGameId; }
  uint32_t rules_version() const override { return options_.rules_version; }
  int min_seats() const override { return fp::kMinSeats; }
  int max_seats() const override { return fp::kMaxSeats; }
  size_t max_action_bytes() const override { return kMaxActionBytes; }

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    std::unique_ptr<State> state = std::make_unique<FlamingPyramidsState>(
        options_, num_seats, std::move(stream));
    return state;
  }

 private:
  Options options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeFlamingPyramids(
    const v1::GameConfig& config, uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(kGameId, rules_version,
                                         kOldestRulesVersion, kRulesVersion);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Options> options = ParseOptions(config);
  if (!options.ok()) return options.status();
  if (rules_version != 0) options->rules_version = rules_version;
  std::unique_ptr<Game> game = std::make_unique<FlamingPyramidsGame>(*options);
  return game;
}

namespace fp {

absl::StatusOr<std::unique_ptr<State>> NewStateForTesting(
    const v1::GameConfig& config, const Position& position,
    uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(kGameId, rules_version,
                                         kOldestRulesVersion, kRulesVersion);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Options> options = ParseOptions(config);
  if (!options.ok()) return options.status();
  if (rules_version != 0) options->rules_version = rules_version;
  Position checked = position;
  if (absl::Status status = CheckPosition(*options, checked); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("flaming_pyramids position: ", status.message()));
  }
  std::unique_ptr<State> state =
      std::make_unique<FlamingPyramidsState>(*options, checked);
  return state;
}

Position PositionOf(const State& state) {
  return dynamic_cast<const FlamingPyramidsState&>(state).ToPosition();
}

}  // namespace fp
}  // namespace pyramid

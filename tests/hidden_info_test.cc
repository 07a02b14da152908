// Hidden information over the wire. Full Flaming Pyramids matches (2 to 6
// seats, with and without the curse) and Pyramid Scheme matches (2, 3 and 4
// seats) run through the real service (an EmbeddedReferee on loopback),
// with a Watch client and every seat's Play stream recording every message
// they receive (each seat played by an svctest::RandomPlayer). The match's
// log, fetched with GetLog and the admin token, is replayed through the game
// engine, which knows every hidden fact at every step: Flaming Pyramids'
// hands and piles from fp::PositionOf; Pyramid Scheme's hands, deck order
// and unused goals from the seed by the rules page's draws, moved along by
// each result's events (cross-checked with the engine at every step). Then
// every received message is checked:
//   * its bytes parse with no unknown field at any depth and re-serialize to
//     the very bytes received, so the fields read below are all it holds
//     (an id field absent from the bytes names id 0, as proto3 reads it);
//   * a view is the engine's at a step no earlier than the previous view;
//     a seat's holds its own hand exactly and every other hand only as a
//     size; the public view holds no hand;
//   * no tile or card id anywhere in it (observation and legal actions) is
//     hidden from its reader at that step: another seat's hand (Flaming
//     Pyramids' public history may name a tile that was face up before it
//     was drawn), a pile's dealt part, the deck below its top card, a hand
//     that left the game; no goal id is one of the unused goals;
//   * no message holds the seed, the referee's seed contribution, or a salt
//     or seed contribution of another seat (Watch: of any seat), and Watch
//     shows no view of a simultaneous decision before all its commits.
// Every integer field of the two games' observations and actions is
// classified as naming a piece, a goal or neither (a new field fails the
// schema test until it is classified), and the checker is shown to catch
// each kind of leak planted into a real message.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/flaming_pyramids/game.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"
#include "referee/service/view_delta.h"
#include "tests/test_client.h"
#include "tests/test_referee.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::util::MessageDifferencer;
using svctest::EventLog;
using svctest::PlayClient;
using svctest::RandomPlayer;
using svctest::TestReferee;
using svctest::TestRefereeOptions;
using svctest::WatchClient;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kFlaming[] = "flaming_pyramids";
constexpr char kScheme[] = "pyramid_scheme";
constexpr absl::Duration kMatchTime = absl::Seconds(50);

// --- What the integer fields of the games' messages name -------------------

enum class Names { kPiece, kGoal, kNeither };

// Every integer field of the Flaming Pyramids and Pyramid Scheme
// observations and actions, by name: a tile or card id ("piece"), a goal
// id, or neither (a count, seat, slot, coordinate, number...).
const std::map<std::string, Names>& FieldNames() {
  static const auto* const names = new std::map<std::string, Names>{
      // Flaming Pyramids tiles.
      {"tile", Names::kPiece},
      {"cause", Names::kPiece},
      {"own_hand", Names::kPiece},
      {"under", Names::kPiece},
      {"removed", Names::kPiece},
      // Pyramid Scheme cards (PssCard.id and the actions' card references).
      {"id", Names::kPiece},
      {"card", Names::kPiece},
      {"cards", Names::kPiece},
      {"parent", Names::kPiece},
      {"reward_card", Names::kPiece},
      {"goal", Names::kGoal},
      {"police_goal", Names::kGoal},
      // Neither, in both games.
      {"seat", Names::kNeither},
      {"active_seat", Names::kNeither},
      {"max_turns", Names::kNeither},
      {"turn", Names::kNeither},
      {"hand_size", Names::kNeither},
      // Flaming Pyramids.
      {"row", Names::kNeither},
      {"x", Names::kNeither},
      {"receiver", Names::kNeither},
      {"turns_completed", Names::kNeither},
      {"winner", Names::kNeither},
      {"pile_size", Names::kNeither},
      {"dealt_left", Names::kNeither},
      {"chooser", Names::kNeither},
      {"from_row", Names::kNeither},
      {"from_x", Names::kNeither},
      {"to_row", Names::kNeither},
      {"to_x", Names::kNeither},
      {"pile_seat", Names::kNeither},
      {"drawn", Names::kNeither},
      {"held", Names::kNeither},
      // Pyramid Scheme.
      {"actions_done", Names::kNeither},
      {"eliminated_order", Names::kNeither},
      {"hand_limit", Names::kNeither},
      {"reset_tokens", Names::kNeither},
      {"bypass_tokens", Names::kNeither},
      {"smart_asses", Names::kNeither},
      {"claimed_by", Names::kNeither},
      {"reserved_by", Names::kNeither},
      {"police", Names::kNeither},
      {"capacity_2_tokens", Names::kNeither},
      {"capacity_3_tokens", Names::kNeither},
      {"deck_size", Names::kNeither},
      {"out_of_game", Names::kNeither},
      {"number", Names::kNeither},
      {"capacity_tokens", Names::kNeither},
      {"limit", Names::kNeither},
      {"slot", Names::kNeither},
      {"numbers", Names::kNeither},
      {"condition_needs", Names::kNeither},
      {"condition_any", Names::kNeither},
  };
  return *names;
}

bool IsInteger(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

int64_t IntegerAt(const Message& message, const FieldDescriptor& field,
                  int index) {
  const Reflection& r = *message.GetReflection();
  const bool repeated = field.is_repeated();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return repeated ? r.GetRepeatedInt32(message, &field, index)
                      : r.GetInt32(message, &field);
    case FieldDescriptor::CPPTYPE_INT64:
      return repeated ? r.GetRepeatedInt64(message, &field, index)
                      : r.GetInt64(message, &field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return repeated ? r.GetRepeatedUInt32(message, &field, index)
                      : r.GetUInt32(message, &field);
    default:
      return static_cast<int64_t>(
          repeated ? r.GetRepeatedUInt64(message, &field, index)
                   : r.GetUInt64(message, &field));
  }
}

// The piece and goal ids a message names anywhere, and the integer fields
// of its messages that FieldNames() does not classify.
struct Mentions {
  std::vector<int64_t> pieces;
  std::vector<int64_t> goals;
  std::set<std::string> unclassified;
};

// Whether `field` of `message`, unset, still names id 0: proto3 sends no
// zero, so an id field that always holds an id names 0 when it is absent.
// Not so for `optional` fields, nor for PssDecision's reward_card and
// police_goal outside their phases.
bool ZeroIsAnId(const Message& message, const FieldDescriptor& field) {
  if (field.has_presence()) return false;
  if (message.GetDescriptor() == v1::PssDecision::descriptor()) {
    const v1::PssPhase phase =
        static_cast<const v1::PssDecision&>(message).phase();
    if (field.name() == "reward_card") return phase == v1::PSS_PHASE_REWARD;
    if (field.name() == "police_goal") return phase == v1::PSS_PHASE_POLICE;
  }
  return true;
}

void Collect(const Message& message, Mentions& out) {
  const Descriptor& type = *message.GetDescriptor();
  const Reflection& r = *message.GetReflection();
  for (int f = 0; f < type.field_count(); ++f) {
    const FieldDescriptor& field = *type.field(f);
    if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field.is_repeated()) {
        for (int i = 0; i < r.FieldSize(message, &field); ++i) {
          Collect(r.GetRepeatedMessage(message, &field, i), out);
        }
      } else if (r.HasField(message, &field)) {
        Collect(r.GetMessage(message, &field), out);
      }
      continue;
    }
    if (!IsInteger(field)) continue;
    const auto it = FieldNames().find(field.name());
    if (it == FieldNames().end()) {
      out.unclassified.insert(field.full_name());
      continue;
    }
    if (it->second == Names::kNeither) continue;
    std::vector<int64_t>& ids =
        it->second == Names::kPiece ? out.pieces : out.goals;
    if (field.is_repeated()) {
      for (int i = 0; i < r.FieldSize(message, &field); ++i) {
        ids.push_back(IntegerAt(message, field, i));
      }
    } else if (r.HasField(message, &field) || ZeroIsAnId(message, field)) {
      ids.push_back(IntegerAt(message, field, 0));
    }
  }
}

// Integer fields reachable from `type` whose names FieldNames() lacks.
void Unclassified(const Descriptor& type, std::set<std::string>& seen_types,
                  std::set<std::string>& out) {
  if (!seen_types.insert(type.full_name()).second) return;
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      Unclassified(*field.message_type(), seen_types, out);
    } else if (IsInteger(field) && !FieldNames().count(field.name())) {
      out.insert(field.full_name());
    }
  }
}

// --- Bytes and secrets ------------------------------------------------------

// Unknown fields anywhere in `message`.
void UnknownFields(const Message& message, const std::string& path,
                   std::vector<std::string>& problems) {
  const Reflection& r = *message.GetReflection();
  if (!r.GetUnknownFields(message).empty()) {
    problems.push_back(absl::StrCat("unknown field(s) in ", path));
  }
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      UnknownFields(r.GetMessage(message, field),
                    absl::StrCat(path, ".", field->name()), problems);
      continue;
    }
    for (int i = 0; i < r.FieldSize(message, field); ++i) {
      UnknownFields(r.GetRepeatedMessage(message, field, i),
                    absl::StrCat(path, ".", field->name(), "[", i, "]"),
                    problems);
    }
  }
}

// Problems with the bytes of a received message, parsed into `parsed`:
// they must parse, hold no unknown field, and be exactly the serialization
// of the fields parsed (so the checks on `parsed` see everything sent).
std::vector<std::string> CheckBytes(const std::string& raw, Message& parsed) {
  if (!parsed.ParseFromString(raw)) return {"the bytes do not parse"};
  std::vector<std::string> problems;
  UnknownFields(parsed, parsed.GetDescriptor()->name(), problems);
  if (parsed.SerializeAsString() != raw) {
    problems.push_back("the bytes are not the serialization of their fields");
  }
  return problems;
}

// Problems: any of `secrets` (byte strings) inside `bytes`.
std::vector<std::string> CheckNoSecret(
    const std::string& bytes, const std::vector<std::string>& secrets) {
  std::vector<std::string> problems;
  for (const std::string& secret : secrets) {
    if (!secret.empty() && absl::StrContains(bytes, secret)) {
      problems.push_back(absl::StrCat("secret ", ToHex(secret), " is sent"));
    }
  }
  return problems;
}

// --- The hidden facts of every step, from the log ---------------------------

// One step of a match: the position after the seed (step 0) or after an
// applied move (step i for the i-th Applied record), with what is hidden.
struct Step {
  std::unique_ptr<State> state;
  std::vector<std::vector<int64_t>> hands;  // Each seat's hand, ascending.
  // Pieces hidden from every seat: the dealt part of every pile, the deck
  // below its top card, the hands that left the game.
  std::set<int64_t> face_down;
  // Pieces public at this step or before: Flaming Pyramids' history may
  // still name one that has since been drawn into a hand. Empty for
  // Pyramid Scheme, whose observations show only the present.
  std::set<int64_t> seen;
  std::set<int64_t> unused_goals;  // Pyramid Scheme: the 12 left out.
};

// "" when `a` equals `b`; else what differs.
std::string Differences(const Message& a, const Message& b) {
  MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  return differencer.Compare(a, b) ? "" : report;
}

std::vector<int64_t> Sorted(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

template <typename Ids>
std::vector<int64_t> CardIds(const Ids& cards) {
  std::vector<int64_t> ids;
  for (const v1::PssCard& card : cards) ids.push_back(card.id());
  return ids;
}

// Flaming Pyramids: hands and dealt parts from the engine's position;
// `seen` gathers what the table, the face-up pile parts, the removed tiles
// and `result` showed so far.
void FillFlamingStep(const v1::Result* result, std::set<int64_t>& seen,
                     Step& step) {
  const fp::TestPosition position = fp::PositionOf(*step.state);
  for (int s = 0; s < position.num_seats; ++s) {
    step.hands.push_back(
        Sorted({position.hands[s].begin(), position.hands[s].end()}));
    const std::vector<int>& pile = position.piles[s];
    const int dealt = position.dealt_left.empty() ? 0 : position.dealt_left[s];
    for (int i = 0; i < static_cast<int>(pile.size()); ++i) {
      (i < dealt ? step.face_down : seen).insert(pile[i]);
    }
  }
  for (const auto& [cell, tile] : position.board.cells()) seen.insert(tile);
  seen.insert(position.removed.begin(), position.removed.end());
  if (result != nullptr) {
    Mentions mentions;
    Collect(*result, mentions);
    seen.insert(mentions.pieces.begin(), mentions.pieces.end());
  }
  step.seen = seen;
}

// Pyramid Scheme's hidden facts as the rules page's draws make them from
// the seed (setup steps 1, 3 and 4; a shuffle per reshuffle), moved along
// by the public events of each result: the hands, the deck, the discard
// pile, the hand cards that left the game, the goals left out.
class SchemeSecrets {
 public:
  SchemeSecrets(const Digest& seed, int num_seats,
                const v1::PssCardTable& table)
      : stream_(seed) {
    std::vector<int64_t> cards(64);
    std::iota(cards.begin(), cards.end(), 0);
    stream_.Shuffle(cards);
    std::vector<int64_t> sums;
    for (int s = 0; s < num_seats; ++s) {
      hands_.push_back(Sorted({cards[2 * s], cards[2 * s + 1]}));
      sums.push_back(table.numbers(cards[2 * s]) +
                     table.numbers(cards[2 * s + 1]));
    }
    deck_.assign(cards.begin() + 2 * num_seats + 3, cards.end());
    std::vector<int64_t> goals(18);
    std::iota(goals.begin(), goals.end(), 0);
    stream_.Shuffle(goals);
    unused_goals_.insert(goals.begin() + 6, goals.end());
    const int64_t lowest = *std::min_element(sums.begin(), sums.end());
    const auto tied = std::count(sums.begin(), sums.end(), lowest);
    if (tied > 1) stream_.Uniform(static_cast<uint64_t>(tied));  // Starter.
  }

  // Moves the cards as `result`'s events say. Takes, placements and hand
  // discards are the acting seat's (its turn); a reset discards display
  // cards, never a hand's.
  void Apply(const v1::PyramidSchemeResult& result) {
    std::vector<int64_t>& hand = hands_.at(result.seat());
    for (const v1::PssEvent& event : result.events()) {
      if (event.has_took()) {
        hand.push_back(event.took().card().id());
        std::sort(hand.begin(), hand.end());
      } else if (event.has_placed()) {
        Remove(hand, event.placed().card().id());
      } else if (event.has_slot_filled()) {
        EXPECT_FALSE(deck_.empty());
        if (deck_.empty()) return;
        EXPECT_EQ(deck_.front(), event.slot_filled().card().id());
        deck_.erase(deck_.begin());
      } else if (event.has_discarded()) {
        for (int64_t id : CardIds(event.discarded().cards())) {
          Remove(hand, id);
          discard_.push_back(id);
        }
      } else if (event.has_reshuffled()) {
        deck_ = std::move(discard_);
        discard_.clear();
        stream_.Shuffle(deck_);
        EXPECT_EQ(deck_.size(), event.reshuffled().deck_size());
      } else if (event.has_eliminated()) {
        std::vector<int64_t>& out = hands_.at(event.eliminated().seat());
        gone_.insert(out.begin(), out.end());
        out.clear();
      }
    }
  }

  // Fails the test unless the engine agrees with every public part and
  // every hand.
  void ExpectMatches(const State& state) const {
    const v1::Observation view = state.PublicView();
    const v1::PssBoard& board = view.pyramid_scheme().board();
    EXPECT_EQ(board.deck_size(), deck_.size());
    EXPECT_EQ(board.has_deck_top(), !deck_.empty());
    if (!deck_.empty()) {
      EXPECT_EQ(board.deck_top().id(), deck_.front());
    }
    EXPECT_EQ(CardIds(board.discard()), discard_);
    std::set<int64_t> in_play;
    for (const v1::PssGoalView& goal : board.goals()) {
      in_play.insert(goal.goal());
    }
    EXPECT_EQ(in_play.size(), 6u);
    for (int64_t goal : in_play) EXPECT_EQ(unused_goals_.count(goal), 0u);
    for (int s = 0; s < state.num_seats(); ++s) {
      EXPECT_EQ(CardIds(state.ObservationFor(s).pyramid_scheme().hand()),
                hands_[s]);
    }
    // No card of the deck is anywhere else.
    std::vector<int64_t> elsewhere = discard_;
    for (const v1::PssDisplaySlot& slot : board.display()) {
      if (slot.has_card()) elsewhere.push_back(slot.card().id());
    }
    for (const v1::PssSeatView& seat : board.seats()) {
      for (const v1::PssNode& node : seat.pyramid()) {
        elsewhere.push_back(node.card().id());
      }
    }
    for (const std::vector<int64_t>& hand : hands_) {
      elsewhere.insert(elsewhere.end(), hand.begin(), hand.end());
    }
    for (int64_t card : elsewhere) {
      EXPECT_FALSE(absl::c_linear_search(deck_, card)) << card;
    }
  }

  const std::vector<std::vector<int64_t>>& hands() const { return hands_; }
  // The deck below its top card, and the hand cards out of the game.
  std::set<int64_t> FaceDown() const {
    std::set<int64_t> face_down(gone_);
    if (!deck_.empty()) face_down.insert(deck_.begin() + 1, deck_.end());
    return face_down;
  }
  const std::set<int64_t>& unused_goals() const { return unused_goals_; }

 private:
  static void Remove(std::vector<int64_t>& cards, int64_t card) {
    cards.erase(std::remove(cards.begin(), cards.end(), card), cards.end());
  }

  RandomStream stream_;
  std::vector<std::vector<int64_t>> hands_;  // Each ascending.
  std::vector<int64_t> deck_;                // Top first.
  std::vector<int64_t> discard_;             // Oldest first.
  std::set<int64_t> gone_;
  std::set<int64_t> unused_goals_;
};

// Pyramid Scheme: everything hidden from `secrets`, once the engine agrees.
void FillSchemeStep(const SchemeSecrets& secrets, Step& step) {
  secrets.ExpectMatches(*step.state);
  step.hands = secrets.hands();
  step.face_down = secrets.FaceDown();
  step.unused_goals = secrets.unused_goals();
}

// A finished match's log, replayed through the engine.
struct Replay {
  std::string game;
  int num_seats = 0;
  std::string seed;  // The match seed (32 bytes).
  std::string referee_contribution;
  // Every salt and seed contribution each seat revealed.
  std::vector<std::vector<std::string>> revealed;
  // Decision id -> acting seats, for the simultaneous decisions.
  std::map<uint64_t, std::vector<uint32_t>> simultaneous;
  std::vector<Step> steps;
  v1::Outcome outcome;
};

Replay ReplayLog(const std::string& log) {
  Replay replay;
  std::unique_ptr<Game> game;
  std::unique_ptr<SchemeSecrets> secrets;
  std::set<int64_t> seen;
  auto add_step = [&](std::unique_ptr<State> state, const v1::Result* result) {
    Step& step = replay.steps.emplace_back();
    step.state = std::move(state);
    if (secrets != nullptr) {
      FillSchemeStep(*secrets, step);
    } else {
      FillFlamingStep(result, seen, step);
    }
  };
  for (const v1::LogRecord& record : svctest::ParseRecords(log)) {
    switch (record.kind_case()) {
      case v1::LogRecord::kHeader: {
        replay.game = record.header().game().game();
        replay.num_seats = record.header().seats_size();
        replay.revealed.resize(replay.num_seats);
        absl::StatusOr<std::unique_ptr<Game>> made =
            MakeGame(record.header().game());
        EXPECT_TRUE(made.ok()) << made.status();
        if (!made.ok()) return replay;
        game = *std::move(made);
        break;
      }
      case v1::LogRecord::kDecisionOpened: {
        const v1::DecisionOpened& opened = record.decision_opened();
        if (opened.simultaneous()) {
          replay.simultaneous[opened.decision_id()] = {opened.seats().begin(),
                                                       opened.seats().end()};
        }
        break;
      }
      case v1::LogRecord::kReveal: {
        const v1::Reveal& reveal = record.reveal();
        std::vector<std::string>& mine = replay.revealed.at(reveal.seat());
        mine.push_back(reveal.salt());
        v1::Action action;
        if (action.ParseFromString(reveal.action()) && action.has_seed()) {
          mine.push_back(action.seed().contribution());
        }
        break;
      }
      case v1::LogRecord::kSeedReveal: {
        replay.seed = record.seed_reveal().seed();
        replay.referee_contribution =
            record.seed_reveal().referee_contribution();
        EXPECT_EQ(replay.seed.size(), 32u);
        if (game == nullptr || replay.seed.size() != 32u) return replay;
        Digest seed;
        std::copy(replay.seed.begin(), replay.seed.end(), seed.begin());
        absl::StatusOr<std::unique_ptr<State>> state =
            game->NewInitialState(replay.num_seats, RandomStream(seed));
        EXPECT_TRUE(state.ok()) << state.status();
        if (!state.ok()) return replay;
        if (replay.game == kScheme) {
          secrets = std::make_unique<SchemeSecrets>(
              seed, replay.num_seats,
              (*state)->PublicView().pyramid_scheme().cards());
        }
        add_step(*std::move(state), nullptr);
        break;
      }
      case v1::LogRecord::kApplied: {
        if (replay.steps.empty()) return replay;
        std::unique_ptr<State> state = replay.steps.back().state->Clone();
        std::vector<SeatAction> actions;
        for (const v1::Move& move : record.applied().moves()) {
          actions.push_back({static_cast<int>(move.seat()), move.action()});
        }
        absl::StatusOr<v1::Result> result = state->Apply(actions);
        EXPECT_TRUE(result.ok()) << result.status();
        if (!result.ok()) return replay;
        EXPECT_TRUE(
            MessageDifferencer::Equals(*result, record.applied().result()));
        if (secrets != nullptr) secrets->Apply(result->pyramid_scheme());
        add_step(std::move(state), &*result);
        break;
      }
      case v1::LogRecord::kOutcome:
        replay.outcome = record.outcome();
        break;
      default:
        break;
    }
  }
  return replay;
}

// --- The checker ------------------------------------------------------------

// Problems with what `reader` (a seat; -1 for the public view) was shown at
// `step` of a `game` match: `observation` and, in a DecisionRequest, the
// legal actions listed with it.
std::set<std::string> CheckShown(const std::string& game, const Step& step,
                                 int reader, const v1::Observation& observation,
                                 const std::vector<v1::Action>& legal = {}) {
  std::set<std::string> problems;
  const int n = static_cast<int>(step.hands.size());
  if (observation.public_view() != (reader < 0) ||
      (reader >= 0 && static_cast<int>(observation.seat()) != reader)) {
    problems.insert("the view is for someone else");
  }
  // Hands: the reader's own exactly, every other only by its size.
  std::vector<std::vector<int64_t>> hands(n);
  std::vector<int64_t> sizes(n, -1);
  if (game == kFlaming) {
    const v1::FlamingPyramidsObservation& view = observation.flaming_pyramids();
    for (int t = 0; t < n && t < view.seats_size(); ++t) {
      hands[t] = {view.seats(t).own_hand().begin(),
                  view.seats(t).own_hand().end()};
      sizes[t] = view.seats(t).hand_size();
    }
  } else {
    const v1::PyramidSchemeObservation& view = observation.pyramid_scheme();
    for (int t = 0; t < n && t < view.board().seats_size(); ++t) {
      sizes[t] = view.board().seats(t).hand_size();
    }
    if (reader >= 0) {
      hands[reader] = CardIds(view.hand());
    } else if (view.hand_size() > 0) {
      problems.insert("the public view shows a hand");
    }
  }
  for (int t = 0; t < n; ++t) {
    if (sizes[t] != static_cast<int64_t>(step.hands[t].size())) {
      problems.insert(absl::StrCat("seat ", t, "'s hand size is wrong"));
    }
    if (t == reader && hands[t] != step.hands[t]) {
      problems.insert(absl::StrCat("the seat's own hand is shown as [",
                                   absl::StrJoin(hands[t], " "), "], not [",
                                   absl::StrJoin(step.hands[t], " "), "]"));
    } else if (t != reader && !hands[t].empty()) {
      problems.insert(absl::StrCat("seat ", t, "'s hand is shown"));
    }
  }
  // Every piece and goal named anywhere in the observation and actions.
  Mentions mentions;
  Collect(observation, mentions);
  for (const v1::Action& action : legal) Collect(action, mentions);
  for (const std::string& field : mentions.unclassified) {
    problems.insert(absl::StrCat("unclassified field ", field));
  }
  for (int64_t piece : mentions.pieces) {
    if (step.face_down.count(piece)) {
      problems.insert(absl::StrCat("face-down piece ", piece, " is shown"));
    }
    for (int t = 0; t < n; ++t) {
      if (t != reader && absl::c_linear_search(step.hands[t], piece) &&
          !step.seen.count(piece)) {
        problems.insert(
            absl::StrCat("piece ", piece, " of seat ", t, "'s hand is shown"));
      }
    }
  }
  for (int64_t goal : mentions.goals) {
    if (step.unused_goals.count(goal)) {
      problems.insert(absl::StrCat("unused goal ", goal, " is shown"));
    }
  }
  return problems;
}

std::string SeatName(int seat) { return absl::StrCat("seat-", seat); }

std::vector<v1::Action> Legal(const v1::DecisionRequest& request) {
  return {request.legal_actions().begin(), request.legal_actions().end()};
}

// The first step at or after `from` whose view for `reader` (-1: the public
// view) is `observation`, or -1. The referee sends a decision's result only
// after applying the automatic moves that follow it (each of which gets its
// own result, with the same view), so the view of the i-th result may be
// of a later step than i.
int FindStep(const Replay& replay, int from, int reader,
             const v1::Observation& observation) {
  for (int k = std::max(from, 0); k < static_cast<int>(replay.steps.size());
       ++k) {
    const State& state = *replay.steps[k].state;
    if (MessageDifferencer::Equals(
            observation,
            reader < 0 ? state.PublicView() : state.ObservationFor(reader))) {
      return k;
    }
  }
  return -1;
}

// Why `observation` is the view of no step at or after `from`.
std::string NoStep(const Replay& replay, int from, int reader,
                   const v1::Observation& observation) {
  if (from >= static_cast<int>(replay.steps.size())) {
    return "a view after the last step";
  }
  const State& state = *replay.steps[std::max(from, 0)].state;
  return "not the engine's view of a step; the next step differs: " +
         Differences(observation, reader < 0 ? state.PublicView()
                                             : state.ObservationFor(reader));
}

bool SameActions(const std::vector<v1::Action>& a,
                 const std::vector<v1::Action>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const v1::Action& x, const v1::Action& y) {
                      return MessageDifferencer::Equals(x, y);
                    });
}

// Checks every message `seat`'s Play stream received, in order: its bytes,
// that it holds no secret of anyone else, that each view (results and
// decision requests, with their legal actions) is the engine's at a step
// no earlier than the one before, and that it shows nothing hidden from
// the seat at that step. One result per step; the last shows the end.
void CheckSeatStream(const Replay& replay, int seat,
                     const std::vector<EventLog::Event>& events) {
  SCOPED_TRACE(SeatName(seat));
  std::vector<std::string> secrets = {replay.seed, replay.referee_contribution};
  for (int other = 0; other < replay.num_seats; ++other) {
    if (other == seat) continue;
    secrets.insert(secrets.end(), replay.revealed[other].begin(),
                   replay.revealed[other].end());
  }
  int step = -1;  // The step of the last view received.
  int results = 0;
  int received = 0;
  for (const EventLog::Event& event : events) {
    if (event.who != SeatName(seat)) continue;
    ++received;
    v1::PlayResponse message;
    std::set<std::string> problems;
    for (const std::string& p : CheckBytes(event.raw, message)) {
      problems.insert(p);
    }
    for (const std::string& p : CheckNoSecret(event.raw, secrets)) {
      problems.insert(p);
    }
    const v1::Observation* observation = nullptr;
    int from = step;
    std::vector<v1::Action> legal;
    if (message.has_result()) {
      observation = &message.result().observation();
      from = std::max(step, results++);
    } else if (message.has_decision() &&
               message.decision().decision_id() == 0) {
      if (message.decision().has_observation()) {
        problems.insert("the seed decision shows an observation");
      }
    } else if (message.has_decision()) {
      observation = &message.decision().observation();
      legal = Legal(message.decision());
    } else if (message.has_match_ended()) {
      EXPECT_TRUE(MessageDifferencer::Equals(message.match_ended().outcome(),
                                             replay.outcome));
    } else if (message.has_error()) {
      problems.insert(absl::StrCat("error: ", message.error().message()));
    }
    if (observation != nullptr) {
      const int found = FindStep(replay, from, seat, *observation);
      if (found < 0) {
        problems.insert(NoStep(replay, from, seat, *observation));
      } else {
        step = found;
        const Step& at = replay.steps[step];
        if (message.has_decision() &&
            !SameActions(legal, at.state->LegalActions(seat))) {
          problems.insert("not the engine's legal actions");
        }
        for (const std::string& p :
             CheckShown(replay.game, at, seat, *observation, legal)) {
          problems.insert(p);
        }
      }
    }
    if (!problems.empty()) {
      ADD_FAILURE() << "message " << received << " after step " << step << ": "
                    << absl::StrJoin(problems, "; ") << "\n"
                    << message.DebugString();
      return;
    }
  }
  EXPECT_EQ(results, static_cast<int>(replay.steps.size()));
  EXPECT_EQ(step + 1, static_cast<int>(replay.steps.size()));
}

// Checks every Watch event, in order, as CheckSeatStream does for a seat:
// each view is the engine's public view of a step no earlier than the one
// before and holds no hand and nothing hidden; no event holds a secret of
// any seat; the first event is the match and the last its outcome; and no
// view of a simultaneous decision comes before all its commits.
void CheckWatchStream(const Replay& replay,
                      const std::vector<EventLog::Event>& events) {
  std::vector<std::string> secrets = {replay.seed, replay.referee_contribution};
  for (const std::vector<std::string>& mine : replay.revealed) {
    secrets.insert(secrets.end(), mine.begin(), mine.end());
  }
  std::map<uint64_t, std::set<uint32_t>> committed;
  int step = -1;
  int views = 0;
  int simultaneous_views = 0;
  int received = 0;
  bool ended = false;
  WatchedMatch followed;  // The public view, followed through the deltas.
  for (const EventLog::Event& event : events) {
    if (event.who != "watch") continue;
    ++received;
    v1::WatchEvent message;
    std::set<std::string> problems;
    for (const std::string& p : CheckBytes(event.raw, message)) {
      problems.insert(p);
    }
    for (const std::string& p : CheckNoSecret(event.raw, secrets)) {
      problems.insert(p);
    }
    if (ended) problems.insert("an event after the outcome");
    if (received == 1 && !message.has_match()) {
      problems.insert("the first event is not the match");
    }
    if (message.has_commit()) {
      committed[message.commit().decision_id()].insert(message.commit().seat());
    } else if (message.has_fault()) {
      problems.insert("a fault");
    } else if (message.has_outcome()) {
      ended = true;
      EXPECT_TRUE(
          MessageDifferencer::Equals(message.outcome(), replay.outcome));
    } else if (message.has_snapshot()) {
      // The watcher joined before the seed: nothing to show yet.
      if (received != 2) problems.insert("a snapshot after the second event");
      if (message.snapshot().has_view()) {
        problems.insert("a snapshot view before the seed decision");
      }
      followed.Apply(message).IgnoreError();
    } else if (message.has_delta()) {
      if (absl::Status s = followed.Apply(message); !s.ok()) {
        problems.insert(
            absl::StrCat("a delta that does not apply: ", s.message()));
      }
      const uint64_t decision = message.delta().decision_id();
      const auto simultaneous = replay.simultaneous.find(decision);
      if (simultaneous != replay.simultaneous.end()) {
        ++simultaneous_views;
        for (uint32_t seat : simultaneous->second) {
          if (!committed[decision].count(seat)) {
            problems.insert(absl::StrCat("a view of simultaneous decision ",
                                         decision, " before seat ", seat,
                                         " committed"));
          }
        }
      }
      const v1::Observation& view = followed.view();
      const int from = std::max(step, views++);
      const int found = FindStep(replay, from, -1, view);
      if (found < 0) {
        problems.insert(NoStep(replay, from, -1, view));
      } else {
        step = found;
        for (const std::string& p :
             CheckShown(replay.game, replay.steps[step], -1, view)) {
          problems.insert(p);
        }
      }
    }
    if (!problems.empty()) {
      ADD_FAILURE() << "watch event " << received << " after step " << step
                    << ": " << absl::StrJoin(problems, "; ") << "\n"
                    << message.DebugString();
      return;
    }
  }
  EXPECT_TRUE(ended);
  EXPECT_GE(simultaneous_views, 1);  // The seed decision's, at least.
  EXPECT_EQ(views, static_cast<int>(replay.steps.size()));
  EXPECT_EQ(step + 1, static_cast<int>(replay.steps.size()));
}

// --- Negative controls ------------------------------------------------------

// A piece in some hand other than `reader`'s that was never public at
// `step`, or -1.
int64_t HiddenHandPiece(const Step& step, int reader) {
  for (int t = 0; t < static_cast<int>(step.hands.size()); ++t) {
    if (t == reader) continue;
    for (int64_t piece : step.hands[t]) {
      if (!step.seen.count(piece)) return piece;
    }
  }
  return -1;
}

// A leak planted into a real view, and the problem the checker must report.
struct Leak {
  std::string what;
  v1::Observation planted;
  std::string reported;  // A substring of one of the problems.
};

// Copies of `real` (what `reader` was shown at `step`), each with one leak.
std::vector<Leak> PlantedLeaks(const std::string& game, const Step& step,
                               int reader, const v1::Observation& real) {
  const int64_t other = HiddenHandPiece(step, reader);
  const int64_t face_down =
      step.face_down.empty() ? -1 : *step.face_down.rbegin();
  EXPECT_GE(other, 0);
  EXPECT_GE(face_down, 0);
  const auto piece = [](int64_t id) { return static_cast<uint32_t>(id); };
  const int victim = reader == 0 ? 1 : 0;  // A seat other than the reader.
  const std::string other_shown = absl::StrCat("piece ", other, " of seat ");
  const std::string face_down_shown =
      absl::StrCat("face-down piece ", face_down, " is shown");
  std::vector<Leak> leaks;
  auto plant = [&](std::string what, std::string reported) -> v1::Observation& {
    leaks.push_back({std::move(what), real, std::move(reported)});
    return leaks.back().planted;
  };
  if (game == kFlaming) {
    plant("another seat's hand",
          absl::StrCat("seat ", victim, "'s hand is shown"))
        .mutable_flaming_pyramids()
        ->mutable_seats(victim)
        ->add_own_hand(piece(other));
    plant("another seat's hand tile as removed", other_shown)
        .mutable_flaming_pyramids()
        ->add_removed(piece(other));
    plant("a dealt tile face up under a pile", face_down_shown)
        .mutable_flaming_pyramids()
        ->mutable_seats(victim)
        ->add_under(piece(face_down));
    if (reader >= 0) {
      plant("the own hand left out", "the seat's own hand is shown as")
          .mutable_flaming_pyramids()
          ->mutable_seats(reader)
          ->clear_own_hand();
    }
    return leaks;
  }
  plant("another seat's hand card discarded", other_shown)
      .mutable_pyramid_scheme()
      ->mutable_board()
      ->add_discard()
      ->set_id(piece(other));
  plant("a card below the deck's top as its top", face_down_shown)
      .mutable_pyramid_scheme()
      ->mutable_board()
      ->mutable_deck_top()
      ->set_id(piece(face_down));
  const int64_t unused = *step.unused_goals.begin();
  plant("an unused goal in play",
        absl::StrCat("unused goal ", unused, " is shown"))
      .mutable_pyramid_scheme()
      ->mutable_board()
      ->add_goals()
      ->set_goal(piece(unused));
  plant("another seat's card in the hand",
        reader < 0 ? "the public view shows a hand"
                   : "the seat's own hand is shown as")
      .mutable_pyramid_scheme()
      ->add_hand()
      ->set_id(piece(other));
  return leaks;
}

// The checker is not blind: leaks planted into the first view a seat and
// the public received (step 0) are reported, and so are bytes with an
// unknown field, bytes that say more than their fields, and a secret.
void ExpectCheckerCatchesPlantedLeaks(
    const Replay& replay, const std::vector<EventLog::Event>& events) {
  const Step& first = replay.steps.at(0);
  for (const std::string& who : {SeatName(0), std::string("watch")}) {
    SCOPED_TRACE(who);
    const int reader = who == "watch" ? -1 : 0;
    const auto it = std::find_if(
        events.begin(), events.end(), [&](const EventLog::Event& e) {
          return e.who == who && ((e.play && e.play->has_result()) ||
                                  (e.watch && e.watch->has_delta()));
        });
    ASSERT_NE(it, events.end());
    // A watcher's first delta (from no view) holds the whole first view.
    v1::Observation first_view;
    if (it->watch) {
      ASSERT_TRUE(ApplyViewDelta(it->watch->delta(), &first_view).ok());
    }
    const v1::Observation real =
        it->play ? it->play->result().observation() : first_view;
    EXPECT_THAT(CheckShown(replay.game, first, reader, real), IsEmpty());
    for (const Leak& leak : PlantedLeaks(replay.game, first, reader, real)) {
      EXPECT_THAT(CheckShown(replay.game, first, reader, leak.planted),
                  Contains(HasSubstr(leak.reported)))
          << leak.what;
    }
    std::unique_ptr<Message> parsed(
        reader < 0 ? static_cast<Message*>(new v1::WatchEvent())
                   : new v1::PlayResponse());
    EXPECT_THAT(CheckBytes(it->raw, *parsed), IsEmpty());
    // Field 1000, varint 1: unknown to every message here.
    EXPECT_THAT(CheckBytes(it->raw + std::string("\xc0\x3e\x01", 3), *parsed),
                Contains(HasSubstr("unknown field")));
    // A second, empty copy of the top-level message field: the same fields,
    // but more bytes than they serialize to.
    const std::string top(1, it->raw[0]);
    EXPECT_THAT(CheckBytes(it->raw + top + std::string(1, '\0'), *parsed),
                Contains(HasSubstr("not the serialization")));
    EXPECT_THAT(CheckNoSecret(it->raw + replay.seed, {replay.seed}),
                Contains(HasSubstr("is sent")));
  }
}

// --- The matches ------------------------------------------------------------

struct MatchCase {
  std::string name;  // The test's name suffix.
  std::string game;
  int seats = 0;
  bool curse = false;
};

void PrintTo(const MatchCase& c, std::ostream* out) { *out << c.name; }

class HiddenInfoTest : public ::testing::TestWithParam<MatchCase> {
 protected:
  void SetUp() override {
    TestRefereeOptions options;
    options.dir_prefix = "hidden";
    referee_ = std::make_unique<TestReferee>(options);
    ASSERT_TRUE(referee_->ok());
  }

  std::unique_ptr<TestReferee> referee_;
};

TEST_P(HiddenInfoTest, EveryMessageOfAFullMatchShowsOnlyWhatItsReaderMaySee) {
  const MatchCase& c = GetParam();
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game(c.game);
  if (c.curse)
    request.mutable_game()->mutable_flaming_pyramids()->set_curse(true);
  for (int seat = 0; seat < c.seats; ++seat) request.add_seats();
  v1::CreateMatchResponse created;
  {
    grpc::ClientContext context;
    svctest::Authorize(context, referee_->admin_token());
    const grpc::Status status =
        referee_->stub().CreateMatch(&context, request, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const std::string& match = created.match_id();

  // The watcher is in before any seat plays; then every seat plays.
  EventLog log;
  WatchClient watch(referee_->NewChannel(), match, "watch", &log);
  ASSERT_TRUE(
      watch.AwaitEvent([](const v1::WatchEvent& e) { return e.has_match(); }));
  std::vector<std::unique_ptr<PlayClient>> seats;
  std::vector<std::unique_ptr<RandomPlayer>> players;  // Go before seats.
  for (int seat = 0; seat < c.seats; ++seat) {
    seats.push_back(std::make_unique<PlayClient>(referee_->NewChannel(),
                                                 created.seat_tokens(seat),
                                                 SeatName(seat), &log));
    Digest seed{};
    seed[0] = static_cast<uint8_t>(seat);
    players.push_back(std::make_unique<RandomPlayer>(*seats.back(), seed));
  }
  for (int seat = 0; seat < c.seats; ++seat) {
    ASSERT_TRUE(seats[seat]->Await(svctest::IsEnded(match, seat), kMatchTime))
        << SeatName(seat) << " saw no end after "
        << seats[seat]->Messages().size() << " messages";
  }
  ASSERT_TRUE(watch.AwaitEnd(kMatchTime).ok());

  std::string bytes;
  const grpc::Status fetched = svctest::FetchLog(
      referee_->stub(), match, referee_->admin_token(), &bytes);
  ASSERT_TRUE(fetched.ok()) << fetched.error_message();
  const Verdict verdict = svctest::VerifyBytes(bytes, referee_->public_key());
  ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine) << verdict.reason;
  const Replay replay = ReplayLog(bytes);
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ(replay.game, c.game);
  ASSERT_GE(replay.steps.size(), 2u);
  EXPECT_TRUE(MessageDifferencer::Equals(replay.outcome, verdict.outcome));
  EXPECT_NE(replay.outcome.termination(), v1::TERMINATION_FORFEIT);

  const std::vector<EventLog::Event> events = log.Snapshot();
  for (int seat = 0; seat < c.seats; ++seat) {
    CheckSeatStream(replay, seat, events);
  }
  CheckWatchStream(replay, events);
  ExpectCheckerCatchesPlantedLeaks(replay, events);
}

INSTANTIATE_TEST_SUITE_P(
    Matches, HiddenInfoTest,
    ::testing::Values(MatchCase{"FlamingPyramids2", kFlaming, 2, false},
                      MatchCase{"FlamingPyramids3Curse", kFlaming, 3, true},
                      MatchCase{"FlamingPyramids4", kFlaming, 4, false},
                      MatchCase{"FlamingPyramids5Curse", kFlaming, 5, true},
                      MatchCase{"FlamingPyramids6", kFlaming, 6, false},
                      MatchCase{"PyramidScheme2", kScheme, 2, false},
                      MatchCase{"PyramidScheme3", kScheme, 3, false},
                      MatchCase{"PyramidScheme4", kScheme, 4, false}),
    [](const ::testing::TestParamInfo<MatchCase>& info) {
      return info.param.name;
    });

// Every integer field of the two games' observations and actions is
// classified by FieldNames(), so none can carry a piece or goal unchecked.
TEST(HiddenInfoSchemaTest, EveryIntegerFieldIsClassified) {
  std::set<std::string> types, unclassified;
  for (const Descriptor* type : {v1::FlamingPyramidsObservation::descriptor(),
                                 v1::FlamingPyramidsAction::descriptor(),
                                 v1::PyramidSchemeObservation::descriptor(),
                                 v1::PyramidSchemeAction::descriptor()}) {
    Unclassified(*type, types, unclassified);
  }
  EXPECT_THAT(unclassified, IsEmpty());
  EXPECT_GE(types.size(), 20u);  // The walk reached the nested messages.
}

}  // namespace
}  // namespace pyramid

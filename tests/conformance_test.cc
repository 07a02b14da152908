// The all-games conformance test (OpenSpiel's RandomSimulation is the
// model): many seeded random games of every game and option set, checking
// the rules interface's contract (referee/games/game.h) at every step, then
// the same number of seeded matches through the referee core, whose logs
// must verify.
//
// A game joins by adding one line to kGames below.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"
#include "replay/verifier.h"
#include "tests/sanitizers.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// One game configuration under test.
struct GameCase {
  const char* name;        // Test name suffix.
  const char* config;      // v1::GameConfig in protobuf text format.
  std::vector<int> seats;  // Seat counts to play (matches alternate).
  int matches;             // Seeded games; as many matches through Match.
};

// Every game and option set. 4 x 250 = 1,000 seeded games of
// rock_paper_pyramid, and as many verified matches.
const GameCase kGames[] = {
    {"RppClassic", R"pb(game: "rock_paper_pyramid")pb", {3}, 250},
    {"RppRed",
     R"pb(game: "rock_paper_pyramid"
          rock_paper_pyramid { red: true })pb",
     {3},
     250},
    {"RppAll",
     R"pb(game: "rock_paper_pyramid"
          rock_paper_pyramid { winner_takes: RPP_TAKES_ALL })pb",
     {3},
     250},
    {"RppRedAll",
     R"pb(game: "rock_paper_pyramid"
          rock_paper_pyramid { winner_takes: RPP_TAKES_ALL red: true })pb",
     {3},
     250},
    {"FpPlain", R"pb(game: "flaming_pyramids")pb", {2, 3, 4, 5, 6}, 500},
    {"FpCurse",
     R"pb(game: "flaming_pyramids"
          flaming_pyramids { curse: true })pb",
     {2, 3, 4, 5, 6},
     500},
    {"Shambo",
     R"pb(game: "pyramid_shambo")pb",
     {2, 3, 4, 5, 6, 7, 8, 9, 10},
     1000},
    // Games the move limit ends (or not: a few throws may do).
    {"ShamboShort",
     R"pb(game: "pyramid_shambo"
          pyramid_shambo { max_throws: 6 })pb",
     {2, 3, 4, 5, 6, 7, 8, 9, 10},
     200},
    {"Scheme", R"pb(game: "pyramid_scheme")pb", {2, 3, 4}, 1000},
};

// Names the case in test output (instead of its bytes).
void PrintTo(const GameCase& game, std::ostream* os) { *os << game.name; }

// Each game's seeds are split into this many test cases (run in parallel by
// ctest).
constexpr int kShards = 4;

// A guard against a game that never ends.
constexpr int kMaxSteps = 100000;
// Per acting seat and step, at most: legal actions checked with
// ValidateAction, earlier actions tried as candidates, and illegal actions
// tried with Apply (each of which costs a comparison of every view). Games
// with large action sets are sampled; small ones are checked exhaustively.
constexpr size_t kLegalChecksPerSeat = 24;
constexpr size_t kSeenCandidates = 24;
constexpr size_t kRandomCandidates = 4;
constexpr size_t kIllegalAppliesPerSeat = 6;

std::string Serialize(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

v1::GameConfig ParseConfig(const GameCase& game) {
  v1::GameConfig config;
  EXPECT_TRUE(
      google::protobuf::TextFormat::ParseFromString(game.config, &config))
      << game.config;
  return config;
}

Digest SeedOf(std::string_view label, const GameCase& game, uint64_t n) {
  return Sha256(absl::StrCat(std::string(label), "/", game.name, "/", n));
}

// What a state shows: the public view, every seat's observation, who acts,
// and the outcome once terminal. A refused action must leave all of it as
// it was; a clone must show the same.
std::string Fingerprint(const State& state) {
  std::string out = Serialize(state.PublicView());
  absl::StrAppend(&out, "|terminal=", state.IsTerminal(),
                  "|simultaneous=", state.IsSimultaneous(), "|acting=");
  for (int seat : state.ActingSeats()) absl::StrAppend(&out, seat, ",");
  for (int seat = 0; seat < state.num_seats(); ++seat) {
    absl::StrAppend(&out, "|seat", seat, "=",
                    Serialize(state.ObservationFor(seat)));
  }
  if (state.IsTerminal()) {
    absl::StrAppend(&out, "|outcome=", Serialize(state.Outcome()));
  }
  return out;
}

// Every seat's legal actions (computed once per step: they can be costly).
using LegalLists = std::vector<std::vector<v1::Action>>;
LegalLists AllLegalActions(const State& state) {
  LegalLists legal(state.num_seats());
  for (int seat = 0; seat < state.num_seats(); ++seat) {
    legal[seat] = state.LegalActions(seat);
  }
  return legal;
}

std::vector<std::string> SerializeAll(const std::vector<v1::Action>& actions) {
  std::vector<std::string> out;
  out.reserve(actions.size());
  for (const v1::Action& action : actions) out.push_back(Serialize(action));
  return out;
}

// Copies of `base`, each with one scalar field (reached from the Action
// through the message fields in `path`) set to a value no game accepts: an
// unknown enum value, a huge or negative number. Malformed actions of the
// right kind, built generically for every game's action message.
void AddMutations(const v1::Action& base,
                  std::vector<const google::protobuf::FieldDescriptor*> path,
                  const google::protobuf::Message& at,
                  std::vector<v1::Action>& out) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::Message;
  std::vector<const FieldDescriptor*> fields;
  at.GetReflection()->ListFields(at, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->is_repeated()) continue;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      path.push_back(field);
      AddMutations(base, path, at.GetReflection()->GetMessage(at, field), out);
      path.pop_back();
      continue;
    }
    auto mutate = [&](auto set) {
      v1::Action copy = base;
      Message* m = &copy;
      for (const FieldDescriptor* step : path) {
        m = m->GetReflection()->MutableMessage(m, step);
      }
      set(*m->GetReflection(), m);
      out.push_back(std::move(copy));
    };
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_ENUM:
        for (int value : {0, 99, -1}) {
          mutate([&](const auto& r, Message* m) {
            r.SetEnumValue(m, field, value);
          });
        }
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        mutate([&](const auto& r, Message* m) {
          r.SetUInt32(m, field, 1u << 30);
        });
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        mutate([&](const auto& r, Message* m) { r.SetInt32(m, field, -1); });
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        mutate([&](const auto& r, Message* m) {
          r.SetUInt64(m, field, uint64_t{1} << 62);
        });
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        mutate([&](const auto& r, Message* m) { r.SetInt64(m, field, -1); });
        break;
      default:
        break;
    }
  }
}

// Sets `message` to random small values: one field of each oneof, about
// half of the other fields, up to two entries of a repeated field. Numbers
// are mostly small (ids, rows, slots, seats), so that many candidates are
// well-formed actions that are illegal now.
void Randomize(google::protobuf::Message& message, RandomStream& probe,
               int depth = 0) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  auto number = [&probe] {
    return probe.Uniform(2) == 0 ? probe.Uniform(8) : probe.Uniform(100);
  };
  auto fill = [&](const FieldDescriptor* field) {
    const int copies =
        field->is_repeated() ? static_cast<int>(probe.Uniform(3)) : 1;
    for (int i = 0; i < copies; ++i) {
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_MESSAGE:
          if (depth < 4) {
            Randomize(field->is_repeated()
                          ? *reflection->AddMessage(&message, field)
                          : *reflection->MutableMessage(&message, field),
                      probe, depth + 1);
          }
          break;
        case FieldDescriptor::CPPTYPE_ENUM: {
          const google::protobuf::EnumDescriptor* type = field->enum_type();
          const int value =
              type->value(static_cast<int>(probe.Uniform(type->value_count())))
                  ->number();
          field->is_repeated()
              ? reflection->AddEnumValue(&message, field, value)
              : reflection->SetEnumValue(&message, field, value);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT32: {
          const auto value = static_cast<uint32_t>(number());
          field->is_repeated() ? reflection->AddUInt32(&message, field, value)
                               : reflection->SetUInt32(&message, field, value);
          break;
        }
        case FieldDescriptor::CPPTYPE_INT32: {
          const auto value = static_cast<int32_t>(number()) - 4;
          field->is_repeated() ? reflection->AddInt32(&message, field, value)
                               : reflection->SetInt32(&message, field, value);
          break;
        }
        case FieldDescriptor::CPPTYPE_BOOL: {
          const bool value = probe.Uniform(2) == 1;
          field->is_repeated() ? reflection->AddBool(&message, field, value)
                               : reflection->SetBool(&message, field, value);
          break;
        }
        default:
          break;
      }
    }
  };
  for (int i = 0; i < descriptor->oneof_decl_count(); ++i) {
    const google::protobuf::OneofDescriptor* oneof = descriptor->oneof_decl(i);
    fill(oneof->field(static_cast<int>(probe.Uniform(oneof->field_count()))));
  }
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->containing_oneof() == nullptr && probe.Uniform(2) == 1) {
      fill(field);
    }
  }
}

// A random action of the game's own kind: the kind of `model`, one of the
// game's actions, with its own message randomized.
v1::Action RandomAction(const v1::Action& model, RandomStream& probe) {
  v1::Action action;
  const google::protobuf::FieldDescriptor* kind =
      model.GetReflection()->GetOneofFieldDescriptor(
          model, v1::Action::descriptor()->FindOneofByName("kind"));
  if (kind == nullptr) return action;
  Randomize(*action.GetReflection()->MutableMessage(&action, kind), probe);
  return action;
}

// Every action that was legal for some seat at some point of one game.
struct Seen {
  void Add(const v1::Action& action, const std::string& serialized) {
    if (bytes.insert(serialized).second) actions.push_back(action);
  }
  std::vector<v1::Action> actions;
  std::set<std::string> bytes;
};

// Up to `k` of `items`, chosen by `probe` (all of them when there are few).
template <typename T>
std::vector<T> Sample(std::vector<T> items, size_t k, RandomStream& probe) {
  if (items.size() > k) {
    probe.Shuffle(items);
    items.resize(k);
  }
  return items;
}

// Candidate actions that may be illegal for some seat now: structurally
// wrong ones, mutations of legal ones, random ones of the game's kind, and
// actions that were legal for some seat at some earlier point (e.g. a piece
// already played). Unique.
std::vector<v1::Action> Candidates(const State& state, const LegalLists& legal,
                                   const Seen& seen, RandomStream& probe) {
  std::vector<size_t> indices(seen.actions.size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  std::vector<v1::Action> candidates;
  for (size_t i : Sample(std::move(indices), kSeenCandidates, probe)) {
    candidates.push_back(seen.actions[i]);
  }
  candidates.emplace_back();  // No kind at all.
  v1::Action seed;
  seed.mutable_seed()->set_contribution(std::string(32, 's'));
  candidates.push_back(seed);
  for (int seat : state.ActingSeats()) {
    // One legal action per seat is enough to mutate.
    if (!legal[seat].empty()) {
      AddMutations(legal[seat][0], {}, legal[seat][0], candidates);
    }
  }
  const std::vector<int> acting = state.ActingSeats();
  if (!acting.empty()) {
    const v1::Action model = state.DefaultAction(acting[0]);
    for (size_t i = 0; i < kRandomCandidates; ++i) {
      candidates.push_back(RandomAction(model, probe));
    }
  }
  std::vector<v1::Action> unique;
  std::set<std::string> bytes;
  for (v1::Action& candidate : candidates) {
    if (bytes.insert(Serialize(candidate)).second) {
      unique.push_back(std::move(candidate));
    }
  }
  return unique;
}

// Valid competition ranks for `outcome` of `num_seats` seats: rank =
// 1 + number of seats ranked strictly better.
void ExpectCompetitionRanks(const v1::Outcome& outcome, int num_seats) {
  ASSERT_EQ(outcome.seats_size(), num_seats);
  for (const v1::SeatOutcome& seat : outcome.seats()) {
    uint32_t better = 0;
    for (const v1::SeatOutcome& other : outcome.seats()) {
      better += other.rank() < seat.rank() ? 1 : 0;
    }
    EXPECT_EQ(seat.rank(), better + 1) << outcome.ShortDebugString();
  }
}

class ConformanceTest
    : public ::testing::TestWithParam<std::tuple<GameCase, int>> {
 protected:
  const GameCase& game() const { return std::get<0>(GetParam()); }
  // The seeds of this shard: all of them in the release build; under the
  // sanitizers (tests/sanitizers.h) every sixteenth, four times the volume
  // tests' stride: at ten times the release build's cost per seed there,
  // this test would otherwise be their largest by far.
  std::vector<uint64_t> Seeds() const {
    const int stride = kUnderSanitizers ? 4 * kSanitizerStride : 1;
    std::vector<uint64_t> seeds;
    for (int n = std::get<1>(GetParam()); n < game().matches;
         n += kShards * stride) {
      seeds.push_back(n);
    }
    return seeds;
  }
  int SeatsFor(uint64_t seed) const {
    return game().seats[seed % game().seats.size()];
  }
};

// Checks the contract at one non-terminal or terminal step. `probe` picks
// probe actions and samples (its own stream, so checks never change the game
// played).
void CheckStep(const State& state, size_t max_action_bytes,
               const LegalLists& legal, Seen& seen, RandomStream& probe) {
  const int n = state.num_seats();
  const std::vector<int> acting = state.ActingSeats();
  ASSERT_EQ(state.IsTerminal(), acting.empty());
  ASSERT_TRUE(std::is_sorted(acting.begin(), acting.end()));
  ASSERT_EQ(std::adjacent_find(acting.begin(), acting.end()), acting.end());
  for (int seat : acting) {
    ASSERT_TRUE(seat >= 0 && seat < n) << seat;
  }
  if (acting.size() == 1) {
    EXPECT_FALSE(state.IsSimultaneous());
  }
  auto is_acting = [&acting](int seat) {
    return std::find(acting.begin(), acting.end(), seat) != acting.end();
  };

  // Legal actions: sorted by serialized bytes, unique, each valid.
  ASSERT_EQ(legal.size(), static_cast<size_t>(n));
  for (int seat = 0; seat < n; ++seat) {
    if (!is_acting(seat)) {
      EXPECT_TRUE(legal[seat].empty()) << "non-acting seat " << seat;
      continue;
    }
    if (state.ListsLegalActions()) {
      ASSERT_FALSE(legal[seat].empty()) << "acting seat " << seat;
    }
    const std::vector<std::string> bytes = SerializeAll(legal[seat]);
    for (size_t i = 1; i < bytes.size(); ++i) {
      ASSERT_LT(bytes[i - 1], bytes[i])
          << "seat " << seat << ": legal actions " << i - 1 << " and " << i
          << " are not sorted and unique: "
          << legal[seat][i - 1].ShortDebugString() << " / "
          << legal[seat][i].ShortDebugString();
    }
    std::vector<size_t> indices(legal[seat].size());
    for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
    for (size_t i : Sample(indices, kLegalChecksPerSeat, probe)) {
      EXPECT_TRUE(state.ValidateAction(seat, legal[seat][i]).ok())
          << legal[seat][i].ShortDebugString();
      seen.Add(legal[seat][i], bytes[i]);
    }
    // Every legal action fits the game's action size (docs/protocol.md,
    // "Action size").
    for (const std::string& b : bytes) {
      ASSERT_LE(b.size(), max_action_bytes)
          << "a legal action of seat " << seat;
    }
    // The default action is legal (listed, when the game lists), and fits
    // too.
    const v1::Action fallback = state.DefaultAction(seat);
    EXPECT_TRUE(state.ValidateAction(seat, fallback).ok())
        << fallback.ShortDebugString();
    if (state.ListsLegalActions()) {
      EXPECT_TRUE(
          std::binary_search(bytes.begin(), bytes.end(), Serialize(fallback)))
          << "default not listed: " << fallback.ShortDebugString();
    }
    EXPECT_LE(fallback.ByteSizeLong(), max_action_bytes)
        << fallback.ShortDebugString();
    // The sole legal action, when there is one, is the automatic move.
    const std::optional<v1::Action> sole = state.SoleLegalAction(seat);
    if (sole.has_value()) {
      EXPECT_EQ(acting.size(), 1u);
      EXPECT_TRUE(state.ValidateAction(seat, *sole).ok());
      if (state.ListsLegalActions()) {
        ASSERT_EQ(legal[seat].size(), 1u);
        EXPECT_EQ(Serialize(*sole), bytes[0]);
      }
    } else if (acting.size() == 1 && state.ListsLegalActions()) {
      EXPECT_NE(legal[seat].size(), 1u);
    }
  }

  // Only acting seats may act: a non-acting seat is refused with
  // FAILED_PRECONDITION even for an action legal for an acting seat.
  for (int seat = 0; seat < n; ++seat) {
    if (is_acting(seat)) continue;
    std::vector<v1::Action> probes = {v1::Action()};
    if (!acting.empty()) {
      probes.push_back(state.DefaultAction(acting[0]));
      if (!legal[acting[0]].empty()) probes.push_back(legal[acting[0]][0]);
    }
    if (!seen.actions.empty()) {
      probes.push_back(seen.actions[probe.Uniform(seen.actions.size())]);
    }
    for (const v1::Action& action : probes) {
      EXPECT_EQ(state.ValidateAction(seat, action).code(),
                absl::StatusCode::kFailedPrecondition)
          << "seat " << seat << " " << action.ShortDebugString();
    }
  }
  EXPECT_EQ(state.ValidateAction(-1, v1::Action()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(state.ValidateAction(n, v1::Action()).code(),
            absl::StatusCode::kFailedPrecondition);

  // Outcomes.
  ExpectCompetitionRanks(state.StoppedOutcome(), n);
  if (state.IsTerminal()) ExpectCompetitionRanks(state.Outcome(), n);
}

// Checks that every illegal candidate is refused by ValidateAction, and a
// sample of them (kIllegalAppliesPerSeat per seat) by Apply, and that
// refused Applies leave the state exactly as it was (`before` is its
// fingerprint, compared once after all the attempts: comparing every view
// is what costs).
void CheckIllegalRefused(State& state, const std::string& before,
                         const LegalLists& legal_lists,
                         const std::vector<SeatAction>& chosen,
                         const Seen& seen, RandomStream& probe) {
  std::string tried;  // For the failure message.
  const std::vector<v1::Action> candidates =
      Candidates(state, legal_lists, seen, probe);
  for (size_t i = 0; i < chosen.size(); ++i) {
    const int seat = chosen[i].seat;
    std::set<std::string> legal;
    for (std::string& bytes : SerializeAll(legal_lists[seat])) {
      legal.insert(std::move(bytes));
    }
    std::vector<const v1::Action*> illegal;
    for (const v1::Action& candidate : candidates) {
      if (state.ListsLegalActions()
              ? legal.count(Serialize(candidate)) == 0
              : !state.ValidateAction(seat, candidate).ok()) {
        illegal.push_back(&candidate);
      }
    }
    for (const v1::Action* candidate : illegal) {
      const absl::Status status = state.ValidateAction(seat, *candidate);
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
          << status << " for seat " << seat << ": "
          << candidate->ShortDebugString();
    }
    std::vector<SeatAction> actions = chosen;
    for (const v1::Action* candidate :
         Sample(illegal, kIllegalAppliesPerSeat, probe)) {
      actions[i].action = *candidate;
      EXPECT_FALSE(state.Apply(actions).ok()) << candidate->ShortDebugString();
      absl::StrAppend(&tried, " {seat ", seat, ": ",
                      candidate->ShortDebugString(), "}");
    }
  }
  // Wrong shapes: too few actions, too many, seats out of order.
  if (!chosen.empty()) {
    std::vector<SeatAction> fewer(chosen.begin(), chosen.end() - 1);
    EXPECT_FALSE(state.Apply(fewer).ok());
    std::vector<SeatAction> more = chosen;
    more.push_back(chosen.back());
    EXPECT_FALSE(state.Apply(more).ok());
  }
  if (chosen.size() >= 2) {
    std::vector<SeatAction> swapped = chosen;
    std::swap(swapped[0].seat, swapped[1].seat);
    EXPECT_FALSE(state.Apply(swapped).ok());
  }
  ASSERT_TRUE(Fingerprint(state) == before)
      << "state changed by a refused Apply: one of the illegal actions" << tried
      << " or a short, long or misordered action list";
}

// One seeded random game. With `full_checks`, checks the whole contract at
// every step, and that a clone taken at every step (and one taken at the
// start) is indistinguishable and evolves identically. Returns a digest of
// the final state (for the determinism check).
std::string Simulate(const Game& game, int num_seats, const Digest& seed,
                     const Digest& player_seed, bool full_checks) {
  absl::StatusOr<std::unique_ptr<State>> initial =
      game.NewInitialState(num_seats, RandomStream(seed));
  EXPECT_TRUE(initial.ok()) << initial.status();
  if (!initial.ok()) return "";
  std::unique_ptr<State> state = *std::move(initial);
  EXPECT_EQ(state->num_seats(), num_seats);
  std::unique_ptr<State> twin = full_checks ? state->Clone() : nullptr;
  RandomStream rng(player_seed);
  RandomStream probe(Sha256(AsView(player_seed)));
  Seen seen;
  std::string fingerprint;  // Of *state, when full_checks; kept up to date.
  if (full_checks) fingerprint = Fingerprint(*state);
  int steps = 0;
  for (; steps < kMaxSteps; ++steps) {
    const LegalLists legal =
        full_checks ? AllLegalActions(*state) : LegalLists();
    if (full_checks) {
      CheckStep(*state, game.max_action_bytes(), legal, seen, probe);
      if (::testing::Test::HasFatalFailure()) return "";
    }
    if (state->IsTerminal()) break;
    std::vector<SeatAction> chosen;
    for (int seat : state->ActingSeats()) {
      const std::vector<v1::Action> own =
          full_checks ? legal[seat] : state->LegalActions(seat);
      chosen.push_back({seat, own.empty() ? state->DefaultAction(seat)
                                          : own[rng.Uniform(own.size())]});
    }
    if (!full_checks) {
      absl::StatusOr<v1::Result> result = state->Apply(chosen);
      EXPECT_TRUE(result.ok()) << result.status();
      if (!result.ok()) return "";
      continue;
    }
    CheckIllegalRefused(*state, fingerprint, legal, chosen, seen, probe);
    if (::testing::Test::HasFatalFailure()) return "";
    // A fresh clone is indistinguishable and moves in step.
    std::unique_ptr<State> clone = state->Clone();
    EXPECT_TRUE(Fingerprint(*clone) == fingerprint) << "clone differs";
    for (const SeatAction& action : chosen) {
      EXPECT_TRUE(SerializeAll(clone->LegalActions(action.seat)) ==
                  SerializeAll(legal[action.seat]))
          << "clone has other legal actions for seat " << action.seat;
    }
    absl::StatusOr<v1::Result> result = state->Apply(chosen);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return "";
    absl::StatusOr<v1::Result> clone_result = clone->Apply(chosen);
    absl::StatusOr<v1::Result> twin_result = twin->Apply(chosen);
    EXPECT_TRUE(clone_result.ok() && twin_result.ok());
    if (!clone_result.ok() || !twin_result.ok()) return "";
    EXPECT_EQ(Serialize(*clone_result), Serialize(*result));
    EXPECT_EQ(Serialize(*twin_result), Serialize(*result));
    fingerprint = Fingerprint(*state);
    EXPECT_TRUE(Fingerprint(*clone) == fingerprint)
        << "clone evolved differently";
  }
  EXPECT_LT(steps, kMaxSteps) << "the game did not end";
  if (full_checks) {
    EXPECT_TRUE(Fingerprint(*twin) == Fingerprint(*state))
        << "a clone of the initial state ended differently";
  }
  return ToHex(AsView(Sha256(Fingerprint(*state))));
}

TEST_P(ConformanceTest, RandomSimulation) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame(ParseConfig(this->game()));
  ASSERT_TRUE(game.ok()) << game.status();
  for (uint64_t n : Seeds()) {
    SCOPED_TRACE(absl::StrCat("seed ", n));
    const int seats = SeatsFor(n);
    ASSERT_GE(seats, (*game)->min_seats());
    ASSERT_LE(seats, (*game)->max_seats());
    const Digest seed = SeedOf("game", this->game(), n);
    const Digest players = SeedOf("players", this->game(), n);
    const std::string end = Simulate(**game, seats, seed, players, true);
    ASSERT_FALSE(HasFailure());
    // Deterministic: the same seeds give the same game.
    EXPECT_EQ(Simulate(**game, seats, seed, players, false), end);
  }
}

TEST_P(ConformanceTest, MatchLogsVerify) {
  const v1::GameConfig config = ParseConfig(game());
  const SigningKey key = *SigningKey::FromSeed(std::string(32, '\x33'));
  constexpr uint32_t kIntervals[] = {0, 1, 2, 3, 5, 16, 64};
  for (uint64_t n : Seeds()) {
    SCOPED_TRACE(absl::StrCat("seed ", n));
    const int seats = SeatsFor(n);
    std::string log;
    v1::Outcome outcome;
    {
      FakeClock clock;
      const EntropySource entropy =
          DeterministicEntropy(SeedOf("match", game(), n));
      MatchConfig match_config;
      match_config.game = config;
      match_config.seats.resize(seats);
      match_config.checkpoint_interval = kIntervals[n % std::size(kIntervals)];
      match_config.forfeit_policy = n % 2 == 0
                                        ? v1::FORFEIT_POLICY_FORFEIT
                                        : v1::FORFEIT_POLICY_DEFAULT_ACTION;
      absl::StatusOr<std::unique_ptr<Match>> match =
          Match::Create(match_config, key,
                        std::make_unique<StringLogSink>(&log), &clock, entropy);
      ASSERT_TRUE(match.ok()) << match.status();
      std::vector<std::unique_ptr<RandomPlayer>> players;
      std::vector<Player*> seat_players;
      for (int s = 0; s < seats; ++s) {
        players.push_back(std::make_unique<RandomPlayer>(
            SeedOf(absl::StrCat("player", s), game(), n)));
        seat_players.push_back(players.back().get());
      }
      const absl::Status status = RunLocalMatch(**match, seat_players, entropy);
      ASSERT_TRUE(status.ok()) << status;
      ASSERT_TRUE((*match)->finished());
      outcome = (*match)->outcome();
    }
    VerifyOptions options;
    options.pinned_key = key.public_key();
    const Verdict verdict = VerifyLog(log, options);
    ASSERT_EQ(verdict.kind, Verdict::Kind::kGenuine)
        << "record " << verdict.bad_record << ": " << verdict.reason;
    EXPECT_EQ(Serialize(verdict.outcome), Serialize(outcome));
    EXPECT_NE(outcome.termination(), v1::TERMINATION_FORFEIT);
    ExpectCompetitionRanks(outcome, seats);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllGames, ConformanceTest,
    ::testing::Combine(::testing::ValuesIn(kGames),
                       ::testing::Range(0, kShards)),
    [](const ::testing::TestParamInfo<std::tuple<GameCase, int>>& info) {
      return absl::StrCat(std::get<0>(info.param).name, "_Shard",
                          std::get<1>(info.param));
    });

// Every registered game must have a line in kGames.
TEST(ConformanceCoverageTest, EveryRegisteredGameIsListed) {
  std::string missing;
  for (const std::string& id : GameIds()) {
    bool listed = false;
    for (const GameCase& game : kGames) {
      listed = listed || ParseConfig(game).game() == id;
    }
    if (!listed) absl::StrAppend(&missing, missing.empty() ? "" : ", ", id);
  }
  EXPECT_TRUE(missing.empty()) << "not in kGames: " << missing;
}

}  // namespace
}  // namespace pyramid

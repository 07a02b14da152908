// The rules interface shared by every game (the OpenSpiel shape).
//
// A Game is an immutable description (game id plus validated options) that
// makes States. A State is one position: it says which seats must act now and
// whether they act simultaneously, validates and applies their actions,
// redacts observations, lists legal actions where practical and reports the
// outcome. Actions, observations and results are the protobuf messages of
// proto/pyramid/referee/v1/, so bots, logs and the engine share one
// vocabulary.
//
// Contract for every implementation (the conformance test checks it):
//   * Pure and deterministic: no I/O, no clocks, no global state, no floating
//     point, no iteration over unordered containers. All randomness comes
//     from the RandomStream handed to NewInitialState: the State's
//     constructor makes the setup draws from it, and a game that draws
//     later (Pyramid Scheme's reshuffles) keeps it in its State.
//   * Untrusted input (a seat's action) is checked by ValidateAction and
//     refused with a Status; a refused Apply leaves the State unchanged.
//   * Several decisions inside one turn (payments, fall directions, reward
//     targets) are simply successive States with their own acting seats.
#ifndef PYRAMID_REFEREE_GAMES_GAME_H_
#define PYRAMID_REFEREE_GAMES_GAME_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/game.pb.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/description.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

// One seat's action in a decision.
struct SeatAction {
  int seat = 0;
  v1::Action action;
};

class State {
 public:
  virtual ~State() = default;

  virtual int num_seats() const = 0;

  // True once the game is over (then ActingSeats() is empty).
  virtual bool IsTerminal() const = 0;

  // The seats that must act now, ascending. Empty iff terminal.
  virtual std::vector<int> ActingSeats() const = 0;

  // True when the acting seats choose at once, each without seeing the
  // others' choices. A single acting seat is never simultaneous.
  virtual bool IsSimultaneous() const = 0;

  // True iff `seat` is one of ActingSeats(). The default asks
  // ActingSeats(); games answer without making the vector (it is asked on
  // every action's check).
  virtual bool IsActing(int seat) const;

  // OK iff `seat` is acting and `action` is legal for it now. The checks
  // every game shares are made here: FAILED_PRECONDITION "<game id>: the
  // game is over" or "<game id>: seat N is not acting", INVALID_ARGUMENT
  // for an action of another kind than the game's; then the game's own
  // (DoValidateAction): INVALID_ARGUMENT for a malformed or illegal action.
  // Never changes the state.
  absl::Status ValidateAction(int seat, const v1::Action& action) const;

  // Applies exactly one action per acting seat, given in ascending seat
  // order. Every action is validated first; if any is refused the state is
  // unchanged and the first error is returned. On success returns what the
  // move did (recorded in the log and recomputed by the verifier).
  absl::StatusOr<v1::Result> Apply(absl::Span<const SeatAction> actions);

  // As Apply, except that actions[i] with bit i of `prevalidated` set was
  // already accepted by ValidateAction on this very state, and is not
  // validated again (the referee and the verifier validate each revealed
  // action as it comes, then apply the decision's actions together), and
  // that what the move did is built in `result`, which must be empty (it may
  // live on an arena, where building it allocates nothing on the heap). On
  // error `result` is left empty.
  absl::Status ApplyPrevalidated(absl::Span<const SeatAction> actions,
                                 uint64_t prevalidated, v1::Result& result);

  // Whether LegalActions() enumerates every legal action in this game.
  // Games whose action sets can be huge (e.g. payment options) return false
  // and rely on ValidateAction plus DefaultAction.
  virtual bool ListsLegalActions() const { return true; }

  // Every legal action of `seat`, sorted ascending by deterministic
  // serialization bytes (unsigned, lexicographic) and unique. Empty when the
  // seat is not acting, or when ListsLegalActions() is false.
  std::vector<v1::Action> LegalActions(int seat) const;
  // The same, built in `out`, which is empty and may live on an arena: the
  // actions are made in it, as ObservationInto makes an observation's
  // parts, so that the referee lists them inside the DecisionRequest it
  // sends without a heap allocation per action.
  virtual void LegalActionsInto(
      int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const = 0;

  // If `seat` is the only acting seat and has exactly one legal action,
  // returns it: the referee then applies it without asking (DESIGN.md).
  // The default implementation uses LegalActions(). Games override it with
  // the same answer where listing costs (every action serialized and
  // sorted, asked after every move), and where they do not always list
  // their actions (ListsLegalActions() false).
  virtual std::optional<v1::Action> SoleLegalAction(int seat) const;

  // The action the forfeit policy applies for an acting `seat` (named on the
  // game's rules page). Always legal.
  virtual v1::Action DefaultAction(int seat) const = 0;

  // What `seat` may see: its own secrets and everything public. A seat
  // outside [0, num_seats()) sees the public view.
  v1::Observation ObservationFor(int seat) const;
  // The same, built in `observation`, which is empty and may live on an
  // arena: its parts are made in it, not moved into it, so that a sender
  // builds it inside the message it sends without a heap allocation per
  // part.
  void ObservationInto(int seat, v1::Observation& observation) const;

  // What anyone may see: no seat's secrets. PublicViewInto builds it as
  // ObservationInto does.
  v1::Observation PublicView() const;
  void PublicViewInto(v1::Observation& observation) const;

  // The final outcome. Requires IsTerminal().
  virtual v1::Outcome Outcome() const = 0;

  // Ranks and scores as the game's move limit would rank them if the game
  // stopped now (used when a forfeit ends the match). Any state.
  virtual v1::Outcome StoppedOutcome() const = 0;

  virtual std::unique_ptr<State> Clone() const = 0;

 protected:
  // `description` is the game's (static) description: its id prefixes
  // every refusal and its action_kind is the only kind of action accepted.
  explicit State(const GameDescription& description)
      : description_(&description) {}
  State(const State&) = default;
  State& operator=(const State&) = default;

  const GameDescription& description() const { return *description_; }

  // RefuseAction for this state's game: INVALID_ARGUMENT "<game id>: `why`".
  absl::Status Refuse(std::string_view why) const {
    return RefuseAction(*description_, why);
  }

  // The game's checks of `action` (of the game's kind) for `seat`, which is
  // acting (so the game is not over). As ValidateAction.
  virtual absl::Status DoValidateAction(int seat,
                                        const v1::Action& action) const = 0;

  // Builds the game's part of what `seat` sees (nullopt: the public view,
  // no seat's secrets) in `observation`, as ObservationInto says; the base
  // has set its public_view and seat, and `seat` is a seat of the game.
  virtual void ViewInto(std::optional<int> seat,
                        v1::Observation& observation) const = 0;

  // Applies pre-validated actions (one per acting seat, ascending) and builds
  // what they did in `result`, which is empty (and may live on an arena: the
  // result's parts are made in it, not moved into it). Must not fail.
  virtual void DoApply(absl::Span<const SeatAction> actions,
                       v1::Result& result) = 0;

 private:
  const GameDescription* description_;
};

class Game {
 public:
  // `description` (static, one per game) says everything but the rules;
  // `rules_version` is the version this game plays (never 0).
  Game(const GameDescription& description, uint32_t rules_version)
      : description_(description), rules_version_(rules_version) {}
  virtual ~Game() = default;

  const GameDescription& description() const { return description_; }

  // The game id of its rules page, e.g. "rock_paper_pyramid".
  std::string_view id() const { return description_.id; }

  // Version of this rules implementation, written into every log header.
  uint32_t rules_version() const { return rules_version_; }

  int min_seats() const { return description_.min_seats; }
  int max_seats() const { return description_.max_seats; }

  // The most bytes a seat's serialized action may take in this game
  // (docs/protocol.md, "Action size"): every legal action, the seed
  // contribution included, fits with room to spare; a revealed action that
  // does not fit is refused unread. It bounds the size of every log.
  size_t max_action_bytes() const { return description_.max_action_bytes; }

  // The initial state for `num_seats` seats. INVALID_ARGUMENT when
  // `num_seats` is outside [min_seats, max_seats]. The game's setup draws
  // come from `stream`, which the state keeps if it draws later.
  absl::StatusOr<std::unique_ptr<State>> NewInitialState(
      int num_seats, RandomStream stream) const;

 protected:
  // Makes the initial state; `num_seats` is already within range.
  virtual absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const = 0;

 private:
  const GameDescription& description_;
  const uint32_t rules_version_;
};

// OK when `game` implements rules version `asked` (0: the latest);
// otherwise UNIMPLEMENTED, naming the versions it implements. A rules
// version changes whenever the same moves would give another log; an older
// version is kept so that the logs written under it still verify.
absl::Status CheckRulesVersion(const GameDescription& game, uint32_t asked);

// The game `description` describes (MakeGame in registry.h finds it by
// id), with `config`'s options checked against the description: its game
// id may be empty. UNIMPLEMENTED for a rules version the game does not
// implement (0 is the latest); INVALID_ARGUMENT for bad options. What every
// game's tests call with its Description().
absl::StatusOr<std::unique_ptr<Game>> MakeGameOf(
    const GameDescription& description, const v1::GameConfig& config,
    uint32_t rules_version = 0);

// What MakeGameOf makes the game from: the options (ResolveOptions) and
// the rules version played (never 0). Errors as MakeGameOf's. For a
// game's test positions, which take a config as a game does.
struct ResolvedConfig {
  OptionValues options;
  uint32_t rules_version = 0;
};
absl::StatusOr<ResolvedConfig> ResolveConfig(const GameDescription& description,
                                             const v1::GameConfig& config,
                                             uint32_t rules_version = 0);

// Parses the action bytes a seat revealed (already within
// game.max_action_bytes()). INVALID_ARGUMENT when they are not an Action
// or hold a field this version of the protocol does not define, at any
// depth: an action is read exactly as the rules define it, or not at all.
absl::StatusOr<v1::Action> ParseSeatAction(std::string_view bytes);

// `message` serialized deterministically: the order of LegalActions()
// (unsigned, lexicographic over these bytes).
std::string DeterministicBytes(const google::protobuf::MessageLite& message);

// Puts `actions` in the order of LegalActions(): ascending by
// DeterministicBytes; with `unique`, keeps one of actions with the same
// bytes (they are the same action).
void SortByBytes(google::protobuf::RepeatedPtrField<v1::Action>& actions,
                 bool unique);

// Competition ranks (1-based; ties share, the next rank skips) for `keys`,
// where a smaller key is better. Keys 5, 5, 9 give ranks 1, 1, 3.
std::vector<uint32_t> CompetitionRanks(absl::Span<const int64_t> keys);

// An Outcome whose seats rank by `keys` (CompetitionRanks: a smaller key
// is better) and score `scores` (one of each per seat).
v1::Outcome OutcomeByKeys(absl::Span<const int64_t> keys,
                          absl::Span<const int32_t> scores,
                          v1::Termination termination);

// An Outcome whose ranks follow `scores`, higher score better.
v1::Outcome OutcomeByScore(absl::Span<const int32_t> scores,
                           v1::Termination termination);

// Ranks every live seat above every eliminated one in OutcomeByKeys: a
// live seat's key is -score (a score is far below it), an eliminated
// seat's kEliminatedRankKey - n, where a later elimination has a larger n.
inline constexpr int64_t kEliminatedRankKey = 1'000'000;

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_GAME_H_

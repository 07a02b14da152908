#include "referee/games/rock_paper_pyramid.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "pyramid/referee/v1/rock_paper_pyramid.pb.h"

namespace pyramid {
namespace {

inline constexpr std::string_view kGameId = "rock_paper_pyramid";
inline constexpr uint32_t kRulesVersion = 1;
inline constexpr uint32_t kOldestRulesVersion = 1;
// An action names one piece (docs/protocol.md, "Action size").
inline constexpr size_t kMaxActionBytes = 64;
inline constexpr int kNumSeats = 3;
inline constexpr int kClassicRounds = 9;
inline constexpr int kRedRounds = 10;

// The three classic colours and the three sizes, each in sorted order.
inline constexpr std::array<v1::RppColour, 3> kClassicColours = {
    v1::RPP_BLACK, v1::RPP_WHITE, v1::RPP_CRYSTAL};
inline constexpr std::array<v1::RppSize, 3> kSizes = {
    v1::RPP_LARGE, v1::RPP_MEDIUM, v1::RPP_SMALL};

// Every (colour, size) a pool may hold, red included: 4 colours x 3 sizes.
inline constexpr int kNumKinds = 4 * static_cast<int>(kSizes.size());

enum class WinnerTakes { kCaptured, kAll };

struct Options {
  WinnerTakes winner_takes = WinnerTakes::kCaptured;
  bool red = false;
};

// A seat's remaining pieces, indexed by KindIndex (so in sorted order).
using Pool = std::array<bool, kNumKinds>;

// The pieces revealed in one round, indexed by seat.
using Played = std::array<v1::RppPiece, kNumSeats>;

// graph[x][y]: seat x's piece captures seat y's piece.
using CaptureGraph = std::array<std::array<bool, kNumSeats>, kNumSeats>;

inline constexpr int kNoClaimant = -1;

// How a round resolved, before scoring.
struct Resolution {
  v1::RppResolution kind = v1::RPP_RESOLUTION_UNSPECIFIED;
  // The seat that takes each seat's piece, or kNoClaimant.
  std::array<int, kNumSeats> claimant_of = {kNoClaimant, kNoClaimant,
                                            kNoClaimant};
};

bool IsKnownColour(v1::RppColour colour) {
  return colour >= v1::RPP_BLACK && colour <= v1::RPP_RED;
}

bool IsKnownSize(v1::RppSize size) {
  return size >= v1::RPP_LARGE && size <= v1::RPP_SMALL;
}

bool IsKnownPiece(const v1::RppPiece& piece) {
  return IsKnownColour(piece.colour()) && IsKnownSize(piece.size());
}

// Position of a known piece in sorted order: colour first, then size.
int KindIndex(const v1::RppPiece& piece) {
  return (piece.colour() - v1::RPP_BLACK) * static_cast<int>(kSizes.size()) +
         (piece.size() - v1::RPP_LARGE);
}

v1::RppPiece PieceOfKind(int index) {
  const int sizes = static_cast<int>(kSizes.size());
  v1::RppPiece piece;
  piece.set_colour(static_cast<v1::RppColour>(v1::RPP_BLACK + index / sizes));
  piece.set_size(static_cast<v1::RppSize>(v1::RPP_LARGE + index % sizes));
  return piece;
}

v1::RppPiece MakePiece(v1::RppColour colour, v1::RppSize size) {
  v1::RppPiece piece;
  piece.set_colour(colour);
  piece.set_size(size);
  return piece;
}

int32_t Points(v1::RppSize size) {
  switch (size) {
    case v1::RPP_LARGE:
      return 3;
    case v1::RPP_MEDIUM:
      return 2;
    case v1::RPP_SMALL:
      return 1;
    default:
      return 0;
  }
}

bool BeatsOnColour(v1::RppColour x, v1::RppColour y) {
  switch (x) {
    case v1::RPP_BLACK:
      return y == v1::RPP_WHITE;
    case v1::RPP_WHITE:
      return y == v1::RPP_CRYSTAL;
    case v1::RPP_CRYSTAL:
      return y == v1::RPP_BLACK;
    case v1::RPP_RED:
      return y == v1::RPP_BLACK || y == v1::RPP_WHITE || y == v1::RPP_CRYSTAL;
    default:
      return false;
  }
}

bool BeatsOnSize(v1::RppSize x, v1::RppSize y) {
  return (x == v1::RPP_LARGE && y == v1::RPP_MEDIUM) ||
         (x == v1::RPP_MEDIUM && y == v1::RPP_SMALL) ||
         (x == v1::RPP_SMALL && y == v1::RPP_LARGE);
}

CaptureGraph BuildCaptureGraph(const Played& played) {
  CaptureGraph graph = {};
  for (int x = 0; x < kNumSeats; ++x) {
    for (int y = 0; y < kNumSeats; ++y) {
      graph[x][y] = x != y && rpp::Captures(played[x], played[y]);
    }
  }
  return graph;
}

bool IsCaptured(const CaptureGraph& graph, int seat) {
  for (int x = 0; x < kNumSeats; ++x) {
    if (graph[x][seat]) return true;
  }
  return false;
}

// Whether `from` reaches `to` along capture edges, directly or through one
// intermediate piece (which is then captured, by `from`). With three pieces
// no longer simple path exists.
bool Reaches(const CaptureGraph& graph, int from, int to) {
  if (graph[from][to]) return true;
  for (int mid = 0; mid < kNumSeats; ++mid) {
    if (graph[from][mid] && graph[mid][to]) return true;
  }
  return false;
}

// The rules page's three-way resolution. Every captured piece has at least
// one claimant whenever some piece is uncaptured: its captor is uncaptured,
// or is captured by the third piece, which then must be uncaptured (the
// capture relation is antisymmetric).
Resolution Resolve(const Played& played) {
  const CaptureGraph graph = BuildCaptureGraph(played);
  std::vector<int> captured;
  std::vector<int> uncaptured;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    (IsCaptured(graph, seat) ? captured : uncaptured).push_back(seat);
  }
  Resolution resolution;
  if (captured.empty()) {
    resolution.kind = v1::RPP_WASHOUT;
    return resolution;
  }
  if (uncaptured.empty()) {
    resolution.kind = v1::RPP_STANDOFF;
    return resolution;
  }
  for (int piece : captured) {
    int claimants = 0;
    for (int seat : uncaptured) {
      if (!Reaches(graph, seat, piece)) continue;
      ++claimants;
      resolution.claimant_of[piece] = seat;
    }
    if (claimants >= 2) return Resolution{.kind = v1::RPP_WISHBONE};
  }
  resolution.kind = v1::RPP_CAPTURES;
  return resolution;
}

absl::StatusOr<Options> OptionsFromProto(
    const v1::RockPaperPyramidOptions& proto) {
  Options options;
  options.red = proto.red();
  switch (proto.winner_takes()) {
    case v1::RPP_WINNER_TAKES_UNSPECIFIED:
    case v1::RPP_TAKES_CAPTURED:
      options.winner_takes = WinnerTakes::kCaptured;
      return options;
    case v1::RPP_TAKES_ALL:
      options.winner_takes = WinnerTakes::kAll;
      return options;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("rock_paper_pyramid: unknown winner_takes value ",
                       static_cast<int>(proto.winner_takes())));
  }
}

absl::StatusOr<Options> ParseOptions(const v1::GameConfig& config) {
  if (!config.game().empty() && config.game() != kGameId) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rock_paper_pyramid: config names game \"", config.game(), "\""));
  }
  switch (config.options_case()) {
    case v1::GameConfig::OPTIONS_NOT_SET:
      return Options{};
    case v1::GameConfig::kRockPaperPyramid:
      return OptionsFromProto(config.rock_paper_pyramid());
    default:
      return absl::InvalidArgumentError(
          "rock_paper_pyramid: options belong to another game");
  }
}

// What a seat has scored so far.
struct Tally {
  int32_t score = 0;
  std::vector<v1::RppPiece> scored;  // In the order scored.
};

class RockPaperPyramidState final : public State {
 public:
  RockPaperPyramidState(const Options& options, RandomStream stream)
      : options_(options),
        stream_(std::move(stream)),
        total_rounds_(options.red ? kRedRounds : kClassicRounds) {
    DealClassicPieces();
    if (options_.red) DealRedPieces();
  }

  int num_seats() const override { return kNumSeats; }

  bool IsTerminal() const override { return RoundsPlayed() >= total_rounds_; }

  std::vector<int> ActingSeats() const override {
    if (IsTerminal()) return {};
    return {0, 1, 2};
  }

  bool IsSimultaneous() const override { return !IsTerminal(); }

  absl::Status ValidateAction(int seat,
                              const v1::Action& action) const override;

  std::vector<v1::Action> LegalActions(int seat) const override;

  v1::Action DefaultAction(int seat) const override;

  v1::Observation ObservationFor(int seat) const override {
    v1::Observation observation = PublicView();
    observation.set_public_view(false);
    observation.set_seat(static_cast<uint32_t>(seat));
    return observation;
  }

  v1::Observation PublicView() const override;

  v1::Outcome Outcome() const override {
    return OutcomeByScore(Scores(), v1::TERMINATION_NORMAL);
  }

  v1::Outcome StoppedOutcome() const override {
    return OutcomeByScore(Scores(), v1::TERMINATION_MOVE_LIMIT);
  }

  std::unique_ptr<State> Clone() const override {
    return std::make_unique<RockPaperPyramidState>(*this);
  }

 protected:
  v1::Result DoApply(absl::Span<const SeatAction> actions) override;

 private:
  int RoundsPlayed() const { return static_cast<int>(history_.size()); }

  bool IsActing(int seat) const {
    return !IsTerminal() && seat >= 0 && seat < kNumSeats;
  }

  void DealClassicPieces();
  void DealRedPieces();
  std::vector<int32_t> Scores() const;
  void Score(int seat, const v1::RppPiece& piece);
  void ScoreRound(const Played& played, const Resolution& resolution,
                  v1::RockPaperPyramidRoundResult& result);

  Options options_;
  // The match's stream. This game draws from it only in the constructor.
  RandomStream stream_;
  int total_rounds_;
  std::array<Pool, kNumSeats> pools_ = {};
  std::array<Tally, kNumSeats> tallies_;
  // Every round's RockPaperPyramidRoundResult, serialized: a tenth of the
  // memory of the messages, which matters with thousands of live matches.
  std::vector<std::string> history_;
};

void RockPaperPyramidState::DealClassicPieces() {
  for (Pool& pool : pools_) {
    for (v1::RppColour colour : kClassicColours) {
      for (v1::RppSize size : kSizes) {
        pool[KindIndex(MakePiece(colour, size))] = true;
      }
    }
  }
}

// The game's only draw: shuffle [L, M, S]; seat i gets red of size i.
void RockPaperPyramidState::DealRedPieces() {
  std::vector<v1::RppSize> sizes(kSizes.begin(), kSizes.end());
  stream_.Shuffle(sizes);
  for (int seat = 0; seat < kNumSeats; ++seat) {
    pools_[seat][KindIndex(MakePiece(v1::RPP_RED, sizes[seat]))] = true;
  }
}

absl::Status RockPaperPyramidState::ValidateAction(
    int seat, const v1::Action& action) const {
  if (!IsActing(seat)) {
    return absl::FailedPreconditionError(
        absl::StrCat("rock_paper_pyramid: seat ", seat, " is not acting"));
  }
  if (action.kind_case() != v1::Action::kRockPaperPyramid) {
    return absl::InvalidArgumentError(
        "rock_paper_pyramid: not a rock_paper_pyramid action");
  }
  const v1::RppPiece& piece = action.rock_paper_pyramid().piece();
  if (!IsKnownPiece(piece)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rock_paper_pyramid: unknown piece (colour ",
                     static_cast<int>(piece.colour()), ", size ",
                     static_cast<int>(piece.size()), ")"));
  }
  if (!pools_[seat][KindIndex(piece)]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rock_paper_pyramid: piece ", v1::RppColour_Name(piece.colour()), " ",
        v1::RppSize_Name(piece.size()), " is not in seat ", seat, "'s pool"));
  }
  return absl::OkStatus();
}

// Pool order is colour then size, which is also the order of the actions'
// serialized bytes: every field is present and one byte long.
std::vector<v1::Action> RockPaperPyramidState::LegalActions(int seat) const {
  std::vector<v1::Action> actions;
  if (!IsActing(seat)) return actions;
  for (int kind = 0; kind < kNumKinds; ++kind) {
    if (!pools_[seat][kind]) continue;
    v1::Action action;
    *action.mutable_rock_paper_pyramid()->mutable_piece() = PieceOfKind(kind);
    actions.push_back(std::move(action));
  }
  return actions;
}

v1::Action RockPaperPyramidState::DefaultAction(int seat) const {
  std::vector<v1::Action> legal = LegalActions(seat);
  if (legal.empty()) return v1::Action();  // Not acting: no default.
  return legal.front();
}

v1::Observation RockPaperPyramidState::PublicView() const {
  v1::Observation observation;
  observation.set_public_view(true);
  v1::RockPaperPyramidObservation* game =
      observation.mutable_rock_paper_pyramid();
  game->set_rounds_played(static_cast<uint32_t>(RoundsPlayed()));
  game->set_total_rounds(static_cast<uint32_t>(total_rounds_));
  for (int seat = 0; seat < kNumSeats; ++seat) {
    v1::RppSeatView* view = game->add_seats();
    for (int kind = 0; kind < kNumKinds; ++kind) {
      if (pools_[seat][kind]) *view->add_pool() = PieceOfKind(kind);
    }
    view->set_score(tallies_[seat].score);
    for (const v1::RppPiece& piece : tallies_[seat].scored) {
      *view->add_scored() = piece;
    }
  }
  for (const std::string& round : history_) {
    game->add_history()->ParseFromString(round);
  }
  return observation;
}

std::vector<int32_t> RockPaperPyramidState::Scores() const {
  std::vector<int32_t> scores;
  for (const Tally& tally : tallies_) scores.push_back(tally.score);
  return scores;
}

void RockPaperPyramidState::Score(int seat, const v1::RppPiece& piece) {
  tallies_[seat].score += Points(piece.size());
  tallies_[seat].scored.push_back(piece);
}

// Captured pieces first, in captured-seat order; then, with winner_takes =
// ALL, each claimant's own piece, in seat order.
void RockPaperPyramidState::ScoreRound(
    const Played& played, const Resolution& resolution,
    v1::RockPaperPyramidRoundResult& result) {
  if (resolution.kind != v1::RPP_CAPTURES) return;
  std::array<bool, kNumSeats> is_claimant = {};
  for (int seat = 0; seat < kNumSeats; ++seat) {
    const int claimant = resolution.claimant_of[seat];
    if (claimant == kNoClaimant) continue;
    is_claimant[claimant] = true;
    v1::RppCapture* capture = result.add_captures();
    capture->set_claimant(static_cast<uint32_t>(claimant));
    capture->set_captured(static_cast<uint32_t>(seat));
    *capture->mutable_piece() = played[seat];
    Score(claimant, played[seat]);
  }
  if (options_.winner_takes != WinnerTakes::kAll) return;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    if (!is_claimant[seat]) continue;
    result.add_kept(static_cast<uint32_t>(seat));
    Score(seat, played[seat]);
  }
}

v1::Result RockPaperPyramidState::DoApply(
    absl::Span<const SeatAction> actions) {
  Played played;
  for (const SeatAction& action : actions) {
    played[action.seat] = action.action.rock_paper_pyramid().piece();
    pools_[action.seat][KindIndex(played[action.seat])] = false;
  }
  const Resolution resolution = Resolve(played);
  v1::RockPaperPyramidRoundResult round;
  round.set_round(static_cast<uint32_t>(RoundsPlayed() + 1));
  for (const v1::RppPiece& piece : played) *round.add_played() = piece;
  round.set_resolution(resolution.kind);
  ScoreRound(played, resolution, round);
  for (const Tally& tally : tallies_) round.add_scores(tally.score);
  history_.push_back(round.SerializeAsString());
  v1::Result result;
  *result.mutable_rock_paper_pyramid() = std::move(round);
  return result;
}

class RockPaperPyramidGame final : public Game {
 public:
  explicit RockPaperPyramidGame(const Options& options) : options_(options) {}

  std::string_view id() const override { return kGameId; }
  uint32_t rules_version() const override { return kRulesVersion; }
  int min_seats() const override { return kNumSeats; }
  int max_seats() const override { return kNumSeats; }
  size_t max_action_bytes() const override { return kMaxActionBytes; }

  absl::StatusOr<std::unique_ptr<State>> DoNewInitialState(
      int num_seats, RandomStream stream) const override {
    std::unique_ptr<State> state =
        std::make_unique<RockPaperPyramidState>(options_, std::move(stream));
    return state;
  }

 private:
  Options options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeRockPaperPyramid(
    const v1::GameConfig& config, uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(kGameId, rules_version,
                                         kOldestRulesVersion, kRulesVersion);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Options> options = ParseOptions(config);
  if (!options.ok()) return options.status();
  std::unique_ptr<Game> game = std::make_unique<RockPaperPyramidGame>(*options);
  return game;
}

namespace rpp {

bool Captures(const v1::RppPiece& x, const v1::RppPiece& y) {
  const bool x_beats_y =
      BeatsOnColour(x.colour(), y.colour()) || BeatsOnSize(x.size(), y.size());
  const bool y_beats_x =
      BeatsOnColour(y.colour(), x.colour()) || BeatsOnSize(y.size(), x.size());
  return x_beats_y && !y_beats_x;
}

}  // namespace rpp
}  // namespace pyramid

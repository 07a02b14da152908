#include "replay/match_steps.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "referee/games/game.h"
#include "referee/games/registry.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Bounds the memory and the page of a huge log.
constexpr size_t kMaxSteps = 20000;

using Position = MatchPosition;

Position PositionOf(const State& state, bool seat_views) {
  Position position;
  position.view = state.PublicView();
  for (int seat = 0; seat_views && seat < state.num_seats(); ++seat) {
    position.seat_views.push_back(state.ObservationFor(seat));
  }
  return position;
}

// Pyramid Scheme's card table is the same in every observation: the
// start's public view keeps it (`keep_view_cards`), no other copy does.
void DropRepeatedCards(Position& position, bool keep_view_cards) {
  for (v1::Observation& seat_view : position.seat_views) {
    if (seat_view.has_pyramid_scheme()) {
      seat_view.mutable_pyramid_scheme()->clear_cards();
    }
  }
  if (!keep_view_cards && position.view.has_pyramid_scheme()) {
    position.view.mutable_pyramid_scheme()->clear_cards();
  }
}

// Whether two results are the same message (deterministic bytes).
bool SameResult(const v1::Result& a, const v1::Result& b) {
  std::string x, y;
  a.SerializePartialToString(&x);
  b.SerializePartialToString(&y);
  return x == y;
}

// Walks the records, replaying the rules as it goes, or taking each
// position from the verifier's replay of a log that verified.
class StepReader {
 public:
  // Replays the rules.
  StepReader(MatchSteps& out, WantsSeatViews wants_seat_views)
      : out_(out), wants_seat_views_(wants_seat_views), replay_(true) {}
  // Takes the positions in `verified`, the verifier's (PositionCollector),
  // in order: one for the start, then one per Applied record.
  StepReader(MatchSteps& out, std::vector<Position> verified)
      : out_(out),
        wants_seat_views_(nullptr),
        replay_(false),
        verified_(std::move(verified)) {}

  // Reads record `index`, taking what it keeps out of `record`; false
  // (with out_.stopped set) to stop.
  bool Read(uint64_t index, v1::LogRecord& record) {
    switch (record.kind_case()) {
      case v1::LogRecord::kHeader:
        if (index != 0) return Stop(index, "a second header");
        out_.has_header = true;
        out_.header = std::move(*record.mutable_header());
        seat_views_ =
            wants_seat_views_ == nullptr || wants_seat_views_(out_.header);
        return true;
      case v1::LogRecord::kDecisionOpened:
        decision_ = DecisionRecords();
        decision_.opened = true;
        decision_.decision = std::move(*record.mutable_decision_opened());
        decision_.first_record = index;
        return true;
      case v1::LogRecord::kCommit:
        decision_.commits.push_back(std::move(*record.mutable_commit()));
        return true;
      case v1::LogRecord::kReveal:
        decision_.reveals.push_back(std::move(*record.mutable_reveal()));
        return true;
      case v1::LogRecord::kFault:
        decision_.faults.push_back(std::move(*record.mutable_fault()));
        return true;
      case v1::LogRecord::kRestart:
        decision_.restarts.push_back(std::move(*record.mutable_restart()));
        return true;
      case v1::LogRecord::kSeedReveal:
        return Start(index, record.seed_reveal());
      case v1::LogRecord::kApplied:
        return Apply(index, *record.mutable_applied());
      case v1::LogRecord::kOutcome:
        return End(index, record.outcome());
      case v1::LogRecord::kCheckpoint:
      case v1::LogRecord::kSeal:
        return true;
      case v1::LogRecord::KIND_NOT_SET:
        break;
    }
    return Stop(index, "a record of unknown kind");
  }

 private:
  bool Stop(uint64_t index, std::string reason) {
    out_.stopped = std::move(reason);
    out_.stopped_at = index;
    return false;
  }

  bool Start(uint64_t index, const v1::SeedReveal& seed) {
    if (!out_.has_header) return Stop(index, "no header before the seed");
    if (started_) return Stop(index, "a second seed reveal");
    started_ = true;
    if (!replay_) return AddStep(MatchStep::Kind::kStart, index, nullptr);
    const int seats = out_.header.seats_size();
    absl::StatusOr<std::unique_ptr<Game>> game =
        MakeGame(out_.header.game(), out_.header.rules_version());
    if (!game.ok()) {
      return Stop(index, absl::StrCat("the game cannot be replayed: ",
                                      game.status().message()));
    }
    if (seed.seed().size() != Digest().size()) {
      return Stop(index, "the seed is not 32 bytes");
    }
    Digest digest;
    for (size_t i = 0; i < digest.size(); ++i) {
      digest[i] = static_cast<uint8_t>(seed.seed()[i]);
    }
    absl::StatusOr<std::unique_ptr<State>> state =
        (*game)->NewInitialState(seats, RandomStream(digest));
    if (!state.ok()) {
      return Stop(index, absl::StrCat("the game cannot start: ",
                                      state.status().message()));
    }
    state_ = *std::move(state);
    return AddStep(MatchStep::Kind::kStart, index, nullptr);
  }

  bool Apply(uint64_t index, v1::Applied& applied) {
    if (!started_) return Stop(index, "a move before the seed");
    if (out_.steps.size() >= kMaxSteps) {
      return Stop(index, absl::StrCat("the viewer shows at most ", kMaxSteps,
                                      " steps"));
    }
    if (replay_ && !Replay(index, applied)) return false;
    if (!applied.has_decision_id()) {
      decision_ = DecisionRecords();  // An automatic move: no seat asked.
    } else if (!decision_.opened ||
               decision_.decision.decision_id() != applied.decision_id()) {
      return Stop(index, "a move for a decision that is not open");
    }
    return AddStep(MatchStep::Kind::kMove, index, &applied);
  }

  // Applies `applied`'s moves to the rules' state; false (stopped) when the
  // rules refuse them or give another result.
  bool Replay(uint64_t index, const v1::Applied& applied) {
    std::vector<SeatAction> actions;
    for (const v1::Move& move : applied.moves()) {
      if (move.seat() >= static_cast<uint32_t>(state_->num_seats())) {
        return Stop(index, "a move of a seat that does not exist");
      }
      SeatAction& action = actions.emplace_back();
      action.seat = static_cast<int>(move.seat());
      if (move.source() == v1::MOVE_DEFAULT) {
        const std::vector<int> acting = state_->ActingSeats();
        if (std::find(acting.begin(), acting.end(), action.seat) ==
            acting.end()) {
          return Stop(index, "a default move of a seat not acting");
        }
        action.action = state_->DefaultAction(action.seat);
      } else {
        action.action = move.action();
      }
    }
    absl::StatusOr<v1::Result> result = state_->Apply(actions);
    if (!result.ok()) {
      return Stop(index, absl::StrCat("the rules refuse this move: ",
                                      result.status().message()));
    }
    if (!SameResult(*result, applied.result())) {
      return Stop(index, "the logged result is not the rules' result");
    }
    return true;
  }

  bool End(uint64_t index, const v1::Outcome& outcome) {
    out_.outcome = outcome;
    // A decision closed by a forfeit: no move, the position stays (none
    // when it is the seed decision's: the match never started).
    if (decision_.opened && !decision_.faults.empty()) {
      AddStep(MatchStep::Kind::kForfeit, index, nullptr);
    }
    decision_ = DecisionRecords();
    return true;
  }

  // The position after the step of `kind` just read: the previous one for
  // a forfeit, else the rules' (replayed) or the verifier's next one.
  std::optional<Position> NextPosition(MatchStep::Kind kind) {
    if (kind == MatchStep::Kind::kForfeit) {
      if (!started_) return Position();  // Before the start: none.
      return Position{out_.steps.back().view, out_.steps.back().seat_views};
    }
    if (replay_) return PositionOf(*state_, seat_views_);
    if (next_verified_ == verified_.size()) return std::nullopt;
    return std::move(verified_[next_verified_++]);
  }

  bool AddStep(MatchStep::Kind kind, uint64_t index, v1::Applied* applied) {
    std::optional<Position> position = NextPosition(kind);
    if (!position) {
      return Stop(index, "the verifier's replay holds no position for it");
    }
    MatchStep& step = out_.steps.emplace_back();
    step.kind = kind;
    step.has_position = started_;
    step.record = index;
    step.decision = std::move(decision_);
    decision_ = DecisionRecords();
    if (applied != nullptr) step.applied = std::move(*applied);
    DropRepeatedCards(*position, kind == MatchStep::Kind::kStart);
    step.view = std::move(position->view);
    step.seat_views = std::move(position->seat_views);
    return true;
  }

  MatchSteps& out_;
  const WantsSeatViews wants_seat_views_;
  bool seat_views_ = true;
  const bool replay_;  // Whether this reader replays the rules itself.
  bool started_ = false;
  std::unique_ptr<State> state_;    // The rules' state, when replay_.
  std::vector<Position> verified_;  // The positions, when not replay_.
  size_t next_verified_ = 0;
  DecisionRecords decision_;
};

// Reads the records of `file` into `out` with `reader`.
void ReadSteps(std::string_view file, StepReader& reader, MatchSteps& out) {
  uint64_t next = 0;  // The index after the last record read.
  const absl::Status read =
      ForEachRecord(file, [&](uint64_t index, v1::LogRecord& record) {
        next = index + 1;
        return reader.Read(index, record);
      });
  if (!read.ok()) {
    out.stopped = std::string(read.message());
    out.stopped_at = next;
  }
}

}  // namespace

void MatchPositionCollector::OnPosition(const v1::Header& header,
                                        const State& state) {
  if (positions_.size() == kMaxSteps) return;
  if (positions_.empty()) {
    seat_views_ = wants_seat_views_ == nullptr || wants_seat_views_(header);
  }
  // As AddStep keeps it: the first position is the start's.
  Position& position = positions_.emplace_back(PositionOf(state, seat_views_));
  DropRepeatedCards(position, positions_.size() == 1);
}

MatchSteps ReadMatchSteps(std::string_view file,
                          WantsSeatViews wants_seat_views) {
  MatchSteps out;
  StepReader reader(out, wants_seat_views);
  ReadSteps(file, reader, out);
  return out;
}

MatchSteps VerifyAndReadMatchSteps(std::string_view file,
                                   const VerifyOptions& options,
                                   Verdict& verdict,
                                   WantsSeatViews wants_seat_views) {
  return VerifyAndReadMatchSteps(file, 0, options, verdict, wants_seat_views);
}

MatchSteps VerifyAndReadMatchSteps(std::string_view file, uint64_t file_size,
                                   const VerifyOptions& options,
                                   Verdict& verdict,
                                   WantsSeatViews wants_seat_views) {
  MatchPositionCollector positions(wants_seat_views);
  verdict = VerifyLog(file, file_size, options, &positions);
  if (verdict.kind != Verdict::Kind::kGenuine ||
      options.level != VerifyOptions::Level::kFull) {
    // The verifier stopped short of the end, or replayed no rule: the
    // reader's own replay reads as far as the log can be read, without the
    // positions collected (released first, not held beside its own).
    static_cast<void>(positions.Take());
    return ReadMatchSteps(file, wants_seat_views);
  }
  MatchSteps out;
  StepReader reader(out, positions.Take());
  ReadSteps(file, reader, out);
  return out;
}

}  // namespace pyramid

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

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Bounds the memory and the page of a huge log.
constexpr size_t kMaxSteps = 20000;

// Whether two results are the same message (deterministic bytes).
bool SameResult(const v1::Result& a, const v1::Result& b) {
  std::string x, y;
  a.SerializePartialToString(&x);
  b.SerializePartialToString(&y);
  return x == y;
}

// Walks the records, replaying the rules as it goes.
class StepReader {
 public:
  StepReader(MatchSteps& out, WantsSeatViews wants_seat_views)
      : out_(out), wants_seat_views_(wants_seat_views) {}

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
    if (state_ != nullptr) return Stop(index, "a second seed reveal");
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
    AddStep(MatchStep::Kind::kStart, index, nullptr);
    return true;
  }

  bool Apply(uint64_t index, v1::Applied& applied) {
    if (state_ == nullptr) return Stop(index, "a move before the seed");
    if (out_.steps.size() >= kMaxSteps) {
      return Stop(index, absl::StrCat("the viewer shows at most ", kMaxSteps,
                                      " steps"));
    }
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
    if (!applied.has_decision_id()) {
      decision_ = DecisionRecords();  // An automatic move: no seat asked.
    } else if (!decision_.opened ||
               decision_.decision.decision_id() != applied.decision_id()) {
      return Stop(index, "a move for a decision that is not open");
    }
    AddStep(MatchStep::Kind::kMove, index, &applied);
    decision_ = DecisionRecords();
    return true;
  }

  bool End(uint64_t index, const v1::Outcome& outcome) {
    out_.outcome = outcome;
    // A decision closed by a forfeit: no move, the position stays.
    if (state_ != nullptr && decision_.opened && !decision_.faults.empty()) {
      AddStep(MatchStep::Kind::kForfeit, index, nullptr);
    }
    decision_ = DecisionRecords();
    return true;
  }

  void AddStep(MatchStep::Kind kind, uint64_t index, v1::Applied* applied) {
    MatchStep& step = out_.steps.emplace_back();
    step.kind = kind;
    step.record = index;
    step.decision = std::move(decision_);
    decision_ = DecisionRecords();
    if (applied != nullptr) step.applied = std::move(*applied);
    step.view = state_->PublicView();
    for (int seat = 0; seat_views_ && seat < state_->num_seats(); ++seat) {
      step.seat_views.push_back(state_->ObservationFor(seat));
      // Pyramid Scheme's card table is the same in every observation: the
      // start's public view keeps it, no other copy does.
      if (step.seat_views.back().has_pyramid_scheme()) {
        step.seat_views.back().mutable_pyramid_scheme()->clear_cards();
      }
    }
    if (kind != MatchStep::Kind::kStart && step.view.has_pyramid_scheme()) {
      step.view.mutable_pyramid_scheme()->clear_cards();
    }
  }

  MatchSteps& out_;
  const WantsSeatViews wants_seat_views_;
  bool seat_views_ = true;
  std::unique_ptr<State> state_;
  DecisionRecords decision_;
};

}  // namespace

MatchSteps ReadMatchSteps(std::string_view file,
                          WantsSeatViews wants_seat_views) {
  MatchSteps out;
  const SplitLogResult split = SplitLog(file);
  StepReader reader(out, wants_seat_views);
  for (size_t i = 0; i < split.records.size(); ++i) {
    v1::LogRecord record;
    if (!record.ParseFromArray(
            split.records[i].bytes.data(),
            static_cast<int>(split.records[i].bytes.size()))) {
      out.stopped = "the record does not parse";
      out.stopped_at = i;
      return out;
    }
    if (!reader.Read(i, record)) return out;
  }
  if (split.tail != SplitLogResult::Tail::kClean) {
    out.stopped =
        absl::StrCat(split.tail_reason, " at byte ", split.tail_offset);
    out.stopped_at = split.records.size();
  }
  return out;
}

}  // namespace pyramid

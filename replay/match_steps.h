// A match log read as the viewer shows it (`replay html`): the position at
// the start and after every applied move, each with the protocol records of
// the decision that led to it. The rules are replayed from the log's seed
// and moves through the games' public interface (referee/games/game.h), so
// every position is the rules' own view; each recomputed result must equal
// the logged one, or reading stops there. It does not judge the log
// (VerifyLog does): it reads as far as it can and says where it stopped.
// VerifyAndReadMatchSteps does both with one replay of the rules when the
// log is genuine: the positions are then the verifier's own.
#ifndef PYRAMID_REPLAY_MATCH_STEPS_H_
#define PYRAMID_REPLAY_MATCH_STEPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyramid/referee/v1/log.pb.h"
#include "replay/verifier.h"

namespace pyramid {

// The protocol records of one decision, in log order.
struct DecisionRecords {
  bool opened = false;  // False for an automatic move (no decision).
  referee::v1::DecisionOpened decision;
  std::vector<referee::v1::Commit> commits;
  std::vector<referee::v1::Reveal> reveals;
  std::vector<referee::v1::Fault> faults;
  std::vector<referee::v1::Restart> restarts;
  uint64_t first_record = 0;  // Index of its DecisionOpened record.
};

// One step of the match: a position and how it was reached.
struct MatchStep {
  enum class Kind {
    kStart,    // The initial position, after the seed decision.
    kMove,     // After an applied decision or automatic move.
    kForfeit,  // A decision that ended the match by forfeit (no move).
  };
  // False for a forfeit in the seed decision: the match ended before its
  // start, so there is no position (view and seat_views are empty).
  bool has_position = true;
  Kind kind = Kind::kStart;
  uint64_t record = 0;  // Index of the seed reveal, applied or outcome record.
  DecisionRecords decision;
  referee::v1::Applied applied;   // kMove only.
  referee::v1::Observation view;  // The public view after the step.
  // Each seat's own observation after the step, indexed by seat (empty
  // when the reader was asked not to keep them).
  std::vector<referee::v1::Observation> seat_views;
};

struct MatchSteps {
  bool has_header = false;
  referee::v1::Header header;
  std::vector<MatchStep> steps;
  std::optional<referee::v1::Outcome> outcome;
  // Empty when every record was read; otherwise why reading stopped, and
  // the index of the record it stopped at.
  std::string stopped;
  uint64_t stopped_at = 0;
};

// Whether to keep each seat's own observation at every step (a picture
// that never draws them spares their cost), given the log's header.
using WantsSeatViews = bool (*)(const referee::v1::Header& header);

// A position as a step shows it: the public view, and each seat's own
// observation (empty when not wanted).
struct MatchPosition {
  referee::v1::Observation view;
  std::vector<referee::v1::Observation> seat_views;
};

// VerifyAndReadMatchSteps' observer of the verifier's replay: keeps the
// positions it reaches (one for the start, then one per applied move), as
// many as the viewer shows, each already as small as its step keeps it:
// Pyramid Scheme's card table (the same in every observation) stays only in
// the first position's public view, so a long log never holds a copy per
// position and seat.
class MatchPositionCollector : public ReplayObserver {
 public:
  explicit MatchPositionCollector(WantsSeatViews wants_seat_views = nullptr)
      : wants_seat_views_(wants_seat_views) {}

  void OnPosition(const referee::v1::Header& header,
                  const State& state) override;

  const std::vector<MatchPosition>& positions() const { return positions_; }
  std::vector<MatchPosition> Take() { return std::move(positions_); }

 private:
  const WantsSeatViews wants_seat_views_;
  bool seat_views_ = true;
  std::vector<MatchPosition> positions_;
};

// Reads `file` (a whole log). Never fails: what cannot be read ends the
// steps, with the reason in `stopped`. Each step's seat_views are empty when
// `wants_seat_views` says the header's game does not need them; a null
// `wants_seat_views` keeps them always.
MatchSteps ReadMatchSteps(std::string_view file,
                          WantsSeatViews wants_seat_views = nullptr);

// Verifies `file` with `options` into `verdict` (VerifyLog's verdict) and
// reads it as ReadMatchSteps does, to the same steps. When the verdict is
// genuine at the full level, each position is the one the verifier's replay
// reached (a ReplayObserver), and the rules are replayed once for both;
// otherwise ReadMatchSteps replays them again and reads on past the record
// where verification failed.
MatchSteps VerifyAndReadMatchSteps(std::string_view file,
                                   const VerifyOptions& options,
                                   Verdict& verdict,
                                   WantsSeatViews wants_seat_views = nullptr);
// The same, `file` being the first bytes of a file of `file_size` bytes,
// as VerifyLog's file_size overload takes them (replay/verifier.h: a record
// or bytes after the seal are said with how many bytes follow the seal); 0
// when its size is not known.
MatchSteps VerifyAndReadMatchSteps(std::string_view file, uint64_t file_size,
                                   const VerifyOptions& options,
                                   Verdict& verdict,
                                   WantsSeatViews wants_seat_views = nullptr);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_MATCH_STEPS_H_

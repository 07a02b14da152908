// One decision's commit-reveal (DESIGN.md, "Decisions and commit-reveal"),
// shared by the referee's Match, which writes the log, and the verifier's
// Replayer, which reads it back: the same steps, the same checks and the same
// words on both sides, so a protocol change is made once.
//
// The steps, named alike in Match and Replayer (docs/protocol.md):
//   1. Open     the seats that must act (Open).
//   2. Commit   a seat's commitment, signed if the seat has a key
//               (CheckCommit, then RecordCommit).
//   3. Reveal phase  opens once every seat committed or faulted, unless the
//               decision can close at once (AfterProgress).
//   4. Reveal   the salt and the action bytes (CheckReveal, RecordReveal),
//               judged against the commitment and the rules (JudgeReveal).
//   5. Fault    a missed deadline (OwesCommit, OwesReveal), a mismatched or
//               illegal reveal (JudgeReveal's reason); RecordFault.
//   6. Close    under the forfeit policy, the faulted seats forfeit
//               (Forfeited); the seed decision yields the contributions
//               (SeedContributions); any other yields the moves to apply
//               (TakeMoves).
//
// A Decision holds no clock and writes nothing: deadlines, records and
// errors sent to clients stay with the caller. The checks return
// FAILED_PRECONDITION (out of turn), ALREADY_EXISTS (a second commit or
// reveal) or INVALID_ARGUMENT (malformed), with the reason the referee gives
// the client and the verifier gives for a log that holds such a record.
#ifndef PYRAMID_REFEREE_CORE_DECISION_H_
#define PYRAMID_REFEREE_CORE_DECISION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/crypto/bytes.h"
#include "referee/games/game.h"

namespace pyramid {

// Whether `policy` applies the default action for a faulted seat; any other
// value (FORFEIT, UNSPECIFIED, unknown) makes it forfeit.
bool DefaultsOnFault(v1::ForfeitPolicy policy);

// The fault consequence `policy` writes.
v1::FaultConsequence ConsequenceOf(v1::ForfeitPolicy policy);

class Decision {
 public:
  // What a commit, reveal or fault leads to (steps 3 and 6).
  enum class Next { kWait, kOpenRevealPhase, kClose };

  // How a reveal is judged (step 4): the action, or the fault it earns.
  struct Judgement {
    std::optional<v1::Action> action;
    v1::FaultReason fault = v1::FAULT_REASON_UNSPECIFIED;
    std::string why;  // For a fault: the reason in words, as logged.
    // For the seat alone, after `why` in its error (never logged): what
    // its client likely got wrong, when the referee can tell.
    std::string hint;
  };

  // Step 1: decision `id` (0: the seed decision) asks `seats` (ascending).
  // Opens the next decision in this object, reusing its memory; all the
  // previous decision's progress is forgotten.
  void Open(uint64_t id, std::vector<int> seats, bool simultaneous);

  uint64_t id() const { return id_; }
  const std::vector<int>& seats() const { return seats_; }
  bool simultaneous() const { return simultaneous_; }
  bool reveal_phase() const { return reveal_phase_; }

  // The position of `seat` in seats(), or nullopt when it does not act.
  std::optional<size_t> IndexOf(int seat) const;

  // Step 2. `seat` acts in this decision. OK when it may commit
  // `commitment` now with `signature`; `seat_key` is its registered key
  // (empty: none). The signature is checked only when `check_signature`.
  absl::Status CheckCommit(int seat, std::string_view match_id,
                           std::string_view commitment,
                           std::string_view signature,
                           std::string_view seat_key,
                           bool check_signature) const;
  void RecordCommit(int seat, std::string_view commitment);

  // Step 4. `seat` acts in this decision. OK when it may reveal now, with
  // a salt of `salt_size` bytes and an action of `action_size` bytes
  // (`game` bounds it).
  absl::Status CheckReveal(int seat, size_t salt_size, size_t action_size,
                           const Game& game) const;
  void RecordReveal(int seat);
  // The revealed bytes against the seat's commitment, then as an action the
  // rules accept now: `state` is the game (null in the seed decision, which
  // takes a 32-byte seed contribution naming no header or `header_hash`,
  // the hash of the log's header record).
  Judgement JudgeReveal(int seat, std::string_view match_id,
                        std::string_view header_hash, std::string_view salt,
                        std::string_view action_bytes,
                        const State* state) const;
  // A reveal judged usable.
  void Accept(int seat, v1::Action action);

  // Step 5.
  bool OwesCommit(int seat) const;
  bool OwesReveal(int seat) const;
  bool HasCommitted(int seat) const;
  void RecordFault(int seat);

  // Steps 3 and 6: after a commit, reveal or fault. kOpenRevealPhase has
  // opened it.
  Next AfterProgress(v1::ForfeitPolicy policy);

  // Step 6. Whether the decision ends the match by forfeit, and who
  // forfeits (ascending).
  bool Forfeits(v1::ForfeitPolicy policy) const;
  std::vector<int> Forfeited() const;
  // The seed decision's contributions, one per seat in seat order (32 zero
  // bytes for a faulted seat).
  std::vector<std::string> SeedContributions() const;
  // Any later decision's moves, one per seat: the revealed action, or
  // MOVE_DEFAULT for a faulted seat. Leaves the actions moved out.
  std::vector<v1::Move> TakeMoves();

 private:
  struct SeatProgress {
    bool committed = false;
    Digest commitment = {};
    bool revealed = false;
    bool faulted = false;
    std::optional<v1::Action> action;  // Set by a usable reveal.
  };

  const SeatProgress* Find(int seat) const;
  SeatProgress& At(int seat);
  bool AllCommittedOrFaulted() const;
  bool AllResolved() const;
  bool AnyFaulted() const;

  uint64_t id_ = 0;
  std::vector<int> seats_;
  bool simultaneous_ = false;
  bool reveal_phase_ = false;
  std::vector<SeatProgress> progress_;  // Indexed like seats_.
  // position_[seat]: the seat's index in seats_, or -1; sized to the
  // largest seat asked plus one (IndexOf runs for every record).
  std::vector<int> position_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_DECISION_H_

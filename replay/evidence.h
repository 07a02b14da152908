// Offline checks of transparency-log evidence (docs/transparency-log.md):
// a log against its C2SP tlog-proof, two checkpoints against a consistency
// proof, and a tournament's output directory against its schedule and
// checkpoint. No network, no trust in the referee beyond its key.
#ifndef PYRAMID_REPLAY_EVIDENCE_H_
#define PYRAMID_REPLAY_EVIDENCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/tlog/checkpoint.h"

namespace pyramid {

// Whose signature a checkpoint must carry: a note verifier key
// ("ORIGIN+KEYID+BASE64", which also fixes the origin), or else the
// referee's raw 32-byte Ed25519 key, signing under the origin the
// checkpoint names.
struct CheckpointKey {
  std::string verifier_key;
  std::string public_key;
};

// A key as given on the command line (replay's --key and --tlog_key): the
// key itself or the path of a file that holds it. A value naming an
// existing file is read and its content (surrounding whitespace dropped)
// parsed; else a value that parses as a key is one; else a value that looks
// like a path (it holds '/' but no '+', or ends in .vkey or .pub) fails as
// "cannot read PATH: reason"; else the parse error says what form a key
// takes.
//
// The referee's Ed25519 public key, 64 hex digits: its raw 32 bytes.
absl::StatusOr<std::string> ParseRefereeKeyArgument(std::string_view value);
// A note verifier key NAME+KEYID+BASE64 (the referee's DATA_DIR/tlog.vkey),
// checked and returned as text.
absl::StatusOr<std::string> ParseVerifierKeyArgument(std::string_view value);

// Opens the signed checkpoint `note` with `key`.
absl::StatusOr<tlog::Checkpoint> OpenCheckpointWith(std::string_view note,
                                                    const CheckpointKey& key);

struct Inclusion {
  tlog::Checkpoint checkpoint;  // The checkpoint the proof carries, opened.
  std::string note;             // That checkpoint, verbatim.
  uint64_t index = 0;           // The log's leaf.
};

// Checks that the C2SP tlog-proof `proof_file` proves that the log file
// `log` is a leaf of the tree its checkpoint (signed by `key`) names: the
// leaf hash is SHA-256(0x00 ‖ SHA-256(log)), and the proof's extra data
// must be `match_id` (the log's, 32 hex digits).
absl::StatusOr<Inclusion> CheckInclusion(std::string_view log,
                                         std::string_view match_id,
                                         std::string_view proof_file,
                                         const CheckpointKey& key);

// What `text` looks like, by its first line or form: "an inclusion proof,
// a .tlog-proof file" (kInclusionProofKind), "a consistency proof", "a
// match log", "a checkpoint (a signed note)", or "" (none of them). Names a
// file given in another's place.
std::string FileKind(std::string_view text);
inline constexpr std::string_view kInclusionProofKind =
    "an inclusion proof, a .tlog-proof file";

// How CheckConsistency names its three files (e.g. their paths).
struct ConsistencyNames {
  std::string old_checkpoint = "the old checkpoint";
  std::string new_checkpoint = "the new checkpoint";
  std::string proof = "the proof";
};

// Checks that the checkpoint `new_note` extends `old_note` (same origin,
// both signed by `key`) by the consistency proof file `proof_file`.
// FAILED_PRECONDITION when the files are not what the check takes, a
// mistake in the command rather than a verdict: a file of another kind
// (an inclusion proof, a log, a checkpoint as the proof), the old
// checkpoint larger than the new one (swapped), or a proof between other
// sizes than the checkpoints'. Any other error: the evidence fails (a
// checkpoint not signed by `key`, a damaged proof, a proof that does not
// hold: NOT CONSISTENT).
absl::Status CheckConsistency(std::string_view old_note,
                              std::string_view new_note,
                              std::string_view proof_file,
                              const CheckpointKey& key,
                              const ConsistencyNames& names = {});

struct TournamentVerdict {
  // Set when DIR is not a tournament directory at all (it holds neither
  // schedule.json nor checkpoint): what to say; nothing was checked.
  std::string not_a_tournament;
  std::vector<std::string> problems;  // Empty: the directory checks out.
  std::vector<std::string> notes;     // Informative (e.g. ignored prefixes).
  uint64_t matches = 0;               // Sealed, included, scheduled logs.
  tlog::Checkpoint checkpoint;
  // "N matches, all included in checkpoint SIZE ROOT" or the problem count.
  std::string summary;
};

// The label a tournament's match `index` carries in its log's signed
// header (Header.label): NAME/RUN_ID/INDEX (docs/tournament.md). The
// runner labels matches with it and verify-tournament checks it.
std::string TournamentLabel(std::string_view name, std::string_view run_id,
                            uint32_t index);

// `replay verify-tournament DIR`: every log in DIR/logs verifies against
// the referee's key, every sealed one has DIR/proofs/NAME.tlog-proof proving
// it is in DIR/checkpoint (the same checkpoint for all), and each match of
// DIR/schedule.json has exactly one such log, whose signed label and seats
// are the schedule's, none missing and none extra; each log is of the
// schedule's game. `key` may be empty: the referee key is then read from
// DIR/referee.key.pub, else DIR/referee.pub.
TournamentVerdict CheckTournamentDirectory(const std::string& dir,
                                           CheckpointKey key);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_EVIDENCE_H_

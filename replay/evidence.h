// Offline checks of transparency-log evidence (docs/transparency-log.md):
// a log against its C2SP tlog-proof, and two checkpoints against a
// consistency proof. No network, no trust in the referee beyond its key.
//
// Also includes, for the callers of all evidence checks, the keys they
// take and their command-line arguments (replay/key_arguments.h) and the
// tournament directory check built on these (replay/tournament_check.h).
#ifndef PYRAMID_REPLAY_EVIDENCE_H_
#define PYRAMID_REPLAY_EVIDENCE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/checkpoint.h"
#include "replay/key_arguments.h"
#include "replay/tournament_check.h"

namespace pyramid {

// Opens the signed checkpoint `note` with `key`. With a referee key (no
// verifier key), the key vouches for the origin the note names, except an
// origin of the referee's own form, `pyramid-referee/` and 16 hex digits,
// that names another key: refused (docs/transparency-log.md, "Origin").
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
// The same, for a log known by the SHA-256 of its file, `log_sha256`.
absl::StatusOr<Inclusion> CheckInclusionOfHash(const Digest& log_sha256,
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
// (an inclusion proof, a log, a checkpoint as the proof), checkpoints of
// different logs, which no proof relates ("the checkpoints are of
// different logs: ...", naming each one's origin and signer: two origins,
// or one signed by `key` and the other with no signature line by it, only
// another key's), the old checkpoint larger than the new one (swapped), or
// a proof between other sizes than the checkpoints'. Any other error: the
// evidence fails (a signature by `key` that does not verify, neither
// checkpoint signed by `key`, a damaged proof, a proof that does not hold:
// NOT CONSISTENT).
absl::Status CheckConsistency(std::string_view old_note,
                              std::string_view new_note,
                              std::string_view proof_file,
                              const CheckpointKey& key,
                              const ConsistencyNames& names = {});

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_EVIDENCE_H_

// C2SP tlog checkpoints (https://c2sp.org/tlog-checkpoint): the signed note
// text "ORIGIN\nSIZE\nBASE64(ROOT)\n" naming a tree head, and the C2SP
// tlog-proof@v1 file (https://c2sp.org/tlog-proof) that carries an
// inclusion proof with its signed checkpoint, verifiable offline.
#ifndef PYRAMID_REFEREE_TLOG_CHECKPOINT_H_
#define PYRAMID_REFEREE_TLOG_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/note.h"

namespace pyramid::tlog {

struct Checkpoint {
  std::string origin;
  uint64_t size = 0;
  Digest root{};
};

// The origin a referee names its tree after by default
// (docs/transparency-log.md, "Origin"): "pyramid-referee/" and the first 16
// lower-case hex digits of its Ed25519 public key.
std::string RefereeOrigin(std::string_view public_key);
// The 16 hex digits an origin of that form names; "" for an origin of any
// other form (one a referee's --tlog_origin chose).
std::string_view RefereeKeyPrefixOf(std::string_view origin);
// Whether `origin` begins "pyramid-referee/", the referees' own names, but
// is not RefereeOrigin(public_key): no referee signs under it (a second tree
// its key's holder kept under a look-alike name would be out of sight of
// whoever watches the tree of the key's own name).
bool NamesAnotherRefereeKey(std::string_view origin,
                            std::string_view public_key);

// The note text of `checkpoint`: three lines, no extension lines.
std::string FormatCheckpoint(const Checkpoint& checkpoint);
// Parses a checkpoint's note text: a non-empty origin, the size in decimal
// without leading zeros, the 32-byte root in canonical base64, then any
// non-empty extension lines (ignored).
absl::StatusOr<Checkpoint> ParseCheckpoint(std::string_view text);
// Opens the signed note `note` with `verifier` and parses its text; the
// origin must be `verifier.name` (the referee signs as its origin).
absl::StatusOr<Checkpoint> OpenCheckpoint(std::string_view note,
                                          const NoteVerifier& verifier);

// A c2sp.org/tlog-proof@v1 file.
struct TlogProof {
  std::string extra;           // Opaque, unauthenticated; may be empty.
  uint64_t index = 0;          // The leaf's index.
  std::vector<Digest> hashes;  // RFC 9162 inclusion proof, leaf to root.
  std::string checkpoint;      // The signed checkpoint note, verbatim.
};

std::string FormatTlogProof(const TlogProof& proof);
// Parses the format strictly (the checkpoint is not verified here).
absl::StatusOr<TlogProof> ParseTlogProof(std::string_view text);

// The consistency proof file of this project (docs/transparency-log.md):
//   pyramid-referee/tlog-consistency@v1
//   old OLD_SIZE
//   new NEW_SIZE
//   BASE64(hash)        (zero or more lines, RFC 9162 section 2.1.4 order)
struct ConsistencyProofFile {
  uint64_t old_size = 0;
  uint64_t new_size = 0;
  std::vector<Digest> hashes;
};
std::string FormatConsistencyProof(const ConsistencyProofFile& proof);
absl::StatusOr<ConsistencyProofFile> ParseConsistencyProof(
    std::string_view text);

}  // namespace pyramid::tlog

#endif  // PYRAMID_REFEREE_TLOG_CHECKPOINT_H_

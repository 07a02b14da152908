#include "replay/evidence.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "referee/core/log_format.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/tlog/merkle.h"
#include "referee/tlog/note.h"
#include "referee/tlog/text.h"

namespace pyramid {
namespace {

// "NAME+KEYID" of each signature line of `note` (what the note says signed
// it; nothing is verified); none when the note is malformed.
std::vector<std::string> SignersOf(std::string_view note) {
  std::vector<std::string> signers;
  absl::StatusOr<tlog::ParsedNote> parsed = tlog::ParseNote(note);
  if (!parsed.ok()) return signers;
  for (const tlog::NoteSignature& line : parsed->signatures) {
    signers.push_back(absl::StrFormat("%s+%08x", line.name, line.key_id));
  }
  return signers;
}

// The key `key` (through `verifier`), and whose word it is: "pinned
// referee key HEX" or "pinned verifier key NAME+KEYID", or, for a key
// not pinned (`key.taken_from`), "referee key HEX of WHERE (not pinned)".
std::string PinnedKeyName(const CheckpointKey& key,
                          const tlog::NoteVerifier& verifier) {
  if (key.verifier_key.empty() && !key.taken_from.empty()) {
    return absl::StrCat("referee key ", ToHex(key.public_key), " of ",
                        key.taken_from, " (not pinned)");
  }
  if (key.verifier_key.empty()) {
    return absl::StrCat("pinned referee key ", ToHex(key.public_key));
  }
  return absl::StrCat(
      "pinned verifier key ", verifier.name, "+",
      absl::StrFormat("%08x",
                      tlog::Ed25519KeyId(verifier.name, verifier.public_key)));
}

// Why `note` does not open with `key` (through `verifier`) when no
// signature line of it is by that key: the key as pinned, and what the
// note names instead (its origin and signers), so that the message does
// not read as if the key it names had failed.
std::string NotSignedBy(std::string_view note, const CheckpointKey& key,
                        const tlog::NoteVerifier& verifier) {
  std::string text =
      absl::StrCat("not signed by the ", PinnedKeyName(key, verifier));
  const std::string_view origin = note.substr(0, note.find('\n'));
  absl::StrAppend(&text, "; the checkpoint names origin \"",
                  tlog::ToAbsl(origin), "\"");
  if (const std::string_view named = tlog::RefereeKeyPrefixOf(origin);
      !named.empty()) {
    absl::StrAppend(&text, " (a referee key beginning ", tlog::ToAbsl(named),
                    ")");
  }
  const std::vector<std::string> signers = SignersOf(note);
  if (!signers.empty()) {
    absl::StrAppend(&text, " and is signed by ", absl::StrJoin(signers, ", "));
  }
  return text;
}

// A checkpoint the pinned referee key signed under an origin of the
// referees' own (pyramid-referee/...) that is not the key's: refused
// (tlog::NamesAnotherRefereeKey). (An origin of any other form,
// --tlog_origin's, is the key's to vouch for.)
absl::Status WrongRefereeOrigin(std::string_view origin,
                                const CheckpointKey& key) {
  if (!tlog::NamesAnotherRefereeKey(origin, key.public_key)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "checkpoint: signed by the ",
      key.taken_from.empty()
          ? std::string("pinned referee key")
          : absl::StrCat("referee key of ", key.taken_from, " (not pinned)"),
      " under origin \"", tlog::ToAbsl(origin), "\", not the key's own ",
      tlog::RefereeOrigin(key.public_key),
      ": a referee names its tree after its own key (pin the tree's "
      "verifier key, --tlog_key, to accept that origin)"));
}

// A checkpoint opened with the pinned key, or why not.
struct OpenedCheckpoint {
  absl::StatusOr<tlog::Checkpoint> checkpoint;
  // Not opened because no signature line of it is by the pinned key: the
  // checkpoint of a log another key signs (not one whose signature by that
  // key does not verify, a damaged note, or an origin the key does not
  // vouch for).
  bool by_another_key = false;
  // The pinned key, named as PinnedKeyName names it ("" when it does not
  // parse).
  std::string pinned;
};

OpenedCheckpoint OpenCheckpoint(std::string_view note,
                                const CheckpointKey& key) {
  tlog::NoteVerifier verifier;
  if (!key.verifier_key.empty()) {
    absl::StatusOr<tlog::NoteVerifier> parsed =
        tlog::ParseVerifierKey(key.verifier_key);
    if (!parsed.ok()) return {parsed.status(), false, ""};
    verifier = *std::move(parsed);
  } else {
    if (key.public_key.size() != kPublicKeySize) {
      return {
          absl::InvalidArgumentError(
              "no key to check the checkpoint with (pin the referee's key)"),
          false, ""};
    }
    // The origin is the note's first line; the key then vouches for it
    // (but see WrongRefereeOrigin).
    verifier.name = std::string(note.substr(0, note.find('\n')));
    verifier.public_key = key.public_key;
  }
  OpenedCheckpoint opened{tlog::OpenCheckpoint(note, verifier), false,
                          PinnedKeyName(key, verifier)};
  if (!opened.checkpoint.ok()) {
    // OpenNote names the key it wanted as NAME+KEYID+KEY, NAME being the
    // origin taken from the note itself: say instead which key was pinned
    // and what the note names.
    const std::string_view why =
        tlog::ToStd(opened.checkpoint.status().message());
    opened.by_another_key = why.starts_with("not signed by ");
    opened.checkpoint = absl::InvalidArgumentError(absl::StrCat(
        "checkpoint: ", opened.by_another_key ? NotSignedBy(note, key, verifier)
                                              : std::string(why)));
    return opened;
  }
  if (key.verifier_key.empty()) {
    if (absl::Status s = WrongRefereeOrigin(opened.checkpoint->origin, key);
        !s.ok()) {
      opened.checkpoint = s;
    }
  }
  return opened;
}

}  // namespace

absl::StatusOr<tlog::Checkpoint> OpenCheckpointWith(std::string_view note,
                                                    const CheckpointKey& key) {
  return OpenCheckpoint(note, key).checkpoint;
}

absl::StatusOr<Inclusion> CheckInclusion(std::string_view log,
                                         std::string_view match_id,
                                         std::string_view proof_file,
                                         const CheckpointKey& key) {
  return CheckInclusionOfHash(Sha256(log), match_id, proof_file, key);
}

absl::StatusOr<Inclusion> CheckInclusionOfHash(const Digest& log_sha256,
                                               std::string_view match_id,
                                               std::string_view proof_file,
                                               const CheckpointKey& key) {
  absl::StatusOr<tlog::TlogProof> proof = tlog::ParseTlogProof(proof_file);
  if (!proof.ok()) return proof.status();
  if (proof->extra.empty() && !match_id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the proof names no match (it has no extra line, which names the "
        "match whose log it proves); the log is match ",
        std::string(match_id)));
  }
  if (proof->extra != match_id) {
    // The extra data is any bytes: printed escaped, never raw.
    return absl::InvalidArgumentError(absl::StrCat(
        "the proof is for match \"", absl::CHexEscape(proof->extra),
        "\", the log is match ", std::string(match_id)));
  }
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      OpenCheckpointWith(proof->checkpoint, key);
  if (!checkpoint.ok()) return checkpoint.status();
  const Digest leaf = tlog::LeafHash(AsView(log_sha256));
  if (!tlog::VerifyInclusion(proof->index, checkpoint->size, leaf,
                             proof->hashes, checkpoint->root)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the inclusion proof does not lead from the log (leaf ", proof->index,
        ") to the root of the checkpoint of size ", checkpoint->size));
  }
  return Inclusion{*checkpoint, proof->checkpoint, proof->index};
}

namespace {

constexpr std::string_view kConsistencyHeader =
    "pyramid-referee/tlog-consistency@v1";
constexpr std::string_view kConsistencyKind = "a consistency proof";
constexpr std::string_view kCheckpointKind = "a checkpoint (a signed note)";

}  // namespace

std::string FileKind(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  if (first == "c2sp.org/tlog-proof@v1") {
    return std::string(kInclusionProofKind);
  }
  if (first == kConsistencyHeader) return std::string(kConsistencyKind);
  if (text.starts_with(log_format::kMagic)) return "a match log";
  // A signed note whose text is a checkpoint's (a damaged .tlog-proof,
  // which ends with a checkpoint, is a note too, but its text is not one).
  if (absl::StatusOr<tlog::ParsedNote> note = tlog::ParseNote(text);
      note.ok() && tlog::ParseCheckpoint(note->text).ok()) {
    return std::string(kCheckpointKind);
  }
  return "";
}

namespace {

// `note`, opened as `opened`, as DifferentLogs names it: origin "X" (the
// key that signed it).
std::string LogOf(std::string_view note, const OpenedCheckpoint& opened) {
  if (opened.checkpoint.ok()) {
    return absl::StrCat("origin \"", opened.checkpoint->origin,
                        "\" (signed by the ", opened.pinned, ")");
  }
  const std::vector<std::string> signers = SignersOf(note);
  return absl::StrCat("origin \"",
                      tlog::ToAbsl(note.substr(0, note.find('\n'))),
                      "\" (signed by ",
                      signers.empty() ? "no key" : absl::StrJoin(signers, ", "),
                      ", not by the ", opened.pinned, ")");
}

// Why two checkpoints, each the pinned key's or another key's and not
// both another's, are not comparable: of two origins, or of two keys.
std::string DifferentLogs(const ConsistencyNames& names,
                          std::string_view old_note,
                          const OpenedCheckpoint& old_opened,
                          std::string_view new_note,
                          const OpenedCheckpoint& new_opened) {
  return absl::StrCat(
      "the checkpoints are of different logs: ", names.old_checkpoint, " is ",
      LogOf(old_note, old_opened), ", ", names.new_checkpoint, " is ",
      LogOf(new_note, new_opened),
      "; a consistency proof relates two checkpoints of one "
      "log");
}

}  // namespace

absl::Status CheckConsistency(std::string_view old_note,
                              std::string_view new_note,
                              std::string_view proof_file,
                              const CheckpointKey& key,
                              const ConsistencyNames& names) {
  // A file given in another's place is a mistake in the command, said as
  // such rather than as a verdict on the log.
  const std::pair<std::string_view, const std::string*> notes[] = {
      {old_note, &names.old_checkpoint}, {new_note, &names.new_checkpoint}};
  for (const auto& [note, name] : notes) {
    // A checkpoint that does not parse as a note is a damaged one.
    if (const std::string kind = FileKind(note);
        !kind.empty() && kind != kCheckpointKind) {
      return absl::FailedPreconditionError(absl::StrCat(
          *name, " is not a checkpoint (it looks like ", kind, ")"));
    }
  }
  if (const std::string kind = FileKind(proof_file); kind != kConsistencyKind) {
    return absl::FailedPreconditionError(absl::StrCat(
        names.proof, " is not a consistency proof (",
        kind.empty() ? absl::StrCat("its first line is not ",
                                    tlog::ToAbsl(kConsistencyHeader))
                     : absl::StrCat("it looks like ", kind),
        ")"));
  }
  const OpenedCheckpoint old_opened = OpenCheckpoint(old_note, key);
  const OpenedCheckpoint new_opened = OpenCheckpoint(new_note, key);
  // A checkpoint the pinned key does not open is a verdict (NOT
  // CONSISTENT), unless it is another key's and the other checkpoint the
  // pinned key's: then the two are of different logs.
  if (!old_opened.checkpoint.ok() &&
      !(old_opened.by_another_key && new_opened.checkpoint.ok())) {
    return absl::InvalidArgumentError(
        absl::StrCat("old ", old_opened.checkpoint.status().message()));
  }
  if (!new_opened.checkpoint.ok() &&
      !(new_opened.by_another_key && old_opened.checkpoint.ok())) {
    return absl::InvalidArgumentError(
        absl::StrCat("new ", new_opened.checkpoint.status().message()));
  }
  if (!old_opened.checkpoint.ok() || !new_opened.checkpoint.ok() ||
      old_opened.checkpoint->origin != new_opened.checkpoint->origin) {
    return absl::FailedPreconditionError(
        DifferentLogs(names, old_note, old_opened, new_note, new_opened));
  }
  const tlog::Checkpoint& old_checkpoint = *old_opened.checkpoint;
  const tlog::Checkpoint& new_checkpoint = *new_opened.checkpoint;
  if (old_checkpoint.size > new_checkpoint.size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the old checkpoint (size ", old_checkpoint.size,
        ") is larger than the new one (size ", new_checkpoint.size,
        "): swapped? The older checkpoint comes first (if it is the older, "
        "the tree shrank, which no proof can show consistent)"));
  }
  // One size, two roots: no proof can reconcile them (a fork).
  if (old_checkpoint.size == new_checkpoint.size &&
      old_checkpoint.root != new_checkpoint.root) {
    return absl::InvalidArgumentError(absl::StrCat(
        "two checkpoints of size ", old_checkpoint.size,
        " with different roots: the key signed two trees of one size (a "
        "fork)"));
  }
  absl::StatusOr<tlog::ConsistencyProofFile> proof =
      tlog::ParseConsistencyProof(proof_file);
  if (!proof.ok()) return proof.status();
  if (proof->old_size != old_checkpoint.size ||
      proof->new_size != new_checkpoint.size) {
    return absl::FailedPreconditionError(absl::StrCat(
        names.proof, " is from size ", proof->old_size, " to ", proof->new_size,
        "; the checkpoints are of sizes ", old_checkpoint.size, " and ",
        new_checkpoint.size, ": give the proof between them",
        old_checkpoint.size == 0
            ? std::string(" (from size 0: no hashes)")
            : absl::StrCat(" (refctl consistency ", old_checkpoint.size, " ",
                           new_checkpoint.size, ")")));
  }
  if (!tlog::VerifyConsistency(old_checkpoint.size, new_checkpoint.size,
                               old_checkpoint.root, new_checkpoint.root,
                               proof->hashes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the proof does not show that the tree of size ", old_checkpoint.size,
        " is a prefix of the tree of size ", new_checkpoint.size));
  }
  return absl::OkStatus();
}

}  // namespace pyramid

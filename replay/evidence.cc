#include "replay/evidence.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/tlog/merkle.h"
#include "referee/tlog/note.h"
#include "referee/tlog/text.h"
#include "replay/ordered_pool.h"
#include "replay/verifier.h"

namespace pyramid {

std::string TournamentLabel(std::string_view name, std::string_view run_id,
                            uint32_t index) {
  return absl::StrCat(std::string(name), "/", std::string(run_id), "/", index);
}
namespace {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;

std::string RootHex(const tlog::Checkpoint& checkpoint) {
  return ToHex(AsView(checkpoint.root));
}

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

// Why `note` does not open with `key` (through `verifier`) when no
// signature line of it is by that key: the key as pinned, and what the
// note names instead (its origin and signers), so that the message does
// not read as if the key it names had failed.
std::string NotSignedBy(std::string_view note, const CheckpointKey& key,
                        const tlog::NoteVerifier& verifier) {
  std::string text = absl::StrCat(
      "not signed by the pinned ",
      key.verifier_key.empty()
          ? absl::StrCat("referee key ", ToHex(key.public_key))
          : absl::StrCat("verifier key ", verifier.name, "+",
                         absl::StrFormat(
                             "%08x", tlog::Ed25519KeyId(verifier.name,
                                                        verifier.public_key))));
  const std::string_view origin = note.substr(0, note.find('\n'));
  absl::StrAppend(&text, "; the checkpoint names origin \"",
                  tlog::ToAbsl(origin), "\"");
  // The referee names its log after its key (docs/transparency-log.md).
  constexpr std::string_view kRefereeOrigin = "pyramid-referee/";
  if (origin.starts_with(kRefereeOrigin) &&
      origin.size() == kRefereeOrigin.size() + 16 &&
      FromHex(origin.substr(kRefereeOrigin.size())).ok()) {
    absl::StrAppend(&text, " (a referee key beginning ",
                    tlog::ToAbsl(origin.substr(kRefereeOrigin.size())), ")");
  }
  const std::vector<std::string> signers = SignersOf(note);
  if (!signers.empty()) {
    absl::StrAppend(&text, " and is signed by ", absl::StrJoin(signers, ", "));
  }
  return text;
}

// A key given as text, or as the path of a file holding it
// (ParseRefereeKeyArgument); `parse` parses the text of a key.
absl::StatusOr<std::string> ParseKeyArgument(
    std::string_view value,
    absl::StatusOr<std::string> (*parse)(std::string_view)) {
  const std::string path(value);
  std::error_code error;
  if (fs::is_regular_file(path, error)) {
    absl::StatusOr<std::string> text = ReadFileToString(path);
    if (!text.ok()) return text.status();
    const absl::string_view stripped = absl::StripAsciiWhitespace(*text);
    absl::StatusOr<std::string> key =
        parse(std::string_view(stripped.data(), stripped.size()));
    if (!key.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", key.status().message()));
    }
    return key;
  }
  absl::StatusOr<std::string> key = parse(value);
  if (key.ok()) return key;
  // A verifier key holds '+' (and its origin often '/'); a hex key neither.
  const bool looks_like_path = value.ends_with(".vkey") ||
                               value.ends_with(".pub") ||
                               (value.find('/') != std::string_view::npos &&
                                value.find('+') == std::string_view::npos);
  if (!looks_like_path) {
    return absl::InvalidArgumentError(
        absl::StrCat(key.status().message(), " (and no file has that name)"));
  }
  std::string why = "not a regular file";
  const fs::file_status status = fs::status(path, error);
  if (error) {
    why = error.message();
  } else if (fs::is_directory(status)) {
    why = "it is a directory";
  }
  return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", why));
}

// Checked before FromHex, whose result is then returned as it is: moving a
// StatusOr<std::string> out of a local makes GCC 12 warn at -O3
// (-Warray-bounds, wrongly; as in referee/crypto/ed25519.cc).
absl::StatusOr<std::string> ParseRawKey(std::string_view text) {
  if (text.size() != 2 * kPublicKeySize ||
      !std::all_of(text.begin(), text.end(), [](char c) {
        return absl::ascii_isxdigit(static_cast<unsigned char>(c));
      })) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad referee key \"", tlog::ToAbsl(text),
                     "\": want 64 hex digits (its Ed25519 public key)"));
  }
  return FromHex(text);
}

absl::StatusOr<std::string> ParseVerifierKeyText(std::string_view text) {
  absl::Status status = tlog::ParseVerifierKey(text).status();
  if (!status.ok()) return status;
  return std::string(text);
}

}  // namespace

absl::StatusOr<std::string> ParseRefereeKeyArgument(std::string_view value) {
  absl::StatusOr<std::string> key = ParseKeyArgument(value, ParseRawKey);
  if (!key.ok()) return key;
  // A secret key file holds its seed as 64 hex digits too, beside
  // FILE.pub (keygen, the referee's DATA_DIR/referee.key): taken for a
  // public key it would pin a key no log has, and be printed as one.
  const std::string path(value);
  std::error_code error;
  if (fs::is_regular_file(path, error) &&
      fs::is_regular_file(path + ".pub", error)) {
    absl::StatusOr<std::string> pub = ParsePublicKey(path + ".pub");
    absl::StatusOr<SigningKey> secret = SigningKey::FromSeed(*key);
    if (pub.ok() && secret.ok() && secret->public_key() == *pub) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " holds a secret key; give the public key (", path, ".pub)"));
    }
  }
  return key;
}

absl::StatusOr<std::string> ParseVerifierKeyArgument(std::string_view value) {
  return ParseKeyArgument(value, ParseVerifierKeyText);
}

absl::StatusOr<tlog::Checkpoint> OpenCheckpointWith(std::string_view note,
                                                    const CheckpointKey& key) {
  tlog::NoteVerifier verifier;
  if (!key.verifier_key.empty()) {
    absl::StatusOr<tlog::NoteVerifier> parsed =
        tlog::ParseVerifierKey(key.verifier_key);
    if (!parsed.ok()) return parsed.status();
    verifier = *std::move(parsed);
  } else {
    if (key.public_key.size() != kPublicKeySize) {
      return absl::InvalidArgumentError(
          "no key to check the checkpoint with (pin the referee's key)");
    }
    // The origin is the note's first line; the key then vouches for it.
    const size_t end = note.find('\n');
    verifier.name = std::string(note.substr(0, end));
    verifier.public_key = key.public_key;
  }
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      tlog::OpenCheckpoint(note, verifier);
  if (!checkpoint.ok()) {
    // OpenNote names the key it wanted as NAME+KEYID+KEY, NAME being the
    // origin taken from the note itself: say instead which key was pinned
    // and what the note names.
    const std::string_view why = tlog::ToStd(checkpoint.status().message());
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint: ", why.starts_with("not signed by ")
                                         ? NotSignedBy(note, key, verifier)
                                         : std::string(why)));
  }
  return checkpoint;
}

absl::StatusOr<Inclusion> CheckInclusion(std::string_view log,
                                         std::string_view match_id,
                                         std::string_view proof_file,
                                         const CheckpointKey& key) {
  absl::StatusOr<tlog::TlogProof> proof = tlog::ParseTlogProof(proof_file);
  if (!proof.ok()) return proof.status();
  if (proof->extra != match_id) {
    // The extra data is any bytes: printed escaped, never raw.
    return absl::InvalidArgumentError(absl::StrCat(
        "the proof is for match \"", absl::CHexEscape(proof->extra),
        "\", the log is match ", std::string(match_id)));
  }
  absl::StatusOr<tlog::Checkpoint> checkpoint =
      OpenCheckpointWith(proof->checkpoint, key);
  if (!checkpoint.ok()) return checkpoint.status();
  const Digest leaf = tlog::LeafHash(AsView(Sha256(log)));
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
  absl::StatusOr<tlog::Checkpoint> old_checkpoint =
      OpenCheckpointWith(old_note, key);
  if (!old_checkpoint.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("old ", old_checkpoint.status().message()));
  }
  absl::StatusOr<tlog::Checkpoint> new_checkpoint =
      OpenCheckpointWith(new_note, key);
  if (!new_checkpoint.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("new ", new_checkpoint.status().message()));
  }
  if (old_checkpoint->origin != new_checkpoint->origin) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the checkpoints are of two logs: ", old_checkpoint->origin, " and ",
        new_checkpoint->origin));
  }
  if (old_checkpoint->size > new_checkpoint->size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the old checkpoint (size ", old_checkpoint->size,
        ") is larger than the new one (size ", new_checkpoint->size,
        "): swapped? The older checkpoint comes first"));
  }
  absl::StatusOr<tlog::ConsistencyProofFile> proof =
      tlog::ParseConsistencyProof(proof_file);
  if (!proof.ok()) return proof.status();
  if (proof->old_size != old_checkpoint->size ||
      proof->new_size != new_checkpoint->size) {
    return absl::FailedPreconditionError(absl::StrCat(
        names.proof, " is from size ", proof->old_size, " to ", proof->new_size,
        "; the checkpoints are of sizes ", old_checkpoint->size, " and ",
        new_checkpoint->size, ": give the proof between them",
        old_checkpoint->size == 0
            ? std::string(" (from size 0: no hashes)")
            : absl::StrCat(" (refctl consistency ", old_checkpoint->size, " ",
                           new_checkpoint->size, ")")));
  }
  if (!tlog::VerifyConsistency(old_checkpoint->size, new_checkpoint->size,
                               old_checkpoint->root, new_checkpoint->root,
                               proof->hashes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the proof does not show that the tree of size ", old_checkpoint->size,
        " is a prefix of the tree of size ", new_checkpoint->size));
  }
  return absl::OkStatus();
}

namespace {

// What checking one log of a tournament directory found: a problem or a
// note (or neither); once it checks out, its label and the proof it used.
struct LogCheck {
  std::string problem;
  std::string note;
  std::string label;
  std::string proof;
};

// Why the entry at `path` of a tournament directory is not read: a FIFO
// would wait for a writer forever, and a device (a link to /dev/zero)
// would be read without end. OK for a regular file, a directory and an
// entry that cannot be looked at, which the read that follows names.
absl::Status NotAFile(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || fs::is_regular_file(status) || fs::is_directory(status) ||
      !fs::exists(status)) {
    return absl::OkStatus();
  }
  const char* what = fs::is_fifo(status)     ? "a FIFO"
                     : fs::is_socket(status) ? "a socket"
                                             : "a device";
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot read ", path.string(), ": it is ", what, ", not a file"));
}

// The whole file at `path`, an entry of a tournament directory: as
// ReadFileToString, but only a file (NotAFile).
absl::StatusOr<std::string> ReadEntry(const fs::path& path) {
  if (absl::Status s = NotAFile(path); !s.ok()) return s;
  return ReadFileToString(path.string());
}

// What differs between the checkpoint `proved` a proof carries and the
// directory's `checkpoint`, both opened with the referee's key: "" when
// they name the same tree (origin, size and root), else what the proof's
// says against the directory's, e.g. "the checkpoint of size 3, not in
// the directory's checkpoint (size 6)".
std::string CheckpointDifference(const tlog::Checkpoint& proved,
                                 const tlog::Checkpoint& checkpoint) {
  if (proved.origin != checkpoint.origin) {
    return absl::StrCat("a checkpoint of origin \"", proved.origin,
                        "\", not in the directory's checkpoint (origin \"",
                        checkpoint.origin, "\")");
  }
  if (proved.size != checkpoint.size) {
    return absl::StrCat("the checkpoint of size ", proved.size,
                        ", not in the directory's checkpoint (size ",
                        checkpoint.size, ")");
  }
  if (proved.root != checkpoint.root) {
    return absl::StrCat("a checkpoint of size ", proved.size, " with root ",
                        RootHex(proved),
                        ", not in the directory's checkpoint (same size, root ",
                        RootHex(checkpoint), ")");
  }
  return "";
}

// Checks the log at `path` against the directory's `schedule` (its
// entries by label: `by_label`) and `checkpoint` (signed by `key`):
// genuine (a log signed with `options`' key), of the schedule's game,
// scheduled with its seats, and proved included in that checkpoint by its
// proof in `root`/proofs. Safe to run for several logs at once.
LogCheck CheckLog(
    const fs::path& root, const fs::path& path, const VerifyOptions& options,
    const v1::TournamentSchedule& schedule,
    const std::map<std::string, const v1::ScheduleEntry*>& by_label,
    const tlog::Checkpoint& checkpoint, const CheckpointKey& key) {
  LogCheck check;
  const std::string name = path.filename().string();
  absl::StatusOr<std::string> bytes = ReadEntry(path);
  if (!bytes.ok()) {
    check.problem = absl::StrCat("logs/", name, ": ", bytes.status().message());
    return check;
  }
  const Verdict v = VerifyLog(*bytes, options);
  if (v.kind == Verdict::Kind::kUnsealedPrefix) {
    check.note = absl::StrCat("logs/", name,
                              ": unsealed prefix, not counted (a match cut "
                              "short, e.g. by an interrupted run)");
    return check;
  }
  if (v.kind != Verdict::Kind::kGenuine) {
    check.problem = absl::StrCat("logs/", name, ": NOT GENUINE: record ",
                                 v.bad_record, ": ", v.reason);
    return check;
  }
  if (v.header.game().game() != schedule.game()) {
    check.problem = absl::StrCat(
        "logs/", name, ": a ", v.header.game().game(), " log; the schedule ",
        schedule.game().empty() ? std::string("names no game")
                                : absl::StrCat("is of ", schedule.game()));
    return check;
  }
  const std::string label = v.header.label();
  auto scheduled = by_label.find(label);
  if (scheduled == by_label.end()) {
    check.problem = absl::StrCat("logs/", name, ": extra: its label \"", label,
                                 "\" is not in the schedule");
    return check;
  }
  std::vector<std::string> seats;
  for (const auto& seat : v.header.seats()) seats.push_back(seat.name());
  if (!std::equal(seats.begin(), seats.end(),
                  scheduled->second->seats().begin(),
                  scheduled->second->seats().end())) {
    check.problem = absl::StrCat("logs/", name,
                                 ": its seats are not those the schedule "
                                 "gives match ",
                                 scheduled->second->index());
    return check;
  }
  const std::string proof_name = path.stem().string() + ".tlog-proof";
  const fs::path proof_path = root / "proofs" / proof_name;
  absl::StatusOr<std::string> proof = ReadEntry(proof_path);
  if (!proof.ok()) {
    // A proof that is there but cannot be read (a directory, no
    // permission) is named with why, not reported missing.
    std::error_code error;
    const bool absent = !fs::exists(proof_path, error) && !error;
    check.problem =
        absent ? absl::StrCat("logs/", name, ": no inclusion proof (proofs/",
                              proof_name, ")")
               : absl::StrCat("proofs/", proof_name, ": ",
                              proof.status().message());
    return check;
  }
  check.proof = proof_name;
  absl::StatusOr<Inclusion> inclusion =
      CheckInclusion(*bytes, ToHex(v.header.match_id()), *proof, key);
  if (!inclusion.ok()) {
    check.problem =
        absl::StrCat("proofs/", proof_name, ": ", inclusion.status().message());
    return check;
  }
  // What the two signed checkpoints say, not their bytes: a witness's
  // cosignature line (C2SP tlog-witness) changes the note, not the tree.
  if (const std::string differs =
          CheckpointDifference(inclusion->checkpoint, checkpoint);
      !differs.empty()) {
    check.problem =
        absl::StrCat("proofs/", proof_name, ": proves inclusion in ", differs);
    return check;
  }
  check.label = label;
  return check;
}

// Whether an entry is at `path`: a file or directory, or one that cannot
// be looked at (a loop of symbolic links, no permission), which the read
// that follows names with why. fs::exists without an error_code throws on
// the last, which a tournament directory, outside input, may hold.
bool IsThere(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error) || error;
}

// The entries of `root`/`name`, a subdirectory of a tournament directory:
// none when it is missing (what it should hold is then missing, and said
// so where it is looked for); a directory that is there but cannot be
// listed (no permission, not a directory) is a `problem`, naming why.
template <typename Problem>
std::vector<fs::directory_entry> ListDirectory(const fs::path& root,
                                               const std::string& name,
                                               Problem& problem) {
  std::vector<fs::directory_entry> entries;
  const fs::path path = root / name;
  std::error_code error;
  fs::directory_iterator it(path, error);
  while (!error && it != fs::directory_iterator()) {
    entries.push_back(*it);
    it.increment(error);
  }
  if (error && error != std::errc::no_such_file_or_directory) {
    problem(absl::StrCat(name, "/: cannot list ", path.string(), ": ",
                         error.message()));
  }
  return entries;
}

}  // namespace

TournamentVerdict CheckTournamentDirectory(const std::string& dir,
                                           CheckpointKey key) {
  TournamentVerdict verdict;
  auto problem = [&](std::string text) {
    verdict.problems.push_back(std::move(text));
  };
  auto finish = [&]() -> TournamentVerdict {
    verdict.summary =
        verdict.problems.empty()
            ? absl::StrCat(
                  verdict.matches, " matches, all included in checkpoint ",
                  verdict.checkpoint.size, " ", RootHex(verdict.checkpoint))
            : absl::StrCat(verdict.problems.size(), " problem",
                           verdict.problems.size() == 1 ? "" : "s");
    return verdict;
  };
  const fs::path root(dir);
  // A directory with neither of the files every tournament's output holds
  // is not one (say, the wrong path): an input error, not a verdict.
  if (!IsThere(root / "schedule.json") && !IsThere(root / "checkpoint")) {
    verdict.not_a_tournament = absl::StrCat(
        dir,
        " is not a tournament directory (no schedule.json, no checkpoint)");
    verdict.summary = verdict.not_a_tournament;
    return verdict;
  }
  // The referee's key.
  if (key.verifier_key.empty() && key.public_key.empty()) {
    // Either file (the runner writes one); both must then be the same key.
    std::string found;
    for (const char* name : {"referee.key.pub", "referee.pub"}) {
      if (!IsThere(root / name)) continue;
      if (absl::Status s = NotAFile(root / name); !s.ok()) {
        problem(absl::StrCat(name, ": ", s.message()));
        return finish();
      }
      absl::StatusOr<std::string> parsed =
          ParsePublicKey((root / name).string());
      if (!parsed.ok()) {
        problem(absl::StrCat(name, ": ", parsed.status().message()));
        return finish();
      }
      if (!key.public_key.empty() && key.public_key != *parsed) {
        problem(absl::StrCat(found, " and ", name,
                             " hold different referee keys (",
                             ToHex(key.public_key), " and ", ToHex(*parsed),
                             "); pass the referee's with --key"));
        return finish();
      }
      key.public_key = *parsed;
      found = name;
    }
    if (key.public_key.empty()) {
      problem(
          "no referee key: the directory holds no referee.key.pub or "
          "referee.pub; pass --key");
      return finish();
    }
  }
  // The checkpoint.
  absl::StatusOr<std::string> note = ReadEntry(root / "checkpoint");
  if (!note.ok()) {
    problem(absl::StrCat("checkpoint: ", note.status().message()));
    return finish();
  }
  absl::StatusOr<tlog::Checkpoint> checkpoint = OpenCheckpointWith(*note, key);
  if (!checkpoint.ok()) {
    problem(std::string(checkpoint.status().message()));
    return finish();
  }
  verdict.checkpoint = *checkpoint;
  // The schedule.
  absl::StatusOr<std::string> schedule_json = ReadEntry(root / "schedule.json");
  if (!schedule_json.ok()) {
    problem(absl::StrCat("schedule.json: ", schedule_json.status().message()));
    return finish();
  }
  v1::TournamentSchedule schedule;
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(
          *schedule_json, &schedule);
      !parsed.ok()) {
    // The parser's reason is its message's first line (what follows quotes
    // the text around the place, over lines of their own).
    const std::string why(parsed.message());
    problem(absl::StrCat(
        "schedule.json is not a TournamentSchedule in JSON: ",
        absl::StripTrailingAsciiWhitespace(why.substr(0, why.find('\n')))));
    return finish();
  }
  // Matches are numbered from 0 without a gap and labelled NAME/RUN/INDEX,
  // as each log's signed header is: a match cut from the schedule's middle
  // shows as a gap.
  std::map<std::string, const v1::ScheduleEntry*> by_label;
  for (int i = 0; i < schedule.matches_size(); ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(i);
    if (entry.index() != static_cast<uint32_t>(i)) {
      problem(absl::StrCat("the schedule's entry ", i, " is numbered ",
                           entry.index(),
                           "; matches are numbered from 0 "
                           "without a gap"));
    }
    const std::string label =
        TournamentLabel(schedule.name(), schedule.run_id(), i);
    if (entry.label() != label) {
      problem(absl::StrCat("the schedule's entry ", i, " is labelled \"",
                           entry.label(), "\", not \"", label, "\""));
    }
  }
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    if (!by_label.emplace(entry.label(), &entry).second) {
      problem(
          absl::StrCat("the schedule lists label ", entry.label(), " twice"));
    }
  }
  // Every log.
  std::map<std::string, std::vector<std::string>> logs_by_label;
  std::set<std::string> proofs_used;
  std::vector<fs::path> logs;
  for (const auto& entry : ListDirectory(root, "logs", problem)) {
    if (entry.path().extension() == ".pyrlog") logs.push_back(entry.path());
  }
  std::sort(logs.begin(), logs.end());
  VerifyOptions options;
  options.pinned_key = key.public_key;
  if (options.pinned_key.empty()) {
    // A verifier key names the origin, not the log key: the log must then
    // be signed with the key the checkpoint's verifier holds.
    absl::StatusOr<tlog::NoteVerifier> verifier =
        tlog::ParseVerifierKey(key.verifier_key);
    if (verifier.ok()) options.pinned_key = verifier->public_key;
  }
  // Each log is checked on its own, on every core (CheckLog); what they
  // found is taken in the logs' order.
  std::vector<LogCheck> checks(logs.size());
  RunInOrder(
      logs.size(), PoolSize(logs.size()),
      [&](size_t i) {
        checks[i] = CheckLog(root, logs[i], options, schedule, by_label,
                             *checkpoint, key);
        return JobOutput();
      },
      [](size_t, const JobOutput&) {});
  for (size_t i = 0; i < logs.size(); ++i) {
    LogCheck& check = checks[i];
    if (!check.note.empty()) verdict.notes.push_back(std::move(check.note));
    if (!check.problem.empty()) problem(std::move(check.problem));
    if (!check.proof.empty()) proofs_used.insert(std::move(check.proof));
    if (!check.label.empty()) {
      logs_by_label[check.label].push_back(logs[i].filename().string());
    }
  }
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    // A label the schedule lists twice (said above) is the first entry's:
    // its log counts once, not once per entry.
    if (by_label.at(entry.label()) != &entry) continue;
    const std::vector<std::string>& found = logs_by_label[entry.label()];
    if (entry.skipped()) {
      if (!found.empty()) {
        problem(absl::StrCat("match ", entry.index(), " (", entry.label(),
                             ") is marked skipped but has a log"));
      }
      continue;
    }
    if (found.empty()) {
      problem(absl::StrCat("match ", entry.index(), " (", entry.label(),
                           ") is missing: no sealed, included log"));
    } else if (found.size() > 1) {
      problem(absl::StrCat("match ", entry.index(), " (", entry.label(),
                           ") has ", found.size(),
                           " logs: ", absl::StrJoin(found, ", ")));
    } else {
      ++verdict.matches;
    }
  }
  // A proof no counted log used: its log is missing, or does not count
  // (not genuine, unsealed, not scheduled so: said above, under its name).
  for (const auto& entry : ListDirectory(root, "proofs", problem)) {
    const std::string name = entry.path().filename().string();
    if (proofs_used.contains(name)) continue;
    const std::string log =
        absl::StrCat("logs/", entry.path().stem().string(), ".pyrlog");
    problem(absl::StrCat(
        "proofs/", name, ": ",
        IsThere(root / log)
            ? absl::StrCat("a proof whose log does not count (see ", log,
                           " above)")
            : std::string("a proof without its log")));
  }
  return finish();
}

}  // namespace pyramid

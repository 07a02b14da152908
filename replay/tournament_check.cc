#include "replay/tournament_check.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/cli/text_proto.h"
#include "referee/core/log_format.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/games/printable_text.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "replay/log_file.h"
#include "replay/match_settings.h"
#include "replay/ordered_pool.h"
#include "replay/results_check.h"
#include "replay/seat_roster.h"
#include "replay/strict_json.h"
#include "replay/verifier.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/standings.h"

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

// Adds `problem` to `verdict` (TournamentVerdict's contract): listed
// while fewer than kMaxListedProblems are, counted always. A hostile
// schedule of millions of bad entries would otherwise be millions of
// lines.
void AddProblem(TournamentVerdict& verdict, std::string problem) {
  if (verdict.problem_count++ < kMaxListedProblems) {
    verdict.problems.push_back(std::move(problem));
  }
}

// A schedule's entries by label (a label listed twice: its first entry).
using ScheduleIndex = std::map<std::string, const v1::ScheduleEntry*>;

// What checking one log of a tournament directory found: a problem or a
// note (or neither); once it checks out, its label; the proof it used, or
// whose problem it names (one that cannot be read: so that it is not named
// again as a stray).
struct LogCheck {
  std::string problem;
  std::string note;
  std::string label;
  std::string proof;
  uint64_t seats = 0;      // The log's seats (once it checks out).
  uint64_t leaf = 0;       // Its leaf in the checkpoint (once it checks out).
  MatchSettings settings;  // Once it checks out.
  CountedMatch counted;    // What it says of its match, once it checks out.
  // The match id of a sealed log (genuine under the referee's key),
  // whatever else is said of it: a leaf of the referee's tree.
  std::string sealed_match_id;
  // The label of the scheduled match a sealed log or an unsealed prefix
  // carries, whatever else is said of it: when it does not count, the
  // match's own line names it.
  std::string scheduled_label;
  // An unsealed prefix: its label and match id (32 hex digits), and the
  // index of the scheduled match of that label (if one is). What is said
  // of it (a note, or a problem when its match's counted log is another
  // match) waits for the other logs.
  bool unsealed = false;
  std::string unsealed_label;
  std::string unsealed_match_id;
  uint32_t unsealed_index = 0;
};

// The match id a log's file name names: the runner names each log
// GAME-MATCH_ID.pyrlog, MATCH_ID 32 lower-case hex digits. "" when the
// name is not of that form.
std::string NamedMatchId(const fs::path& path) {
  const std::string stem = path.stem().string();
  const size_t dash = stem.rfind('-');
  if (dash == std::string::npos) return "";
  const std::string id = stem.substr(dash + 1);
  const bool hex =
      id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
        return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
      });
  return hex ? id : "";
}

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

// The most read of a small file of the directory (an inclusion proof: at
// most 64 hashes and a checkpoint, a few KiB; the checkpoint; the
// tournament file): a larger one is refused unread, so that a hostile
// directory cannot make the check hold gigabytes per file.
constexpr uint64_t kMaxSmallFileBytes = 1 << 20;

// The whole file at `path`, an entry of a tournament directory: as
// ReadFileToString(path, max_bytes) (a larger file refused unread, a file
// that grows past it refused once it has), but only a file (NotAFile).
absl::StatusOr<std::string> ReadEntry(const fs::path& path,
                                      uint64_t max_bytes) {
  if (absl::Status s = NotAFile(path); !s.ok()) return s;
  return ReadFileToString(path.string(), max_bytes);
}

absl::StatusOr<std::string> ReadSmallEntry(const fs::path& path) {
  return ReadEntry(path, kMaxSmallFileBytes);
}

// The verdict on the log at `path` with `options` and the SHA-256 of its
// bytes: `known`'s when it knows the file, else read and verified here.
absl::StatusOr<std::shared_ptr<const KnownLog>> VerdictOn(
    const fs::path& path, const VerifyOptions& options,
    const KnownLogs& known) {
  if (known) {
    if (std::shared_ptr<const KnownLog> log =
            known(path.string(), options.pinned_key)) {
      return log;
    }
  }
  // Read within the budget the logs checked in parallel share; a file
  // that is not a log is read no further than its first bytes (its
  // verdict is then NOT GENUINE, and its hash is of those bytes).
  if (absl::Status s = NotAFile(path); !s.ok()) return s;
  absl::StatusOr<LogFile> bytes = ReadLog(path.string());
  if (!bytes.ok()) return bytes.status();
  auto log = std::make_shared<KnownLog>();
  log->verdict = VerifyLog(bytes->bytes(), options);
  log->sha256 = Sha256(bytes->bytes());
  return log;
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
LogCheck CheckLog(const fs::path& root, const fs::path& path,
                  const VerifyOptions& options,
                  const v1::TournamentSchedule& schedule,
                  const ScheduleIndex& by_label,
                  const tlog::Checkpoint& checkpoint, const CheckpointKey& key,
                  const SeatRoster* roster, const KnownLogs& known) {
  LogCheck check;
  // The file's name, the log's game and label are anyone's: escaped
  // (printable_text.h) before they reach a problem or a note.
  const std::string name = PrintableText(path.filename().string());
  absl::StatusOr<std::shared_ptr<const KnownLog>> log =
      VerdictOn(path, options, known);
  if (!log.ok()) {
    check.problem = absl::StrCat("logs/", name, ": ", log.status().message());
    return check;
  }
  Verdict v = (*log)->verdict;  // A copy: JudgeSeats may say why not.
  if (v.kind == Verdict::Kind::kUnsealedPrefix) {
    // Its header is signed (by a checkpoint record): its label and match
    // id are the referee's.
    check.unsealed = true;
    check.unsealed_label = v.header.label();
    check.unsealed_match_id = ToHex(v.header.match_id());
    if (const auto scheduled = by_label.find(check.unsealed_label);
        scheduled != by_label.end()) {
      check.scheduled_label = check.unsealed_label;
      check.unsealed_index = scheduled->second->index();
    }
    return check;
  }
  if (v.kind != Verdict::Kind::kGenuine) {
    check.problem = absl::StrCat("logs/", name, ": NOT GENUINE: record ",
                                 v.bad_record, ": ", v.reason);
    return check;
  }
  check.sealed_match_id = v.header.match_id();
  const std::string label = v.header.label();
  auto scheduled = by_label.find(label);
  if (scheduled != by_label.end()) check.scheduled_label = label;
  if (v.header.game().game() != schedule.game()) {
    check.problem = absl::StrCat(
        "logs/", name, ": a ", PrintableText(v.header.game().game()),
        " log; the schedule ",
        schedule.game().empty() ? std::string("names no game")
                                : absl::StrCat("is of ", schedule.game()));
    return check;
  }
  // A sealed log all the same (a leaf of the tree, counted as one above),
  // but not the match of the auditor's bots.
  if (roster != nullptr && !JudgeSeats(*roster, v)) {
    check.problem = absl::StrCat("logs/", name, ": NOT GENUINE: record ",
                                 v.bad_record, ": ", v.reason);
    return check;
  }
  if (scheduled == by_label.end()) {
    check.problem = absl::StrCat("logs/", name, ": extra: its label ",
                                 QuotedText(label), " is not in the schedule");
    return check;
  }
  std::vector<std::string> seats;
  for (const auto& seat : v.header.seats()) seats.push_back(seat.name());
  if (!std::equal(seats.begin(), seats.end(),
                  scheduled->second->seats().begin(),
                  scheduled->second->seats().end())) {
    check.problem = absl::StrCat(
        "logs/", name, ": its seats (", QuotedSeatList(seats),
        ") are not those the schedule gives match ", scheduled->second->index(),
        " (", QuotedSeatList(scheduled->second->seats()), ")");
    return check;
  }
  const std::string proof_name = path.stem().string() + ".tlog-proof";
  const fs::path proof_path = root / "proofs" / proof_name;
  absl::StatusOr<std::string> proof = ReadSmallEntry(proof_path);
  if (!proof.ok()) {
    // A proof that is there but cannot be read (a directory, no
    // permission) is named with why, not reported missing.
    std::error_code error;
    const bool absent = !fs::exists(proof_path, error) && !error;
    if (!absent) check.proof = proof_name;
    check.problem =
        absent ? absl::StrCat("logs/", name, ": no inclusion proof (proofs/",
                              PrintableText(proof_name), ")")
               : absl::StrCat("proofs/", PrintableText(proof_name), ": ",
                              proof.status().message());
    return check;
  }
  check.proof = proof_name;
  absl::StatusOr<Inclusion> inclusion = CheckInclusionOfHash(
      (*log)->sha256, ToHex(v.header.match_id()), *proof, key);
  if (!inclusion.ok()) {
    check.problem =
        absl::StrCat("proofs/", proof_name, ": ", inclusion.status().message());
    // A log under another match's name (two logs' names swapped, one
    // copied over another) has that match's proof: say so first.
    if (const std::string named = NamedMatchId(path);
        !named.empty() && named != ToHex(v.header.match_id())) {
      check.problem = absl::StrCat(
          "logs/", name, ": holds match ", scheduled->second->index(),
          "'s label ", QuotedText(label), " but is named for match ", named,
          ", not for its own match id ", ToHex(v.header.match_id()),
          " (logs' names swapped, or a log copied under another's name): ",
          check.problem);
    }
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
  // The file's own name, as the runner writes it in results.json (`name`
  // is escaped for printing; results_check escapes it where it prints it).
  check.counted =
      CountedMatchOf(v, absl::StrCat("logs/", path.filename().string()));
  check.leaf = inclusion->index;
  check.seats = v.header.seats_size();
  check.settings = SettingsOf(v.header);
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
// listed (no permission, not a directory) adds a problem to `verdict`
// (unless null), naming why.
std::vector<fs::directory_entry> ListDirectory(const fs::path& root,
                                               const std::string& name,
                                               TournamentVerdict* verdict) {
  std::vector<fs::directory_entry> entries;
  const fs::path path = root / name;
  std::error_code error;
  fs::directory_iterator it(path, error);
  while (!error && it != fs::directory_iterator()) {
    entries.push_back(*it);
    it.increment(error);
  }
  if (verdict != nullptr && error &&
      error != std::errc::no_such_file_or_directory) {
    AddProblem(*verdict, absl::StrCat(name, "/: cannot list ", path.string(),
                                      ": ", error.message()));
  }
  return entries;
}

// What is wrong with an entry of a subdirectory of a tournament directory
// (its path): "" when nothing, else why it is a stray.
using WhyStray = std::function<std::string(const fs::path&)>;

// The entries of `root`/`name` (ListDirectory) that `why_stray` finds
// nothing wrong with, sorted; each other adds the problem "NAME/ENTRY:
// WHY" to `verdict`. So that neither logs/ nor proofs/ holds an entry
// that the check passes over in silence.
std::vector<fs::path> EntriesNotStray(const fs::path& root,
                                      const std::string& name,
                                      const WhyStray& why_stray,
                                      TournamentVerdict& verdict) {
  std::vector<fs::path> kept;
  for (const auto& entry : ListDirectory(root, name, &verdict)) {
    kept.push_back(entry.path());
  }
  std::sort(kept.begin(), kept.end());
  std::vector<fs::path> entries;
  for (fs::path& path : kept) {
    const std::string why = why_stray(path);
    if (why.empty()) {
      entries.push_back(std::move(path));
    } else {
      AddProblem(verdict, absl::StrCat(name, "/",
                                       PrintableText(path.filename().string()),
                                       ": ", why));
    }
  }
  return entries;
}

// Whether the entry at `path` in DIR/logs is the viewer page `replay html
// --key=K DIR/logs/MATCH.pyrlog` writes beside its log (docs/tournament.md,
// "Progress and output"): a file MATCH.html where MATCH.pyrlog is. Not
// read: what it says is the word of whoever wrote it.
bool IsViewerPage(const fs::path& path) {
  if (path.extension() != ".html") return false;
  std::error_code error;
  const bool file = fs::is_regular_file(path, error) && !error;
  fs::path log = path;
  log.replace_extension(log_format::kFileExtension);
  return file && fs::exists(log, error) && !error;
}

// Why the entry at `path` in DIR/logs is not a log the check reads (the
// runner writes MATCH.pyrlog there and nothing else; `replay html`,
// MATCH.html beside it); "" when it is one, or such a page.
std::string WhyNotALog(const fs::path& path) {
  if (path.extension() == log_format::kFileExtension) return "";
  if (IsViewerPage(path)) return "";
  std::error_code error;
  return absl::StrCat(fs::is_directory(path, error) ? "a directory" : "a file",
                      " not named MATCH.pyrlog, so not checked as a log: "
                      "logs/ holds the logs alone");
}

// `status` with its message after `prefix` and ": " (the entry it is of).
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(prefix, ": ", status.message()));
}

// The referee's public key as DIR holds it, and the files it was read
// from ("referee.key.pub", "referee.pub", or both, "and" between them).
struct DirectoryKey {
  std::string key;
  std::string files;
};

// The referee's public key, from DIR/referee.key.pub or DIR/referee.pub
// (the runner writes one; when both are there, they must hold the same
// key); why there is none as the problem to report otherwise.
absl::StatusOr<DirectoryKey> RefereeKeyFromDirectory(const fs::path& root) {
  DirectoryKey found;
  for (const char* name : {"referee.key.pub", "referee.pub"}) {
    if (!IsThere(root / name)) continue;
    if (absl::Status s = NotAFile(root / name); !s.ok()) {
      return Prefixed(name, s);
    }
    absl::StatusOr<std::string> parsed = ParsePublicKey((root / name).string());
    if (!parsed.ok()) return Prefixed(name, parsed.status());
    if (!found.key.empty() && found.key != *parsed) {
      return absl::InvalidArgumentError(absl::StrCat(
          found.files, " and ", name, " hold different referee keys (",
          ToHex(found.key), " and ", ToHex(*parsed),
          "); pass the referee's with --key"));
    }
    found.key = *parsed;
    absl::StrAppend(&found.files, found.files.empty() ? "" : " and ", name);
  }
  if (found.key.empty()) {
    return absl::NotFoundError(
        "no referee key: the directory holds no referee.key.pub or "
        "referee.pub; pass --key");
  }
  return found;
}

// DIR/checkpoint, opened with `key`; the problem to report otherwise.
absl::StatusOr<tlog::Checkpoint> ReadCheckpoint(const fs::path& root,
                                                const CheckpointKey& key) {
  absl::StatusOr<std::string> note = ReadSmallEntry(root / "checkpoint");
  if (!note.ok()) return Prefixed("checkpoint", note.status());
  return OpenCheckpointWith(*note, key);
}

// DIR/schedule.json, parsed; the problem to report otherwise.
absl::StatusOr<v1::TournamentSchedule> ReadSchedule(const fs::path& root) {
  absl::StatusOr<std::string> json =
      ReadEntry(root / "schedule.json", kMaxScheduleBytes);
  if (!json.ok()) return Prefixed("schedule.json", json.status());
  // Checked before protobuf's parser reads it: that parser reads texts
  // other JSON readers read otherwise (what an auditor's jq or Python shows
  // must be the schedule checked here), and it costs up to 90 bytes of
  // memory for each byte of a text of tiny values ("{}," 22 million times).
  if (absl::Status strict = CheckJsonShape(
          *json, *v1::TournamentSchedule::descriptor(), kMaxScheduleValues);
      !strict.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule.json: ", strict.message(),
                     absl::IsFailedPrecondition(strict)
                         ? ": refused, since JSON readers differ on such a file"
                         : ""));
  }
  v1::TournamentSchedule schedule;
  if (const auto parsed =
          google::protobuf::util::JsonStringToMessage(*json, &schedule);
      !parsed.ok()) {
    // The parser's reason is its message's first line (what follows quotes
    // the text around the place, over lines of their own).
    const std::string why(parsed.message());
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule.json is not a TournamentSchedule in JSON: ",
        absl::StripTrailingAsciiWhitespace(why.substr(0, why.find('\n')))));
  }
  return schedule;
}

// The schedule's entries by label. Matches are numbered from 0 without a
// gap and labelled NAME/RUN/INDEX, as each log's signed header is: a match
// cut from the schedule's middle shows as a gap. Adds to `verdict` a
// schedule without a match, each entry that is not so, then each label
// listed twice.
ScheduleIndex IndexSchedule(const v1::TournamentSchedule& schedule,
                            TournamentVerdict& verdict) {
  if (schedule.matches().empty()) {
    AddProblem(verdict,
               "the schedule lists no match: a tournament plays at least one");
  }
  for (int i = 0; i < schedule.matches_size(); ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(i);
    if (entry.index() != static_cast<uint32_t>(i)) {
      AddProblem(verdict, absl::StrCat("the schedule's entry ", i,
                                       " is numbered ", entry.index(),
                                       "; matches are numbered from 0 "
                                       "without a gap"));
    }
    const std::string label =
        TournamentLabel(schedule.name(), schedule.run_id(), i);
    if (entry.label() != label) {
      AddProblem(verdict,
                 absl::StrCat("the schedule's entry ", i, " is labelled \"",
                              entry.label(), "\", not \"", label, "\""));
    }
  }
  ScheduleIndex by_label;
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    if (!by_label.emplace(entry.label(), &entry).second) {
      AddProblem(verdict, absl::StrCat("the schedule lists label ",
                                       entry.label(), " twice"));
    }
  }
  return by_label;
}

// How each log is verified: against the referee's key in `key`, or else
// the key of its verifier key (which names the origin, not the log key:
// the log must then be signed with the key the checkpoint's verifier
// holds).
VerifyOptions LogOptions(const CheckpointKey& key) {
  VerifyOptions options;
  options.pinned_key = key.public_key;
  if (options.pinned_key.empty()) {
    absl::StatusOr<tlog::NoteVerifier> verifier =
        tlog::ParseVerifierKey(key.verifier_key);
    if (verifier.ok()) options.pinned_key = verifier->public_key;
  }
  return options;
}

// What the logs that check out (CheckLog) add up to.
struct LogsFound {
  // The file names of the logs of each label, and their leaves.
  std::map<std::string, std::vector<std::string>> by_label;
  std::map<std::string, std::vector<uint64_t>> leaves;
  // And what they say of their matches (as `by_label`).
  std::map<std::string, std::vector<CountedMatch>> counted;
  // The file names of the sealed logs of each scheduled label that do not
  // count, each with why in a few words.
  std::map<std::string, std::vector<std::string>> not_counted;
  // The names of their proofs, and of those a log's problem names.
  std::set<std::string> proofs_used;
  // The match ids of every sealed log in DIR/logs, whether it counts or
  // not: the leaves of the referee's tree the directory holds.
  std::set<std::string> sealed;
  // How many of them were proved included in the directory's checkpoint.
  uint64_t included = 0;
};

// Adds to `verdict` what the unsealed prefix logs/`name` (`check`) is: a
// note, naming its label and match id; a problem when it carries a
// scheduled match's label and another match id than each log of that label
// that checks out (`checked_out`: file name and match id by label), since
// the referee then gave that label to two matches: the match was played
// again. A copy cut short of the counted log (the same match id) is a note.
void SayUnsealedPrefix(
    const std::string& name, const LogCheck& check,
    const std::map<std::string,
                   std::vector<std::pair<std::string, std::string>>>&
        checked_out,
    TournamentVerdict& verdict) {
  const std::string what = absl::StrCat(
      "logs/", name, ": unsealed prefix of ",
      check.scheduled_label.empty()
          ? absl::StrCat("label ", QuotedText(check.unsealed_label),
                         ", not in the schedule")
          : absl::StrCat("match ", check.unsealed_index, " (label ",
                         QuotedText(check.unsealed_label), ")"),
      ", match id ", check.unsealed_match_id);
  const auto counted = checked_out.find(check.scheduled_label);
  if (check.scheduled_label.empty() || counted == checked_out.end()) {
    verdict.notes.push_back(absl::StrCat(
        what, ", not counted (a match cut short, e.g. by an interrupted run)"));
    return;
  }
  std::vector<std::string> others;
  for (const auto& [file, id] : counted->second) {
    if (id == check.unsealed_match_id) {
      verdict.notes.push_back(
          absl::StrCat(what, ", not counted: a copy cut short of logs/", file,
                       ", the match's log, of the same match id"));
      return;
    }
    others.push_back(absl::StrCat("logs/", file, ", match id ", id));
  }
  AddProblem(
      verdict,
      absl::StrCat(
          what, ", another match than the log of that label that counts (",
          absl::StrJoin(others, "; "),
          "): the referee gave the label to two matches, so match ",
          check.unsealed_index,
          " was played again, as a match replayed until its result suits "
          "someone is (a match that broke, which the referee replaces under "
          "its label, leaves such a prefix too: `refctl list "
          "--status=broken` lists it)"));
}

// Checks every DIR/logs/*.pyrlog (CheckLog), each on its own, on every
// core; adds what they found to `verdict`'s problems and notes in the
// logs' order, and returns the logs that check out.
LogsFound CheckLogs(const fs::path& root, const CheckpointKey& key,
                    const tlog::Checkpoint& checkpoint,
                    const v1::TournamentSchedule& schedule,
                    const ScheduleIndex& by_label, const SeatRoster* roster,
                    const KnownLogs& known, TournamentVerdict& verdict) {
  std::vector<fs::path> logs;
  std::vector<fs::path> pages;
  for (fs::path& entry : EntriesNotStray(root, "logs", WhyNotALog, verdict)) {
    (entry.extension() == log_format::kFileExtension ? logs : pages)
        .push_back(std::move(entry));
  }
  if (!pages.empty()) {
    verdict.notes.push_back(absl::StrCat(
        "logs/ holds ", pages.size(), " viewer page",
        pages.size() == 1 ? "" : "s", " (",
        pages.size() == 1 ? "" : "the first ", "logs/",
        PrintableText(pages[0].filename().string()),
        ", beside its log, as "
        "`replay html` writes ",
        pages.size() == 1 ? "it" : "them",
        "), not checked: a page says what whoever wrote it made it say"));
  }
  const VerifyOptions options = LogOptions(key);
  std::vector<LogCheck> checks(logs.size());
  RunInOrder(
      logs.size(), PoolSize(logs.size()),
      [&](size_t i) {
        checks[i] = CheckLog(root, logs[i], options, schedule, by_label,
                             checkpoint, key, roster, known);
        return JobOutput();
      },
      [](size_t, const JobOutput&) {});
  // The logs that check out of each label: file name and match id.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      checked_out;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (checks[i].label.empty()) continue;
    checked_out[checks[i].label].emplace_back(
        PrintableText(logs[i].filename().string()),
        ToHex(checks[i].sealed_match_id));
  }
  LogsFound found;
  std::vector<SettledLog> settled;
  for (size_t i = 0; i < logs.size(); ++i) {
    LogCheck& check = checks[i];
    if (check.unsealed) {
      SayUnsealedPrefix(PrintableText(logs[i].filename().string()), check,
                        checked_out, verdict);
    }
    if (!check.note.empty()) verdict.notes.push_back(std::move(check.note));
    if (!check.problem.empty()) {
      AddProblem(verdict, std::move(check.problem));
    }
    if (!check.proof.empty()) found.proofs_used.insert(std::move(check.proof));
    if (!check.sealed_match_id.empty()) {
      found.sealed.insert(std::move(check.sealed_match_id));
    }
    if (check.label.empty() && !check.scheduled_label.empty()) {
      found.not_counted[check.scheduled_label].push_back(absl::StrCat(
          "logs/", PrintableText(logs[i].filename().string()),
          check.unsealed ? " holds its label but is an unsealed prefix"
                         : " holds its label but does not count (its own "
                           "line says why)"));
    }
    if (!check.label.empty()) {
      ++found.included;
      found.by_label[check.label].push_back(
          PrintableText(logs[i].filename().string()));
      found.leaves[check.label].push_back(check.leaf);
      found.counted[check.label].push_back(std::move(check.counted));
      if (roster != nullptr) verdict.seats_matching_roster += check.seats;
      settled.push_back(SettledLog{PrintableText(logs[i].filename().string()),
                                   std::move(check.settings)});
    }
  }
  // Every match of a tournament is created with the tournament's settings.
  for (std::string& problem : SettingsProblems(settled)) {
    AddProblem(verdict, std::move(problem));
  }
  return found;
}

// Counts in `verdict` the matches of the schedule that have exactly one
// log that checks out (`logs.by_label`), and the first and last leaf of
// those logs; adds a problem for each other match: missing (or with logs
// of its label that do not count, `logs.not_counted`: named), with more
// than one log, or skipped but with a log. Returns what each counted log
// says of its match, by the match's index.
std::map<uint32_t, CountedMatch> MatchLogsToSchedule(
    const v1::TournamentSchedule& schedule, const ScheduleIndex& by_label,
    const LogsFound& logs_found, TournamentVerdict& verdict) {
  const auto& logs_by_label = logs_found.by_label;
  const auto& not_counted = logs_found.not_counted;
  std::map<uint32_t, CountedMatch> counted;
  const std::vector<std::string> none;
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    // A label the schedule lists twice (said by IndexSchedule) is the first
    // entry's: its log counts once, not once per entry.
    if (by_label.at(entry.label()) != &entry) continue;
    const auto logs = logs_by_label.find(entry.label());
    const std::vector<std::string>& found =
        logs == logs_by_label.end() ? none : logs->second;
    if (entry.skipped()) {
      if (!found.empty()) {
        AddProblem(verdict,
                   absl::StrCat("match ", entry.index(), " (", entry.label(),
                                ") is marked skipped but has a log"));
      }
      continue;
    }
    const auto others = not_counted.find(entry.label());
    if (found.empty() && others != not_counted.end()) {
      AddProblem(verdict,
                 absl::StrCat("match ", entry.index(), " (", entry.label(),
                              ") has no log that "
                              "counts: ",
                              absl::StrJoin(others->second, "; ")));
    } else if (found.empty()) {
      AddProblem(verdict,
                 absl::StrCat("match ", entry.index(), " (", entry.label(),
                              ") is missing: no sealed, included log"));
    } else if (found.size() > 1) {
      AddProblem(verdict, absl::StrCat("match ", entry.index(), " (",
                                       entry.label(), ") has ", found.size(),
                                       " logs: ", absl::StrJoin(found, ", ")));
    } else {
      const uint64_t leaf = logs_found.leaves.at(entry.label()).front();
      counted[entry.index()] = logs_found.counted.at(entry.label()).front();
      if (verdict.matches == 0 || leaf < verdict.first_leaf) {
        verdict.first_leaf = leaf;
      }
      if (verdict.matches == 0 || leaf > verdict.last_leaf) {
        verdict.last_leaf = leaf;
      }
      ++verdict.matches;
    }
  }
  return counted;
}

// DIR/tournament.txt, the tournament file the runner copies into its
// output directory (docs/tournament.md, "Resume"), when it is `schedule`'s
// tournament (its name and game); else why not: NOT_FOUND when the
// directory holds none, else what is wrong with it, `what` ("which would
// show an SPRT") saying what it was read for.
absl::StatusOr<v1::Tournament> TournamentFileOf(
    const fs::path& root, const v1::TournamentSchedule& schedule,
    absl::string_view what) {
  const fs::path path = root / "tournament.txt";
  if (!IsThere(path)) {
    return absl::NotFoundError("the directory holds no tournament.txt");
  }
  absl::StatusOr<std::string> text = ReadSmallEntry(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tournament.txt, ", what,
                     ", cannot be read: ", text.status().message()));
  }
  v1::Tournament tournament;
  if (absl::Status s = ParseTextProto(*text, tournament); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tournament.txt, ", what,
                     ", is not a Tournament in text format: ", s.message()));
  }
  // An empty name is the default's (Tournament.name), as the runner reads it.
  if (tournament.name().empty()) tournament.set_name("tournament");
  if (tournament.name() != schedule.name() ||
      tournament.game().game() != schedule.game()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tournament.txt is another tournament's (\"", tournament.name(),
        "\" of ", tournament.game().game(), ", the schedule's \"",
        schedule.name(), "\" of ", schedule.game(), ")"));
  }
  return tournament;
}

// Why DIR/tournament.txt does not show that `schedule`'s tournament had an
// SPRT; "" when it does. Only a decided SPRT makes the runner skip matches.
std::string WhyNoSprt(const fs::path& root,
                      const v1::TournamentSchedule& schedule) {
  absl::StatusOr<v1::Tournament> tournament =
      TournamentFileOf(root, schedule, "which would show an SPRT");
  if (absl::IsNotFound(tournament.status())) {
    return "the directory holds no tournament.txt (the tournament file the "
           "runner copies there) to show an SPRT, and only an SPRT that has "
           "decided skips matches";
  }
  if (!tournament.ok()) return std::string(tournament.status().message());
  if (!tournament->has_sprt()) {
    return "the tournament (tournament.txt) has no SPRT, and only an SPRT "
           "that has decided skips matches";
  }
  return "";
}

// The tournament's settings that make its schedule, for a message:
// "GAUNTLET, 4 bots, 3 seats, 2 rounds, seed 0".
std::string ScheduleSettings(const v1::Tournament& t) {
  return absl::StrCat(v1::TournamentFormat_Name(t.format()).empty()
                          ? absl::StrCat("format ", t.format())
                          : v1::TournamentFormat_Name(t.format()),
                      ", ", t.bots_size(), " bot",
                      t.bots_size() == 1 ? "" : "s", ", ", t.seats(), " seat",
                      t.seats() == 1 ? "" : "s", ", ", t.rounds(), " round",
                      t.rounds() == 1 ? "" : "s", ", seed ", t.seed());
}

// The number of matches MakeSchedule lists for a round robin or gauntlet
// of `num_bots` bots at `seats` seats for `rounds` rounds (its own count,
// made before it lists any), so that a tournament.txt of more matches
// than schedule.json is told without listing them; nullopt when
// MakeSchedule refuses them (too few bots or seats, no round, more than
// kMaxScheduledMatches matches), which it does before listing any.
std::optional<uint64_t> FixedScheduleSize(v1::TournamentFormat format,
                                          int num_bots, int seats,
                                          uint32_t rounds) {
  if (seats < 2 || num_bots < seats || rounds < 1) return std::nullopt;
  const int free_bots = format == v1::GAUNTLET ? num_bots - 1 : num_bots;
  const int free_seats = format == v1::GAUNTLET ? seats - 1 : seats;
  uint64_t count = 1;
  for (int k = 1; k <= free_seats && count <= kMaxScheduledMatches; ++k) {
    count = count * static_cast<uint64_t>(free_bots - free_seats + k) / k;
  }
  if (count > kMaxScheduledMatches) return std::nullopt;
  count *= static_cast<uint64_t>(seats);
  if (count > kMaxScheduledMatches || count * rounds > kMaxScheduledMatches) {
    return std::nullopt;
  }
  return count * rounds;
}

// "" when schedule.json's entry `i` is the match `made` (index, label
// NAME/RUN_ID/INDEX and seats by bot name, as the runner writes it; the
// skipped flag aside), else how it differs.
std::string EntryDifference(const v1::TournamentSchedule& schedule, int i,
                            const ScheduledMatch& made,
                            const std::vector<std::string>& names) {
  const v1::ScheduleEntry& entry = schedule.matches(i);
  if (entry.index() != made.index) {
    return absl::StrCat("schedule.json's entry ", i, " is numbered ",
                        entry.index(), ", tournament.txt's ", made.index);
  }
  const std::string label =
      TournamentLabel(schedule.name(), schedule.run_id(), made.index);
  if (entry.label() != label) {
    return absl::StrCat("match ", made.index, " is labelled ",
                        QuotedText(entry.label()), ", not ", QuotedText(label));
  }
  std::vector<std::string> seats;
  for (int bot : made.bots) seats.push_back(names[bot]);
  if (!std::equal(entry.seats().begin(), entry.seats().end(), seats.begin(),
                  seats.end())) {
    return absl::StrCat("match ", made.index, " seats ", QuotedSeatList(seats),
                        " in tournament.txt's schedule, ",
                        QuotedSeatList(entry.seats()), " in schedule.json");
  }
  return "";
}

// The most bots of a Swiss tournament whose first round is paired here by
// PairSwissRound (its cost grows as the cube of the bots); with more, by
// what it gives with no results: ranked by index, nobody has met, each bot
// from the top takes the next, the last the bye when the count is odd.
constexpr int kMaxPairedBots = 512;

// Why `t` (Swiss) cannot have made a schedule.json of `listed` matches,
// before any of them is read: two seats a match, at most
// SwissScheduleSize's matches for t's bots and rounds, and whole rounds
// of bots / 2 pairs (2 matches each) and at least one. "" when it can.
std::string SwissShapeDifference(const v1::Tournament& t, uint64_t listed) {
  if (t.seats() != 2) {
    return absl::StrCat("Swiss pairs two seats per match; tournament.txt has ",
                        t.seats(), " seats");
  }
  const int n = t.bots_size();
  absl::StatusOr<uint32_t> most = SwissScheduleSize(n, t.rounds());
  if (!most.ok()) return std::string(most.status().message());
  const uint64_t per_round = static_cast<uint64_t>(n / 2 * 2);
  if (listed > *most) {
    return absl::StrCat("tournament.txt's ", t.rounds(), " round",
                        t.rounds() == 1 ? "" : "s", " play at most ", *most,
                        " matches, schedule.json lists ", listed);
  }
  if (listed % per_round != 0 || listed == 0) {
    return absl::StrCat("schedule.json lists ", listed,
                        " matches, not whole rounds of ", per_round, " (", n,
                        " bots)");
  }
  return "";
}

// The matches of the first Swiss round of `n` bots, numbered from 0, as
// the runner pairs it before any result: PairSwissRound's with no
// results up to kMaxPairedBots bots; with more, what that gives (ranked
// by index, nobody has met: each bot from the top takes the next, the
// last the bye when `n` is odd), without its cost.
std::vector<ScheduledMatch> SwissFirstRound(int n) {
  if (n <= kMaxPairedBots) {
    return SwissRoundMatches(
        PairSwissRound(std::vector<double>(n, 0),
                       std::vector<std::vector<int>>(n, std::vector<int>(n, 0)),
                       std::vector<bool>(n, false)),
        0);
  }
  SwissRound round;
  for (int bot = 0; bot + 1 < n; bot += 2)
    round.pairs.emplace_back(bot, bot + 1);
  return SwissRoundMatches(round, 0);
}

// The first entry of `schedule` (whole Swiss rounds, SwissShapeDifference)
// that is not SwissFirstRound's match of that index for `names` (the bots
// of tournament.txt in order; EntryDifference), said as the first round's;
// "" when there is none.
std::string SwissFirstRoundDifference(const v1::TournamentSchedule& schedule,
                                      const std::vector<std::string>& names) {
  for (const ScheduledMatch& made :
       SwissFirstRound(static_cast<int>(names.size()))) {
    if (std::string differs = EntryDifference(
            schedule, static_cast<int>(made.index), made, names);
        !differs.empty()) {
      return absl::StrCat(differs,
                          " (the first round, paired before any "
                          "result)");
    }
  }
  return "";
}

// Why Swiss round `round` (1 on), `schedule`'s `per_round` entries from
// `first_index` (which it holds), is not a round of pairs: entries
// numbered as their places, each two in a row one pair of two seats in
// both seat orders, every seat a bot of `bot_of` (tournament.txt's, by
// name, to its index), no bot in two pairs. "" when it is, with
// `playing` (one flag a bot, all false on entry) set for each bot seated.
std::string SwissRoundShapeDifference(const v1::TournamentSchedule& schedule,
                                      const std::map<std::string, int>& bot_of,
                                      uint64_t first_index, uint64_t per_round,
                                      uint64_t round,
                                      std::vector<bool>& playing) {
  for (uint64_t i = first_index; i < first_index + per_round; i += 2) {
    const v1::ScheduleEntry& a = schedule.matches(static_cast<int>(i));
    const v1::ScheduleEntry& b = schedule.matches(static_cast<int>(i + 1));
    const std::string match = absl::StrCat("match ", a.index());
    if (a.index() != i || b.index() != i + 1) {
      return absl::StrCat("schedule.json's entry ", a.index() != i ? i : i + 1,
                          " is numbered ",
                          a.index() != i ? a.index() : b.index());
    }
    if (a.seats_size() != 2 || b.seats_size() != 2 ||
        a.seats(0) != b.seats(1) || a.seats(1) != b.seats(0)) {
      return absl::StrCat(match, " (", QuotedSeatList(a.seats()),
                          ") and match ", b.index(), " (",
                          QuotedSeatList(b.seats()),
                          ") are not one Swiss pair in both seat orders");
    }
    for (const std::string& seat : a.seats()) {
      const auto bot = bot_of.find(seat);
      if (bot == bot_of.end()) {
        return absl::StrCat(match, " seats ", QuotedText(seat),
                            ", no bot of tournament.txt");
      }
      if (playing[bot->second]) {
        return absl::StrCat(match, " seats ", QuotedText(seat),
                            ", who plays another pair of round ", round);
      }
      playing[bot->second] = true;
    }
  }
  return "";
}

// What the Swiss rounds checked so far add up to, by bot index, as the
// runner pairs the next round from them (Runner::SwissMatches): each
// counted log's outcome worth PairwisePoints to each seat and each bye 2
// points, the games between each two bots, and the byes had.
struct SwissTally {
  std::vector<double> points;
  std::vector<std::vector<int>> games;  // Empty unless `recompute`.
  std::vector<bool> had_bye;
  int byes = 0;  // How many bots have had a bye.
  // Whether the next round is still recomputed (SwissPairingDifference):
  // false with more than kMaxPairedBots bots, after a match with no
  // counted log, and after a round said in a note.
  bool recompute = false;
};

// The tally of `n` bots before the first round.
SwissTally EmptySwissTally(int n) {
  SwissTally tally;
  tally.points.assign(n, 0);
  tally.had_bye.assign(n, false);
  tally.recompute = n <= kMaxPairedBots;
  if (tally.recompute) tally.games.assign(n, std::vector<int>(n, 0));
  return tally;
}

// With `tally.recompute`, the first entry of Swiss round `round` (2 on;
// `schedule`'s entries from `first_index`, of the right shape) that is
// not PairSwissRound's pairing of `tally` (EntryDifference, `names` the
// bots of tournament.txt): "" when there is none. When some match before
// the round has a sealed log in superseded/ (`replayed`, by index: played
// again on a resume, and the runner may have paired the round from the
// earlier result), the difference is said in `notes` instead, "" is
// returned and `tally.recompute` is cleared: later rounds are the host's
// word too. Without `tally.recompute`, "".
std::string SwissPairingDifference(const v1::TournamentSchedule& schedule,
                                   const std::vector<std::string>& names,
                                   const std::set<uint32_t>& replayed,
                                   uint64_t first_index, uint64_t round,
                                   SwissTally& tally,
                                   std::vector<std::string>& notes) {
  if (!tally.recompute) return "";
  const SwissRound pairing =
      PairSwissRound(tally.points, tally.games, tally.had_bye);
  for (const ScheduledMatch& made :
       SwissRoundMatches(pairing, static_cast<uint32_t>(first_index))) {
    std::string differs =
        EntryDifference(schedule, static_cast<int>(made.index), made, names);
    if (differs.empty()) continue;
    const std::string what = absl::StrCat(
        differs, " (round ", round,
        ", which the runner pairs from the counted results of the ",
        round == 2 ? "round" : "rounds", " before it)");
    const auto earlier = replayed.begin();
    if (earlier == replayed.end() || *earlier >= first_index) return what;
    notes.push_back(absl::StrCat(
        "schedule.json's round ", round,
        " is not the pairing of the counted results of the rounds "
        "before it: ",
        what, "; superseded/ holds a sealed log of match ", *earlier,
        ", played again on a resume, and the runner may have paired "
        "the round from the earlier result: the host's word; rounds ",
        round, " on are not recomputed"));
    tally.recompute = false;
    return "";
  }
  return "";
}

// With `tally.recompute`, adds to `tally` the games and points of the
// `per_round` matches of `schedule` from `first_index` (a round of the
// right shape, its seats bots of `bot_of`), each by its counted log
// (`counted`, by match index). A match without one clears
// `tally.recompute` (the missing log is a problem of its own), and the
// rest of the round is not added.
void TallySwissGames(const v1::TournamentSchedule& schedule,
                     const std::map<std::string, int>& bot_of,
                     const std::map<uint32_t, CountedMatch>& counted,
                     uint64_t first_index, uint64_t per_round,
                     SwissTally& tally) {
  for (uint64_t i = first_index; tally.recompute && i < first_index + per_round;
       ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(static_cast<int>(i));
    const auto match = counted.find(static_cast<uint32_t>(i));
    if (match == counted.end()) {
      tally.recompute = false;  // Its match is missing: said as a problem.
      return;
    }
    const int a = bot_of.at(entry.seats(0));
    const int b = bot_of.at(entry.seats(1));
    ++tally.games[a][b];
    ++tally.games[b][a];
    tally.points[a] += PairwisePoints(match->second.outcome, 0);
    tally.points[b] += PairwisePoints(match->second.outcome, 1);
  }
}

// With an odd count of bots, why Swiss round `round`'s bye (the first bot
// not in `playing`; `names` the bots) is wrong: a bot's second bye before
// every bot has had one. "" when it is not, with the bye added to `tally`
// (had, and worth 2 points: the two games the bot would have played).
// With an even count, "" and `tally` unchanged.
std::string SwissByeDifference(const std::vector<bool>& playing,
                               const std::vector<std::string>& names,
                               uint64_t round, SwissTally& tally) {
  const int n = static_cast<int>(names.size());
  if (n % 2 == 0) return "";
  const int bye = static_cast<int>(
      std::find(playing.begin(), playing.end(), false) - playing.begin());
  if (tally.had_bye[bye] && tally.byes < n) {
    return absl::StrCat("round ", round, " gives ", QuotedText(names[bye]),
                        " a second bye before every bot has had one");
  }
  if (!tally.had_bye[bye]) ++tally.byes;
  tally.had_bye[bye] = true;
  tally.points[bye] += 2;
  return "";
}

// The first difference between a Swiss `schedule` and what `t` (Swiss)
// and the counted logs (`counted`, by match index) decide of it: whole
// rounds of bots / 2 pairs, each pair playing both seat orders in turn, no
// more rounds than t's (SwissShapeDifference), every seat a bot of t's, no
// bot twice in a round (SwissRoundShapeDifference) and, with an odd count,
// no second bye before every bot has had one (SwissByeDifference); the
// first round exactly PairSwissRound's with no results
// (SwissFirstRoundDifference), and each later one PairSwissRound's from the
// rounds before it as the runner pairs it (Runner::SwissMatches;
// SwissPairingDifference from a SwissTally): every match of those rounds a
// game between its two bots, each counted log's outcome worth
// PairwisePoints to each seat, each bye 2 points and a bye had. "" when
// there is none. A later round is recomputed only while every match before
// it has a counted log (a missing one is a problem of its own) and with at
// most kMaxPairedBots bots. The runner paired a round from the results it
// had then, which a resume may since have played again, the earlier log
// set aside in superseded/ (`replayed`: the indexes of the matches of such
// sealed logs): a round that differs after such a match is said in
// `notes`, not returned, and the rounds after it are not recomputed.
std::string SwissDifference(const v1::Tournament& t,
                            const v1::TournamentSchedule& schedule,
                            const std::vector<std::string>& names,
                            const std::map<uint32_t, CountedMatch>& counted,
                            const std::set<uint32_t>& replayed,
                            std::vector<std::string>& notes) {
  const uint64_t listed = schedule.matches_size();
  if (std::string differs = SwissShapeDifference(t, listed); !differs.empty()) {
    return differs;
  }
  if (std::string differs = SwissFirstRoundDifference(schedule, names);
      !differs.empty()) {
    return differs;
  }
  const int n = t.bots_size();
  const uint64_t per_round = static_cast<uint64_t>(n / 2 * 2);
  std::map<std::string, int> bot_of;
  for (int i = 0; i < n; ++i) bot_of.emplace(names[i], i);
  SwissTally tally = EmptySwissTally(n);
  for (uint64_t first_index = 0; first_index < listed;
       first_index += per_round) {
    const uint64_t round = first_index / per_round + 1;
    std::vector<bool> playing(n, false);
    std::string differs = SwissRoundShapeDifference(
        schedule, bot_of, first_index, per_round, round, playing);
    if (differs.empty() && round > 1) {
      differs = SwissPairingDifference(schedule, names, replayed, first_index,
                                       round, tally, notes);
    }
    if (!differs.empty()) return differs;
    TallySwissGames(schedule, bot_of, counted, first_index, per_round, tally);
    differs = SwissByeDifference(playing, names, round, tally);
    if (!differs.empty()) return differs;
  }
  return "";
}

// Why `t` (DIR/tournament.txt, `schedule`'s tournament by name and game)
// is not the tournament that made `schedule` (DIR/schedule.json, whose
// counted entries the logs' signed labels and seats pin): "" when it is.
// A round robin or gauntlet is scheduled again from t's format, bots,
// seats, rounds and seed with the runner's own MakeSchedule and must be
// schedule.json entry by entry (index, label, seats by bot name; the
// skipped flags aside); a Swiss tournament, its first round as paired
// before any result and each later round from the counted logs
// (`counted`, by match index; SwissDifference, which says in `notes` a
// round a resume may have paired otherwise, `replayed`). An SPRT is the
// runner's only with 2 bots, 2 seats and the round-robin format. Else the
// first difference.
std::string WhyNotItsSchedule(const v1::Tournament& t,
                              const v1::TournamentSchedule& schedule,
                              const std::map<uint32_t, CountedMatch>& counted,
                              const std::set<uint32_t>& replayed,
                              std::vector<std::string>& notes) {
  const std::string prefix =
      absl::StrCat("tournament.txt (", ScheduleSettings(t),
                   ") is not the tournament that made schedule.json: ");
  std::vector<std::string> names;
  for (const v1::TournamentBot& bot : t.bots()) names.push_back(bot.name());
  const bool round_robin = t.format() == v1::ROUND_ROBIN ||
                           t.format() == v1::TOURNAMENT_FORMAT_UNSPECIFIED;
  if (t.has_sprt() && (!round_robin || t.bots_size() != 2 || t.seats() != 2)) {
    return absl::StrCat(prefix,
                        "it has an SPRT, which the runner takes only with 2 "
                        "bots, 2 seats and the round-robin format");
  }
  if (t.format() == v1::SWISS) {
    const std::string differs =
        SwissDifference(t, schedule, names, counted, replayed, notes);
    return differs.empty() ? "" : absl::StrCat(prefix, differs);
  }
  if (!round_robin && t.format() != v1::GAUNTLET) {
    return absl::StrCat(prefix, "its format is none the runner plays");
  }
  // The logs pin a match's seats (schedule.json's entries are checked
  // against them): a tournament.txt of other seats did not make the
  // schedule, and is not scheduled again, whose matches times seats bot
  // indexes could otherwise take any memory (30,000 bots at 30,000 seats).
  // With the seats pinned and the count schedule.json's, what MakeSchedule
  // lists is no larger than schedule.json's own values.
  const uint32_t scheduled_seats =
      schedule.matches().empty() ? 0 : schedule.matches(0).seats_size();
  if (t.seats() != scheduled_seats) {
    return absl::StrCat(prefix, "it seats ", t.seats(),
                        " bots a match, schedule.json's match 0 ",
                        scheduled_seats);
  }
  const int seats = static_cast<int>(
      std::min<uint32_t>(t.seats(), std::numeric_limits<int>::max()));
  const std::optional<uint64_t> size =
      FixedScheduleSize(t.format(), t.bots_size(), seats, t.rounds());
  if (size.has_value() &&
      *size != static_cast<uint64_t>(schedule.matches_size())) {
    return absl::StrCat(prefix, "it schedules ", *size,
                        " matches, schedule.json lists ",
                        schedule.matches_size());
  }
  // Refused before any match is listed, or as many as schedule.json's.
  absl::StatusOr<std::vector<ScheduledMatch>> made =
      MakeSchedule(t.format(), t.bots_size(), seats, t.rounds(), t.seed());
  if (!made.ok()) return absl::StrCat(prefix, made.status().message());
  for (const ScheduledMatch& match : *made) {
    if (std::string differs = EntryDifference(
            schedule, static_cast<int>(match.index), match, names);
        !differs.empty()) {
      return absl::StrCat(prefix, differs);
    }
  }
  return "";
}

// Adds to `verdict` where DIR/results.json says otherwise than the counted
// logs (`counted`, by match index; CheckResults); a directory without one
// gets a note (an interrupted run may not have written it yet). The
// runner writes tournament.txt before it plays (Runner::OpenOutput), so
// before results.json (Runner::Report): with results.json, a
// tournament.txt that is missing, cannot be read, is another tournament's
// or did not make schedule.json (WhyNotItsSchedule, `replayed` the
// indexes of the matches superseded/ holds a sealed log of) is a problem,
// and results.json is then checked without it.
void CheckResultsFile(const fs::path& root,
                      const v1::TournamentSchedule& schedule,
                      const std::map<uint32_t, CountedMatch>& counted,
                      const std::set<uint32_t>& replayed,
                      TournamentVerdict& verdict) {
  const fs::path path = root / "results.json";
  if (!IsThere(path)) {
    verdict.notes.push_back(
        "the directory holds no results.json: no standings to check");
    return;
  }
  absl::StatusOr<std::string> json = ReadEntry(path, kMaxResultsBytes);
  if (!json.ok()) {
    AddProblem(verdict,
               std::string(Prefixed("results.json", json.status()).message()));
    return;
  }
  // Strict first, as schedule.json (ReadSchedule): what other JSON readers
  // show must be what is checked here.
  if (absl::Status strict = CheckJsonShape(
          *json, *v1::TournamentResults::descriptor(), kMaxResultsValues);
      !strict.ok()) {
    AddProblem(verdict, absl::StrCat("results.json: ", strict.message()));
    return;
  }
  v1::TournamentResults results;
  if (const auto parsed =
          google::protobuf::util::JsonStringToMessage(*json, &results);
      !parsed.ok()) {
    const std::string why(parsed.message());
    AddProblem(verdict,
               absl::StrCat("results.json is not a TournamentResults in JSON: ",
                            PrintableText(why.substr(0, why.find('\n')))));
    return;
  }
  absl::StatusOr<v1::Tournament> tournament = TournamentFileOf(
      root, schedule, "which would show the format, bots and SPRT");
  const v1::Tournament* bound = nullptr;
  if (absl::IsNotFound(tournament.status())) {
    AddProblem(verdict,
               "results.json: the directory holds no tournament.txt, which "
               "the runner writes before it: the format that orders the "
               "standings, the bots and the SPRT would be results.json's "
               "word alone");
  } else if (!tournament.ok()) {
    AddProblem(verdict, absl::StrCat("results.json: not checked against its "
                                     "tournament: ",
                                     tournament.status().message()));
  } else if (std::string why = WhyNotItsSchedule(*tournament, schedule, counted,
                                                 replayed, verdict.notes);
             !why.empty()) {
    AddProblem(verdict, std::move(why));
  } else {
    bound = &*tournament;
  }
  uint64_t unlisted = 0;  // Found past CheckResults' own cap.
  for (std::string& problem :
       CheckResults(results, schedule, counted, bound, &unlisted)) {
    AddProblem(verdict, std::move(problem));
  }
  verdict.problem_count += unlisted;
}

// Adds to `verdict` each match of `schedule` marked skipped that the
// runner cannot have skipped. It skips the matches it never started once
// the tournament's SPRT has decided, and starts them in index order (the
// schedule's order, docs/tournament.md "Order of play"; a resume starts the
// missing ones in that order too): so only a tournament with an SPRT
// (tournament.txt) skips, only matches after the last one played, and
// never all of them (an SPRT decides on matches played).
void CheckSkipped(const fs::path& root, const v1::TournamentSchedule& schedule,
                  TournamentVerdict& verdict) {
  int last_played = -1;
  bool any_skipped = false;
  for (int i = 0; i < schedule.matches_size(); ++i) {
    if (schedule.matches(i).skipped()) {
      any_skipped = true;
    } else {
      last_played = i;
    }
  }
  if (!any_skipped) return;
  const std::string why_not = WhyNoSprt(root, schedule);
  for (int i = 0; i < schedule.matches_size(); ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(i);
    if (!entry.skipped()) continue;
    const std::string match =
        absl::StrCat("match ", entry.index(), " (", entry.label(), ")");
    if (!why_not.empty()) {
      AddProblem(verdict,
                 absl::StrCat(match, " is marked skipped, but ", why_not));
    } else if (i < last_played) {
      const v1::ScheduleEntry& later = schedule.matches(last_played);
      AddProblem(verdict, absl::StrCat(match, " is marked skipped, but match ",
                                       later.index(), " (", later.label(),
                                       "), after it, was played: the runner "
                                       "starts matches in index order "
                                       "and skips only those it never started "
                                       "once the SPRT has decided, "
                                       "the schedule's last"));
    }
  }
  if (why_not.empty() && last_played < 0) {
    AddProblem(
        verdict,
        "every match of the schedule is marked skipped, but an SPRT decides "
        "only on matches played");
  }
}

// A sealed log of DIR/superseded/ (SupersededSealedLogs).
struct SupersededLog {
  std::string file;    // Its name in superseded/, printable.
  uint32_t index = 0;  // The schedule's match of its label.
  std::string label;   // Printable.
};

// Checks DIR/superseded/*.pyrlog (the logs the runner set aside on a
// resume) against the referee's key, on every core: the sealed ones of
// this schedule's matches (`by_label`) whose match ids are not among
// `sealed` (DIR/logs' own), one per match id. Such a log is a leaf of the
// referee's tree that the directory holds: its match was played again, so
// its label stands twice in the tree.
std::vector<SupersededLog> SupersededSealedLogs(
    const fs::path& root, const VerifyOptions& options,
    const ScheduleIndex& by_label, const std::set<std::string>& sealed,
    const KnownLogs& known) {
  std::vector<fs::path> logs;
  // A superseded/ that cannot be listed is not said.
  for (const auto& entry : ListDirectory(root, "superseded", nullptr)) {
    if (entry.path().extension() == log_format::kFileExtension)
      logs.push_back(entry.path());
  }
  std::sort(logs.begin(), logs.end());
  std::vector<std::shared_ptr<const KnownLog>> verdicts(logs.size());
  RunInOrder(
      logs.size(), PoolSize(logs.size()),
      [&](size_t i) {
        absl::StatusOr<std::shared_ptr<const KnownLog>> log =
            VerdictOn(logs[i], options, known);
        if (log.ok()) verdicts[i] = *std::move(log);
        return JobOutput();
      },
      [](size_t, const JobOutput&) {});
  std::set<std::string> match_ids;
  std::vector<SupersededLog> found;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (verdicts[i] == nullptr) continue;
    const Verdict& v = verdicts[i]->verdict;
    if (v.kind != Verdict::Kind::kGenuine) continue;
    const auto scheduled = by_label.find(v.header.label());
    if (scheduled == by_label.end()) continue;
    const std::string& match_id = v.header.match_id();
    if (sealed.contains(match_id) || !match_ids.insert(match_id).second) {
      continue;
    }
    found.push_back(SupersededLog{PrintableText(logs[i].filename().string()),
                                  scheduled->second->index(),
                                  PrintableText(v.header.label())});
  }
  return found;
}

// "1 sealed log of this tournament is", "2 sealed logs ... are".
std::string SealedLogs(uint64_t n) {
  return absl::StrCat(n, " sealed log", n == 1 ? "" : "s",
                      " of this tournament ", n == 1 ? "is" : "are");
}

// With the embedded referee, whose tree holds this tournament's sealed logs
// and nothing else, adds a problem to `verdict` unless the checkpoint's
// size is the number of sealed logs the directory holds: those of logs/
// (`sealed`, their match ids; `included` of them proved in the checkpoint)
// and those the runner set aside in superseded/ (`superseded`, each said in
// a note). A sealed log missing from the directory is a match played again
// after its log was lost, or a log removed. The directory says which referee it
// was: the runner writes referee.key.pub with the embedded referee and
// referee.pub with a running one, whose tree holds other matches too; then, or
// with neither file, a note says that the size is not checked.
void CheckTreeSize(const fs::path& root, const std::set<std::string>& sealed,
                   uint64_t included,
                   const std::vector<SupersededLog>& superseded,
                   TournamentVerdict& verdict) {
  const uint64_t size = verdict.checkpoint.size;
  const bool running = IsThere(root / "referee.pub");
  if (running || !IsThere(root / "referee.key.pub")) {
    // logs/ may hold sealed logs the checkpoint does not (another
    // checkpoint's, another referee tree's): both numbers, and how many of
    // logs/' were proved in it.
    verdict.notes.push_back(absl::StrCat(
        "the checkpoint holds ", size, " logs; logs/ holds ", sealed.size(),
        " sealed log", sealed.size() == 1 ? "" : "s", ", ", included,
        " of them proved included in it: ",
        running ? "the directory holds referee.pub, a running referee's, "
                  "whose tree holds other matches too, so its size is not "
                  "checked against the directory's logs (with the embedded "
                  "referee it is)"
                : "the directory holds neither referee.key.pub (the "
                  "embedded referee's) nor referee.pub (a running "
                  "referee's), so which referee it was is not known and its "
                  "size is not checked against the directory's logs (with "
                  "the embedded referee it is)"));
    return;
  }
  for (const SupersededLog& log : superseded) {
    verdict.notes.push_back(absl::StrCat(
        "superseded/", log.file, ": a sealed log of match ", log.index, " (",
        log.label,
        ") that the runner set aside and played again: its label stands "
        "twice in the referee's transparency log; counted with the "
        "directory's sealed logs, not as the match"));
  }
  const uint64_t held = sealed.size() + superseded.size();
  if (size == held) return;
  AddProblem(
      verdict,
      absl::StrCat(
          "the checkpoint holds ", size, " logs and the directory ", held, ": ",
          size > held
              ? absl::StrCat(
                    SealedLogs(size - held),
                    " not in the directory (a match played again after its log "
                    "was lost, or a log removed); the embedded referee's tree "
                    "(the directory holds referee.key.pub, no referee.pub) "
                    "holds this tournament's logs and nothing else")
              : std::string("the checkpoint does not cover every sealed log of "
                            "the directory")));
}

// Adds to `verdict` a problem for each DIR/proofs entry no counted log
// used and no problem named (`proofs_used`): its log is missing, or does
// not count (not genuine, unsealed, not scheduled so: said by CheckLogs,
// under its name).
void StrayProofs(const fs::path& root, const std::set<std::string>& proofs_used,
                 TournamentVerdict& verdict) {
  EntriesNotStray(
      root, "proofs",
      [&](const fs::path& path) {
        if (proofs_used.contains(path.filename().string())) {
          return std::string();
        }
        if (path.extension() != ".tlog-proof") {
          std::error_code error;
          return absl::StrCat(
              fs::is_directory(path, error) ? "a directory" : "a file",
              " not named MATCH.tlog-proof, so not read as a proof: proofs/ "
              "holds the proofs alone");
        }
        const std::string log =
            absl::StrCat("logs/", path.stem().string(), ".pyrlog");
        return IsThere(root / log)
                   ? absl::StrCat("a proof whose log does not count (see ",
                                  PrintableText(log), " above)")
                   : std::string("a proof without its log");
      },
      verdict);
}

// `verdict` with its summary, and the problems found but not listed
// counted on a line of their own.
TournamentVerdict Summarized(TournamentVerdict verdict) {
  const uint64_t count = verdict.problem_count;
  if (count > verdict.problems.size()) {
    const uint64_t more = count - verdict.problems.size();
    verdict.problems.push_back(
        absl::StrCat("and ", more, " more problem", more == 1 ? "" : "s",
                     " (the first ", kMaxListedProblems, " are listed)"));
  }
  if (count > 0) {
    verdict.summary = absl::StrCat(count, " problem", count == 1 ? "" : "s");
    return verdict;
  }
  // Which run of which tournament, and where its logs are in the tree: a
  // host can run a tournament again under another run id (or name) and
  // publish the run they like, which passes as well; the auditor compares
  // these with the referee's list of the tournament's matches.
  const uint64_t span = verdict.last_leaf - verdict.first_leaf + 1;
  const std::string leaves =
      span == 1 ? absl::StrCat("leaf ", verdict.first_leaf)
      : span == verdict.matches
          ? absl::StrCat("leaves ", verdict.first_leaf, "..", verdict.last_leaf)
          : absl::StrCat(verdict.matches, " of leaves ", verdict.first_leaf,
                         "..", verdict.last_leaf);
  verdict.summary = absl::StrCat(
      verdict.matches, " matches, all included in checkpoint ",
      verdict.checkpoint.size, " ", RootHex(verdict.checkpoint), " as ", leaves,
      ": tournament ", QuotedText(verdict.name), ", run ",
      QuotedText(verdict.run_id), ", game ", PrintableText(verdict.game));
  return verdict;
}

}  // namespace

TournamentVerdict CheckTournamentDirectory(const std::string& dir,
                                           CheckpointKey key,
                                           const SeatRoster* roster,
                                           const KnownLogs& known,
                                           ResultsFile results) {
  TournamentVerdict verdict;
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
  // What the rest is checked against; the first problem here ends the
  // check.
  auto stop = [&verdict](const absl::Status& problem) {
    AddProblem(verdict, std::string(problem.message()));
    return Summarized(std::move(verdict));
  };
  if (key.verifier_key.empty() && key.public_key.empty()) {
    absl::StatusOr<DirectoryKey> found = RefereeKeyFromDirectory(root);
    if (!found.ok()) return stop(found.status());
    key.public_key = found->key;
    verdict.referee_key_files = found->files;
  }
  verdict.referee_key = LogOptions(key).pinned_key;
  absl::StatusOr<tlog::Checkpoint> checkpoint = ReadCheckpoint(root, key);
  if (!checkpoint.ok()) return stop(checkpoint.status());
  verdict.checkpoint = *checkpoint;
  absl::StatusOr<v1::TournamentSchedule> schedule = ReadSchedule(root);
  if (!schedule.ok()) return stop(schedule.status());
  verdict.name = schedule->name();
  verdict.run_id = schedule->run_id();
  verdict.game = schedule->game();
  const ScheduleIndex by_label = IndexSchedule(*schedule, verdict);
  const LogsFound logs = CheckLogs(root, key, *checkpoint, *schedule, by_label,
                                   roster, known, verdict);
  const std::map<uint32_t, CountedMatch> counted =
      MatchLogsToSchedule(*schedule, by_label, logs, verdict);
  CheckSkipped(root, *schedule, verdict);
  const std::vector<SupersededLog> superseded =
      SupersededSealedLogs(root, LogOptions(key), by_label, logs.sealed, known);
  if (results == ResultsFile::kCheck) {
    std::set<uint32_t> replayed;
    for (const SupersededLog& log : superseded) replayed.insert(log.index);
    CheckResultsFile(root, *schedule, counted, replayed, verdict);
  }
  StrayProofs(root, logs.proofs_used, verdict);
  CheckTreeSize(root, logs.sealed, logs.included, superseded, verdict);
  return Summarized(std::move(verdict));
}

}  // namespace pyramid

#include "replay/tournament_check.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
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
#include "replay/schedule_check.h"
#include "replay/seat_roster.h"
#include "replay/strict_json.h"
#include "replay/tournament_dir.h"
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
  // As `name`: its own bytes for the path and check.proof, escaped in a
  // problem.
  const std::string printable_proof = PrintableText(proof_name);
  absl::StatusOr<std::string> proof = ReadSmallEntry(proof_path);
  if (!proof.ok()) {
    // A proof that is there but cannot be read (a directory, no
    // permission) is named with why, not reported missing.
    std::error_code error;
    const bool absent = !fs::exists(proof_path, error) && !error;
    if (!absent) check.proof = proof_name;
    check.problem =
        absent ? absl::StrCat("logs/", name, ": no inclusion proof (proofs/",
                              printable_proof, ")")
               : absl::StrCat("proofs/", printable_proof, ": ",
                              proof.status().message());
    return check;
  }
  check.proof = proof_name;
  absl::StatusOr<Inclusion> inclusion = CheckInclusionOfHash(
      (*log)->sha256, ToHex(v.header.match_id()), *proof, key);
  if (!inclusion.ok()) {
    check.problem = absl::StrCat("proofs/", printable_proof, ": ",
                                 inclusion.status().message());
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
    check.problem = absl::StrCat("proofs/", printable_proof,
                                 ": proves inclusion in ", differs);
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

// Why a missing DIR/tournament.txt is a problem, after "the directory
// holds no ".
constexpr char kNoTournamentFile[] =
    "tournament.txt, which the runner writes before it plays (the "
    "tournament file that made schedule.json): without it nobody can tell "
    "whether schedule.json lists every match (none cut from its end)";

// DIR/tournament.txt as the rest of the check takes it (CheckTournamentFile).
struct TournamentFile {
  // TournamentFileOf's: NOT_FOUND when the directory holds none.
  absl::StatusOr<v1::Tournament> read;
  // Whether `read` made schedule.json (WhyNotItsSchedule).
  bool made_schedule = false;
  // The tournament the standings and an SPRT are read from: `read` once
  // it made schedule.json, else null.
  const v1::Tournament* bound() const {
    return made_schedule ? &*read : nullptr;
  }
};

// Reads DIR/tournament.txt and binds it to `schedule` (WhyNotItsSchedule,
// `replayed` the indexes of the matches superseded/ holds a sealed log
// of), whatever else the directory holds: results.json or not, the
// tournament file fixes the schedule of a round robin or gauntlet (its
// length too: the last matches cut with their logs and proofs) and the
// shape of a Swiss one. A tournament.txt that cannot be read, is another
// tournament's or did not make schedule.json is a problem, and so is a
// missing one: the runner writes it before it plays (Runner::OpenOutput),
// and without it nobody can tell whether schedule.json lists every match
// (the last ones cut with their logs and proofs pass every other check).
// With `results_there` (results.json will be checked) CheckResultsFile
// names the absence, in one problem that says what results.json then
// lacks too.
TournamentFile CheckTournamentFile(
    const fs::path& root, const v1::TournamentSchedule& schedule,
    const std::map<uint32_t, CountedMatch>& counted,
    const std::set<uint32_t>& replayed, bool results_there,
    TournamentVerdict& verdict) {
  TournamentFile file{
      TournamentFileOf(root, schedule, "which would fix the schedule")};
  if (absl::IsNotFound(file.read.status())) {
    if (!results_there) {
      AddProblem(verdict,
                 absl::StrCat("the directory holds no ", kNoTournamentFile));
    }
    return file;
  }
  if (!file.read.ok()) {
    AddProblem(verdict, std::string(file.read.status().message()));
    return file;
  }
  if (std::string why = WhyNotItsSchedule(*file.read, schedule, counted,
                                          replayed, verdict.notes);
      !why.empty()) {
    AddProblem(verdict, std::move(why));
    return file;
  }
  file.made_schedule = true;
  return file;
}

// Adds to `verdict` where DIR/results.json says otherwise than the counted
// logs (`counted`, by match index; CheckResults), checked with
// `tournament` (CheckTournamentFile); a directory without one gets a note
// (an interrupted run may not have written it yet). The runner writes
// tournament.txt before it plays (Runner::OpenOutput), so before
// results.json (Runner::Report): with results.json, a missing
// tournament.txt is named here, as what neither schedule.json nor
// results.json can then be checked against (one that cannot be read, is
// another tournament's or did not make schedule.json is already a
// problem), and results.json is then checked without it.
void CheckResultsFile(const fs::path& root,
                      const v1::TournamentSchedule& schedule,
                      const std::map<uint32_t, CountedMatch>& counted,
                      const TournamentFile& tournament,
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
  if (absl::IsNotFound(tournament.read.status())) {
    AddProblem(verdict, absl::StrCat("results.json: the directory holds no ",
                                     kNoTournamentFile,
                                     "; the format that orders the "
                                     "standings, the bots and the SPRT would "
                                     "be results.json's word alone"));
  }
  uint64_t unlisted = 0;  // Found past CheckResults' own cap.
  for (std::string& problem : CheckResults(results, schedule, counted,
                                           tournament.bound(), &unlisted)) {
    AddProblem(verdict, std::move(problem));
  }
  verdict.problem_count += unlisted;
}

// Why `tournament` (DIR/tournament.txt, CheckTournamentFile) does not
// show that the schedule's tournament had an SPRT; "" when it does. Only
// a decided SPRT makes the runner skip matches, and only the tournament
// that made schedule.json says whether it had one (WhyNotItsSchedule
// holds an SPRT to the runner's terms: 2 bots, 2 seats, round robin).
std::string WhyNoSprt(const TournamentFile& tournament) {
  if (absl::IsNotFound(tournament.read.status())) {
    return "the directory holds no tournament.txt (the tournament file the "
           "runner copies there) to show an SPRT, and only an SPRT that has "
           "decided skips matches";
  }
  if (!tournament.read.ok()) {
    return std::string(tournament.read.status().message());
  }
  if (!tournament.made_schedule) {
    return "tournament.txt is not the tournament that made schedule.json "
           "(said above), so it does not show an SPRT, and only an SPRT "
           "that has decided skips matches";
  }
  if (!tournament.read->has_sprt()) {
    return "the tournament (tournament.txt) has no SPRT, and only an SPRT "
           "that has decided skips matches";
  }
  return "";
}

// Adds to `verdict` each match of `schedule` marked skipped that the
// runner cannot have skipped. It skips the matches it never started once
// the tournament's SPRT has decided, and starts them in index order (the
// schedule's order, docs/tournament.md "Order of play"; a resume starts the
// missing ones in that order too): so only a tournament with an SPRT
// (tournament.txt) skips, only matches after the last one played, and
// never all of them (an SPRT decides on matches played).
void CheckSkipped(const v1::TournamentSchedule& schedule,
                  const TournamentFile& tournament,
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
  const std::string why_not = WhyNoSprt(tournament);
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

// Sets `verdict`'s referee and referee_from: `mode`'s when it is the
// auditor's word (RefereeMode::kEmbedded, kRunning: "flag"), else what the
// names of DIR's key files say ("directory"): the runner writes
// referee.key.pub with the embedded referee and referee.pub with a running
// one; with neither, not known ("").
void SetWhichReferee(const fs::path& root, RefereeMode mode,
                     TournamentVerdict& verdict) {
  if (mode != RefereeMode::kFromDirectory) {
    verdict.referee = mode == RefereeMode::kEmbedded ? "embedded" : "running";
    verdict.referee_from = "flag";
    return;
  }
  verdict.referee_from = "directory";
  if (IsThere(root / "referee.pub")) {
    verdict.referee = "running";
  } else if (IsThere(root / "referee.key.pub")) {
    verdict.referee = "embedded";
  }
}

// When the auditor named the referee (`verdict.referee_from` "flag"), adds
// to `verdict` where DIR's key-file names say another: referee.pub (a
// running referee's) with --referee=embedded is a problem, since a host
// who renames referee.key.pub so would turn the tree-size check into a
// note; referee.key.pub without referee.pub (the embedded referee's) with
// --referee=running, a note.
void SayKeyFilesAgainstFlag(const fs::path& root, TournamentVerdict& verdict) {
  if (verdict.referee_from != "flag") return;
  const bool running_files = IsThere(root / "referee.pub");
  if (verdict.referee == "embedded" && running_files) {
    AddProblem(verdict,
               "the directory holds referee.pub, a running referee's, but "
               "--referee=embedded says the embedded referee played it (the "
               "runner then writes referee.key.pub, no referee.pub)");
  } else if (verdict.referee == "running" && !running_files &&
             IsThere(root / "referee.key.pub")) {
    verdict.notes.push_back(
        "the directory holds referee.key.pub and no referee.pub, as the "
        "runner writes them with the embedded referee, but --referee=running "
        "says a running referee played it: the checkpoint's size is not "
        "checked (--referee=embedded checks it)");
  }
}

// With the embedded referee (`verdict.referee`, SetWhichReferee), whose
// tree holds this tournament's sealed logs and nothing else, adds a problem
// to `verdict` unless the checkpoint's size is the number of sealed logs
// the directory holds: those of logs/ (`sealed`, their match ids;
// `included` of them proved in the checkpoint) and those the runner set
// aside in superseded/ (`superseded`, each said in a note). A sealed log
// missing from the directory is a match played again after its log was
// lost, or a log removed. With a running referee, whose tree holds other
// matches too, or when which referee it was is not known, a note says that
// the size is not checked.
void CheckTreeSize(const fs::path& root, const std::set<std::string>& sealed,
                   uint64_t included,
                   const std::vector<SupersededLog>& superseded,
                   TournamentVerdict& verdict) {
  SayKeyFilesAgainstFlag(root, verdict);
  const uint64_t size = verdict.checkpoint.size;
  const bool flag = verdict.referee_from == "flag";
  if (verdict.referee != "embedded") {
    // logs/ may hold sealed logs the checkpoint does not (another
    // checkpoint's, another referee tree's): both numbers, and how many of
    // logs/' were proved in it.
    const char* why =
        verdict.referee.empty()
            ? "the directory holds neither referee.key.pub (the embedded "
              "referee's) nor referee.pub (a running referee's), so which "
              "referee it was is not known and its size is not checked "
              "against the directory's logs (with the embedded referee it is)"
        : flag ? "--referee=running: a running referee's tree holds other "
                 "matches too, so its size is not checked against the "
                 "directory's logs (with the embedded referee it is)"
               : "the directory holds referee.pub, a running referee's, "
                 "whose tree holds other matches too, so its size is not "
                 "checked against the directory's logs (with the embedded "
                 "referee it is)";
    verdict.notes.push_back(absl::StrCat(
        "the checkpoint holds ", size, " logs; logs/ holds ", sealed.size(),
        " sealed log", sealed.size() == 1 ? "" : "s", ", ", included,
        " of them proved included in it: ", why));
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
                    "was lost, or a log removed); the embedded referee's tree ",
                    flag ? "(--referee=embedded)"
                         : "(the directory holds referee.key.pub, no "
                           "referee.pub)",
                    " holds this tournament's logs and nothing else")
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

TournamentVerdict CheckTournamentDirectory(
    const std::string& dir, CheckpointKey key, const SeatRoster* roster,
    const KnownLogs& known, ResultsFile results, RefereeMode referee) {
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
  SetWhichReferee(root, referee, verdict);
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
    key.taken_from = absl::StrCat("the directory's ", found->files);
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
  const std::vector<SupersededLog> superseded =
      SupersededSealedLogs(root, LogOptions(key), by_label, logs.sealed, known);
  std::set<uint32_t> replayed;
  for (const SupersededLog& log : superseded) replayed.insert(log.index);
  const bool check_results = results == ResultsFile::kCheck;
  const TournamentFile tournament = CheckTournamentFile(
      root, *schedule, counted, replayed,
      check_results && IsThere(root / "results.json"), verdict);
  CheckSkipped(*schedule, tournament, verdict);
  if (check_results) {
    CheckResultsFile(root, *schedule, counted, tournament, verdict);
  }
  StrayProofs(root, logs.proofs_used, verdict);
  CheckTreeSize(root, logs.sealed, logs.included, superseded, verdict);
  return Summarized(std::move(verdict));
}

}  // namespace pyramid

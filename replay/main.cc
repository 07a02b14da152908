// replay: verify, show or export match logs; check transparency-log proofs.
//
//   replay verify [--key HEX|FILE] [--allow_unsealed] [--level full|chain]
//                 [--seat_keys ROSTER] [--json] LOG...
//   replay verify [--key HEX|FILE] [--allow_unsealed] [--level full|chain]
//                 [--seat_keys ROSTER] [--json]
//                 --inclusion FILE.tlog-proof [--tlog_key VKEY|FILE] LOG
//   replay consistency [--key HEX|FILE | --tlog_key VKEY|FILE] [--json]
//                      OLD_CHECKPOINT NEW_CHECKPOINT PROOF
//   replay verify-tournament [--key HEX|FILE | --tlog_key VKEY|FILE]
//                            [--seat_keys ROSTER] [--json]
//                            [--referee embedded|running] DIR
//   replay html [--key HEX|FILE] [--allow_unsealed] [--out FILE] LOG
//   replay show LOG   (its first line: the verdict of `replay verify` without
//                      --key; then the transcript, which judges nothing)
//   replay export --json LOG
//   replay games [--markdown]
//   replay --help   (or -h: the usage, on standard output, status 0)
//   replay --version   (its version line, as every program's --version)
//
// Flags: each is declared once, in replay/command_line.cc's table, with
// the commands that take it; the parser, its errors and the usage are made
// from that table. A flag's value follows it ("--key HEX") or an =
// ("--key=HEX"); a flag without a value refuses one
// ("--allow_unsealed=true"). A dash and an underscore in a flag's name are
// one: --allow-unsealed is --allow_unsealed, --seat-keys is --seat_keys
// (underscores are the documented spelling; the dashes scripts use stay
// accepted). Errors name a flag as it was given.
//
// Exit status: 0 genuine (consistent; the directory checks out); 1 not
// genuine (or an unsealed prefix without --allow_unsealed, an inclusion or
// consistency proof that fails, a tournament directory with problems);
// 2 usage or I/O error (what is wrong is said in a line, then, for a
// mistake in the command line, one line of usage, "usage: replay verify
// [flags] LOG... (see replay --help)", as refctl's; --help prints it all: an
// unknown flag; a flag the command does not take, e.g. `html --level`;
// with --inclusion, a proof file that cannot be read or is of another kind
// (a checkpoint, a log) fails before the log is verified; a secret key file
// given to --key; a flag with a value given twice; --key and --tlog_key
// together naming two referees; for consistency, files swapped or of
// another kind, checkpoints of different logs (two origins, or one the
// key's and one another key's: not comparable, rather than a fork), or a
// proof between other sizes, said without the usage;
// for verify-tournament, a directory that holds neither schedule.json nor
// checkpoint; a directory, a device or a socket given as a file; a log
// larger than this machine's memory, which could not be held, refused
// unread; a proof or checkpoint over 1 MiB). Files are read by
// replay/log_file.h: a regular file or a pipe (`replay verify <(curl
// ...)`); a file whose first bytes are not a log's is NOT GENUINE at
// record 0 ("not a pyramid log (magic) at byte 0") with the rest unread;
// a log that goes on after its seal, at the record after it ("record after
// the seal (N bytes follow it, from byte E to the end of the file)", N
// known without reading them for a regular file), however large the file.
// With several logs, one line each (in the order given) and one status
// for them all: 1 when any log is not genuine (or an unsealed prefix
// without --allow_unsealed), even if a file could not be read as well (a
// forged log is never hidden behind a 2); else 2 when a file could not be
// read; else 0. Several logs are verified on every core (one thread per
// CPU this process may run on, its affinity mask), holding at once at most
// half this machine's memory of logs (a larger log is verified alone), and
// a last line on standard error says how many logs were verified, how many
// per second, how many were genuine, NOT GENUINE and unsealed prefixes
// ("replay: 11 logs in 0.014 s, 785.7 logs/s (2 threads): 3 genuine, 6 NOT
// GENUINE, 2 unsealed prefixes; 2 of 13 files could not be read": files
// that could not be read are not counted as logs, and named before it).
// --json (verify, verify-tournament, consistency; replay/verdict_json.h):
// each line on standard output a JSON object in place of the text line:
// verify's one per LOG in the order given, a file that could not be read
// too ("verdict": "unreadable"; its line on standard error as well), the
// --inclusion proof's outcome within its LOG's; verify-tournament's one
// for DIR (no note or problem line apart); consistency's one for the
// three files. Standard error, the summary of several logs and the exit
// statuses are as without it; a usage error prints no object.
// --level=chain checks the framing, encoding, hash chain and signatures without
// replaying the rules (docs/log-format.md, "Verification levels").
// --key and --tlog_key take the key itself or a FILE holding it: a regular
// file or a pipe (`--key=<(ssh host cat referee.key.pub)`), at most 4 KiB
// (replay/key_arguments.h); a FIFO with no writer is refused at once.
// --seat_keys=ROSTER (an auditor's file of NAME KEY lines, KEY 64 hex digits,
// a file holding them, or none; replay/seat_roster.h) makes a log whose
// header names a seat the roster lacks, or gives a seat another key than
// the roster's (or none), not genuine at record 0 (a NAME that holds a
// blank or starts with # or " is written in double quotes, C escapes
// inside); a roster that cannot be read or parsed (or a FIFO with no
// writer, a device) is a usage error naming its line. `replay
// html` writes the match viewer page (default: LOG with the extension .html)
// whatever the verdict, and exits as `replay verify` would on that log (0, 1),
// or 2 when the log cannot be read or the page cannot be written. `replay show`
// and `replay export` exit 0 when they printed every record (whatever the
// verdict: show's first line says it), 1 when a record could not be
// decoded (what was printed up to it stays), 2 when the file cannot be
// read.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "referee/cli/allocator.h"
#include "referee/cli/program.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/games/printable_text.h"
#include "referee/games/registry.h"
#include "referee/tlog/note.h"
#include "replay/command_line.h"
#include "replay/evidence.h"
#include "replay/html_page.h"
#include "replay/log_file.h"
#include "replay/ordered_pool.h"
#include "replay/seat_roster.h"
#include "replay/transcript.h"
#include "replay/verdict_json.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

constexpr int kGenuine = 0;
constexpr int kNotGenuine = 1;
constexpr int kUsage = 2;

// Prints the usage (UsageText of kCommands) to `out`; returns the usage
// error's exit status.
int Usage(std::ostream& out = std::cerr);

// The line that follows a usage error's reason: the command's usage in
// one line (ShortUsage), or the commands when none was recognized.
std::string ShortUsageLine();

// Says that `name` (a file, a flag's file) could not be read and why;
// returns the usage error's exit status, without the usage.
int Unreadable(absl::string_view name, const absl::Status& status) {
  std::cerr << name << ": " << status.message() << "\n";
  return kUsage;
}

// Says what is wrong with the command line, then one line of usage
// (ShortUsageLine; the whole usage is --help's), as refctl does.
int Usage(absl::string_view why) {
  std::cerr << why << "\n" << ShortUsageLine() << "\n";
  return kUsage;
}

// The verdict line's account of the seats that named the header, which
// only a seat with a key proves by it (docs/log-format.md, "What a log
// proves against its referee"): "N of M seats named this header", and
// unless every seat has a key, how many of those with keys did.
std::string NamedHeaderText(const Verdict& v) {
  const int seats = v.header.seats_size();
  int with_keys = 0;
  for (const auto& seat : v.header.seats()) {
    if (!seat.public_key().empty()) ++with_keys;
  }
  std::string text = absl::StrCat(v.seats_naming_header, " of ", seats,
                                  " seats named this header");
  if (with_keys == seats) return text;
  if (with_keys == 0) return absl::StrCat(text, ", none with a key to vouch");
  return absl::StrCat(text, ", ", v.keyed_seats_naming_header, " of the ",
                      with_keys, with_keys == 1 ? " with a key" : " with keys",
                      " (only those vouch)");
}

// Verifies the log `file` (ReadLog's, of the file at `path`) into
// `verdict`, writing its line to `out`; returns its exit status.
// `checkpoint_pinned`: --tlog_key pinned the key of an --inclusion proof's
// checkpoint, which the line says, as it does not pin the log's. With a
// `roster` (--seat_keys), the log's seats must be its bots with their keys
// (JudgeSeats), which the line of a log that passes says. With a `report`
// (--json), nothing is written: what the line would say is set in it.
int VerifyOne(const std::string& path, const LogFile& file,
              const VerifyOptions& options, bool allow_unsealed,
              const SeatRoster* roster, Verdict* verdict, std::ostream& out,
              bool checkpoint_pinned = false, LogReport* report = nullptr) {
  Verdict& v = *verdict;
  v = VerifyLog(file.bytes(), file.file_size(), options);
  const bool seats_match = roster != nullptr && JudgeSeats(*roster, v);
  if (report != nullptr) {
    report->file = path;
    report->verdict = v;
    report->level = options.level;
    report->roster = roster != nullptr;
    report->seats_match_roster = seats_match;
    report->ok = v.kind == Verdict::Kind::kGenuine ||
                 (v.kind == Verdict::Kind::kUnsealedPrefix && allow_unsealed);
    return report->ok ? kGenuine : kNotGenuine;
  }
  const std::string log_key = ToHex(v.header.referee_public_key());
  std::string key_note = "referee key pinned";
  if (v.key_from_header && checkpoint_pinned) {
    key_note = absl::StrCat(
        "checkpoint key pinned by --tlog_key; the log's referee key ", log_key,
        " taken from the log itself: pin it with --key");
  } else if (v.key_from_header) {
    key_note = absl::StrCat("referee key ", log_key,
                            " taken from the log itself; pin it with --key");
  }
  if (seats_match) {
    const int seats = v.header.seats_size();
    absl::StrAppend(&key_note, "; ", seats,
                    seats == 1 ? " seat matches" : " seats match",
                    " the roster");
    // The roster is matched against the header's keys; at chain level no
    // seat's commit signature is checked against them (VerifyLog).
    if (options.level == VerifyOptions::Level::kChain) {
      absl::StrAppend(&key_note, ", seat signatures not checked");
    }
  }
  switch (v.kind) {
    case Verdict::Kind::kGenuine: {
      std::string ranks;
      for (const auto& seat : v.outcome.seats()) {
        absl::StrAppend(&ranks, ranks.empty() ? "" : " ", seat.rank());
      }
      if (options.level == VerifyOptions::Level::kChain) {
        out << path << ": genuine at chain level, rules not replayed ("
            << PrintableText(v.header.game().game()) << ", " << v.records
            << " records, ranks as logged " << ranks << "; " << key_note
            << ")\n";
        return kGenuine;
      }
      out << path << ": genuine (" << PrintableText(v.header.game().game())
          << ", " << v.records << " records, " << v.moves << " moves, ranks "
          << ranks << "; " << NamedHeaderText(v) << "; " << key_note << ")\n";
      return kGenuine;
    }
    case Verdict::Kind::kUnsealedPrefix:
      out << path << ": unsealed prefix: " << PrintableText(v.reason) << " ("
          << key_note << ")\n";
      return allow_unsealed ? kGenuine : kNotGenuine;
    case Verdict::Kind::kNotGenuine:
      out << path << ": NOT GENUINE: record " << v.bad_record << ": "
          << PrintableText(v.reason) << "\n";
      return kNotGenuine;
  }
  return kNotGenuine;
}

// Checks the inclusion proof `proof` (the file `proof_path`) of the log
// `log` (the file `path`), both read already; the log verified already.
// With a `report` (--json), nothing is written: what came of it is set in
// its proof.
int VerifyInclusion(const std::string& path, const std::string& log,
                    const std::string& proof_path, const std::string& proof,
                    const Verdict& verdict, const CheckpointKey& key,
                    LogReport* report = nullptr) {
  absl::StatusOr<Inclusion> inclusion =
      CheckInclusion(log, ToHex(verdict.header.match_id()), proof, key);
  if (report != nullptr) {
    report->proof->checked = true;
    if (inclusion.ok()) {
      report->proof->inclusion = *std::move(inclusion);
      return kGenuine;
    }
    report->ok = false;
    report->proof->failure = std::string(inclusion.status().message());
    return kNotGenuine;
  }
  if (!inclusion.ok()) {
    std::cout << path << ": NOT INCLUDED: " << proof_path << ": "
              << inclusion.status().message() << "\n";
    return kNotGenuine;
  }
  std::cout << path << ": included as leaf " << inclusion->index
            << " of checkpoint " << inclusion->checkpoint.origin << " "
            << inclusion->checkpoint.size << " "
            << ToHex(AsView(inclusion->checkpoint.root)) << "\n";
  return kGenuine;
}

// "N THING" or "N THINGS": `one` for 1, else `many`.
std::string Count(size_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// Verifies `logs` on every core, printing each one's line in the order
// given and, for several, a last line on standard error: how many logs
// were verified and how many per second, how many of them were genuine,
// NOT GENUINE and unsealed prefixes, and how many files could not be read
// (named before it, not counted as logs). Returns the status of them all:
// 1 when any log is not genuine (or an unsealed prefix without
// --allow_unsealed), whatever else; else 2 when a file could not be read;
// else 0. A forged log is never hidden behind an unreadable file's 2. The
// logs held at once share the process's budget (ReadLog): a larger one is
// verified alone. `json`: each log's line is its JSON object
// (LogReportJson), a file that could not be read's too.
int VerifyMany(const std::vector<std::string>& logs,
               const VerifyOptions& options, bool allow_unsealed,
               const SeatRoster* roster, bool json) {
  const int threads = PoolSize(logs.size());
  const auto start = std::chrono::steady_clock::now();
  // Each job's verdict, none for a file that could not be read; written
  // by job i alone, read once it is emitted.
  std::vector<std::optional<Verdict::Kind>> kinds(logs.size());
  size_t genuine = 0, not_genuine = 0, unsealed = 0, unread = 0;
  int status = kGenuine;
  RunInOrder(
      logs.size(), threads,
      [&](size_t i) {
        JobOutput output;
        std::ostringstream out, err;
        Verdict verdict;
        LogReport report;
        absl::StatusOr<LogFile> log = ReadLog(logs[i]);
        if (!log.ok()) {
          err << logs[i] << ": " << log.status().message() << "\n";
          output.exit_code = kUsage;
          report.file = logs[i];
          report.unreadable = std::string(log.status().message());
        } else {
          output.exit_code = VerifyOne(
              logs[i], *log, options, allow_unsealed, roster, &verdict, out,
              /*checkpoint_pinned=*/false, json ? &report : nullptr);
          kinds[i] = verdict.kind;
        }
        if (json) out << LogReportJson(report) << "\n";
        output.out = out.str();
        output.err = err.str();
        return output;
      },
      [&](size_t i, const JobOutput& output) {
        std::cout << output.out << std::flush;
        std::cerr << output.err;
        if (!kinds[i].has_value()) {
          ++unread;  // The only usage status: the file could not be read.
        } else if (*kinds[i] == Verdict::Kind::kGenuine) {
          ++genuine;
        } else if (*kinds[i] == Verdict::Kind::kUnsealedPrefix) {
          ++unsealed;
        } else {
          ++not_genuine;
        }
        if (output.exit_code == kNotGenuine) {
          status = kNotGenuine;
        } else if (output.exit_code == kUsage && status == kGenuine) {
          status = kUsage;
        }
      });
  if (logs.size() > 1) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const size_t verified = logs.size() - unread;
    std::cerr << absl::StrFormat(
        "replay: %s in %.3f s, %.1f logs/s (%s): %d genuine, %d NOT GENUINE, "
        "%s%s\n",
        Count(verified, "log", "logs"), seconds,
        seconds > 0 ? verified / seconds : 0.0,
        Count(threads, "thread", "threads"), genuine, not_genuine,
        Count(unsealed, "unsealed prefix", "unsealed prefixes"),
        unread == 0 ? ""
                    : absl::StrFormat("; %d of %d files could not be read",
                                      unread, logs.size()));
  }
  return status;
}

int Verify(const Flags& flags) {
  if (!flags.tlog_key.empty() && flags.inclusion.empty()) {
    return Usage(
        "verify: --tlog_key checks the checkpoint of an --inclusion proof; "
        "give one");
  }
  if (flags.operands.empty()) return Usage("verify needs a LOG");
  if (!flags.inclusion.empty() && flags.operands.size() != 1) {
    return Usage(absl::StrFormat("--inclusion checks one log (got %d)",
                                 flags.operands.size()));
  }
  VerifyOptions options;
  options.pinned_key = flags.key;
  options.level = flags.level;
  if (!flags.inclusion.empty()) {
    // The proof is read first: a file that cannot be read is a usage
    // error, said before any verdict.
    absl::StatusOr<std::string> proof = ReadSmallFile(flags.inclusion);
    if (!proof.ok()) return Unreadable("--inclusion", proof.status());
    // Another kind of file in its place is the command's mistake, as
    // `replay consistency` says of its files; a damaged proof (of no
    // kind) is a verdict.
    if (const std::string kind = FileKind(*proof);
        !kind.empty() && kind != kInclusionProofKind) {
      std::cerr << "--inclusion: " << flags.inclusion
                << " is not an inclusion proof (it looks like " << kind
                << ")\n";
      return kUsage;
    }
    const std::string& log = flags.operands[0];
    // --json: the log's object, written once the proof is checked (or
    // not, the log not passing).
    LogReport report;
    report.proof.emplace();
    report.proof->file = flags.inclusion;
    report.proof->key_pinned = !flags.key.empty() || !flags.tlog_key.empty();
    LogReport* json = flags.json ? &report : nullptr;
    absl::StatusOr<LogFile> file = ReadLog(log);
    if (!file.ok()) {
      if (json != nullptr) {
        report.file = log;
        report.unreadable = std::string(file.status().message());
        std::cout << LogReportJson(report) << "\n";
      }
      return Unreadable(log, file.status());
    }
    Verdict verdict;
    const int result =
        VerifyOne(log, *file, options, flags.allow_unsealed, flags.roster(),
                  &verdict, std::cout,
                  /*checkpoint_pinned=*/!flags.tlog_key.empty(), json);
    if (result != kGenuine) {
      if (json != nullptr) std::cout << LogReportJson(report) << "\n";
      return result;
    }
    // The checkpoint is signed by the referee whose key signed the log.
    CheckpointKey key{flags.tlog_key, verdict.header.referee_public_key()};
    if (flags.key.empty() && flags.tlog_key.empty()) {
      // The verdict line says where the key came from; what that means for
      // the proof is said once, beside it.
      std::cerr << "replay: note: no key pinned: the checkpoint was opened "
                   "with the key the log names, which shows the proof "
                   "consistent with the log, not which referee signed "
                   "them; pin it with --key or --tlog_key\n";
    }
    const int included = VerifyInclusion(log, file->bytes(), flags.inclusion,
                                         *proof, verdict, key, json);
    if (json != nullptr) std::cout << LogReportJson(report) << "\n";
    return included;
  }
  return VerifyMany(flags.operands, options, flags.allow_unsealed,
                    flags.roster(), flags.json);
}

CheckpointKey KeyOf(const Flags& flags) {
  return CheckpointKey{flags.tlog_key, flags.key};
}

int Consistency(const Flags& flags) {
  if (flags.operands.size() != 3) {
    return Usage(absl::StrFormat(
        "consistency takes OLD_CHECKPOINT NEW_CHECKPOINT PROOF (got %d)",
        flags.operands.size()));
  }
  if (flags.key.empty() && flags.tlog_key.empty()) {
    std::cerr << "consistency: pin the referee's key (--key) or the log's "
                 "verifier key (--tlog_key)\n";
    return kUsage;
  }
  std::vector<std::string> files;
  for (const std::string& path : flags.operands) {
    absl::StatusOr<std::string> text = ReadSmallFile(path);
    if (!text.ok()) return Unreadable(path, text.status());
    files.push_back(*std::move(text));
  }
  const absl::Status status =
      CheckConsistency(files[0], files[1], files[2], KeyOf(flags),
                       ConsistencyNames{flags.operands[0], flags.operands[1],
                                        flags.operands[2]});
  // Files swapped or of another kind, or checkpoints of different logs:
  // the command's mistake, no verdict.
  if (absl::IsFailedPrecondition(status)) {
    std::cerr << "consistency: " << status.message() << "\n";
    return kUsage;
  }
  if (flags.json) {
    JsonObject object;
    object.String("old_checkpoint", flags.operands[0])
        .String("new_checkpoint", flags.operands[1])
        .String("proof", flags.operands[2])
        .Bool("ok", status.ok());
    if (!status.ok()) object.String("reason", status.message());
    std::cout << object.Text() << "\n";
    return status.ok() ? kGenuine : kNotGenuine;
  }
  if (!status.ok()) {
    std::cout << "NOT CONSISTENT: " << status.message() << "\n";
    return kNotGenuine;
  }
  std::cout << "consistent: " << flags.operands[1] << " extends "
            << flags.operands[0] << "\n";
  return kGenuine;
}

int VerifyTournament(const Flags& flags) {
  if (flags.operands.size() != 1) {
    return Usage(absl::StrFormat("verify-tournament takes one DIR (got %d)",
                                 flags.operands.size()));
  }
  const std::string& dir = flags.operands[0];
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    // Said as it is: missing (or unreachable), or something else.
    const std::filesystem::file_status status =
        std::filesystem::status(dir, error);
    std::cerr << dir << ": "
              << (status.type() == std::filesystem::file_type::not_found
                      ? "no such directory"
                  : error ? absl::StrCat("cannot be read: ", error.message())
                          : "not a directory")
              << "\n";
    return kUsage;
  }
  const RefereeMode referee =
      flags.referee == "embedded"  ? RefereeMode::kEmbedded
      : flags.referee == "running" ? RefereeMode::kRunning
                                   : RefereeMode::kFromDirectory;
  const TournamentVerdict verdict = CheckTournamentDirectory(
      dir, KeyOf(flags), flags.roster(), nullptr, ResultsFile::kCheck, referee);
  if (!verdict.not_a_tournament.empty()) {
    std::cerr << PrintableText(verdict.not_a_tournament) << "\n";
    return kUsage;
  }
  if (flags.json) {
    std::cout << TournamentVerdictJson(dir, verdict, flags.roster() != nullptr)
              << "\n";
    return verdict.problems.empty() ? kGenuine : kNotGenuine;
  }
  // Each note and problem is one line, whatever names of files, labels or
  // games of the directory it holds (escaped again here: PrintableText
  // leaves its own escapes as they are).
  for (const std::string& note : verdict.notes) {
    std::cout << dir << ": note: " << PrintableText(note) << "\n";
  }
  for (const std::string& problem : verdict.problems) {
    std::cout << dir << ": " << PrintableText(problem) << "\n";
  }
  // A key read from the directory is the directory vouching for itself:
  // a directory signed again with a new key checks out as well (as
  // `verify` of a log says of the key in the log's own header).
  std::string key_note;
  if (!verdict.referee_key_files.empty()) {
    key_note = absl::StrCat(" (referee key ", ToHex(verdict.referee_key),
                            " taken from the directory itself, ",
                            verdict.referee_key_files, "; pin it with --key)");
  }
  // Said only of a directory that checks out: then every log counted had
  // the roster's seats.
  std::string roster_note;
  if (flags.roster() != nullptr && verdict.problems.empty()) {
    roster_note = absl::StrCat("; their ", verdict.seats_matching_roster,
                               " seats match the roster");
  }
  std::cout << dir << ": " << verdict.summary << roster_note << key_note
            << "\n";
  return verdict.problems.empty() ? kGenuine : kNotGenuine;
}

int ShowOrExport(const std::string& path, bool json) {
  absl::StatusOr<LogFile> log = ReadLog(path);
  if (!log.ok()) return Unreadable(path, log.status());
  const std::string& file = log->bytes();
  if (!json) {
    // The transcript reads the records as they are, "signed" lines
    // included: say first whether they are to be believed.
    const Verdict v = VerifyLog(file, log->file_size(), VerifyOptions());
    std::cout << "verdict: ";
    switch (v.kind) {
      case Verdict::Kind::kGenuine:
        std::cout << "genuine (referee key "
                  << ToHex(v.header.referee_public_key())
                  << " taken from the log itself; pin it with replay verify "
                     "--key)\n";
        break;
      case Verdict::Kind::kUnsealedPrefix:
        std::cout << "unsealed prefix: " << PrintableText(v.reason) << "\n";
        break;
      case Verdict::Kind::kNotGenuine:
        std::cout << "NOT GENUINE: record " << v.bad_record << ": "
                  << PrintableText(v.reason)
                  << " (below: what the log says, not verified)\n";
        break;
    }
  }
  absl::Status status =
      json ? WriteJsonLines(file, std::cout) : WriteTranscript(file, std::cout);
  if (!status.ok()) {
    std::cerr << path << ": " << status.message() << "\n";
    return kNotGenuine;
  }
  return kGenuine;
}

// replay html: the match viewer page of one log.
int Html(const Flags& flags) {
  if (flags.operands.size() != 1) {
    return Usage(
        absl::StrFormat("html takes one LOG (got %d)", flags.operands.size()));
  }
  const std::string& path = flags.operands[0];
  const std::string out =
      flags.out.empty()
          ? std::filesystem::path(path).replace_extension(".html").string()
          : flags.out;
  if (std::filesystem::path(out) == std::filesystem::path(path)) {
    std::cerr << path << ": the page would replace the log; use --out\n";
    return kUsage;
  }
  absl::StatusOr<LogFile> log = ReadLog(path);
  if (!log.ok()) return Unreadable(path, log.status());
  VerifyOptions options;
  options.pinned_key = flags.key;
  const MatchPage page =
      RenderMatchPage(log->bytes(), log->file_size(), options);
  if (absl::Status s = WriteFileAtomically(out, page.html); !s.ok()) {
    std::cerr << out << ": " << s.message() << "\n";
    return kUsage;
  }
  const Verdict& v = page.verdict;
  std::cout << path << ": "
            << (v.kind == Verdict::Kind::kGenuine ? "genuine"
                : v.kind == Verdict::Kind::kUnsealedPrefix
                    ? absl::StrCat("unsealed prefix: ", PrintableText(v.reason))
                    : absl::StrCat("NOT GENUINE: record ", v.bad_record, ": ",
                                   PrintableText(v.reason)))
            << "; " << page.steps << (page.steps == 1 ? " step, " : " steps, ")
            << page.html.size() << " bytes -> " << out << "\n";
  if (v.kind == Verdict::Kind::kGenuine) return kGenuine;
  if (v.kind == Verdict::Kind::kUnsealedPrefix && flags.allow_unsealed) {
    return kGenuine;
  }
  return kNotGenuine;
}

int Show(const Flags& flags) {
  if (flags.operands.size() != 1) {
    return Usage(
        absl::StrFormat("show takes one LOG (got %d)", flags.operands.size()));
  }
  return ShowOrExport(flags.operands[0], false);
}

int Export(const Flags& flags) {
  if (!flags.json)
    return Usage("export needs --json (the one format it writes)");
  if (flags.operands.size() != 1) {
    return Usage(absl::StrFormat("export takes one LOG (got %d)",
                                 flags.operands.size()));
  }
  return ShowOrExport(flags.operands[0], true);
}

int Games(const Flags& flags) {
  if (!flags.operands.empty()) {
    return Usage("games takes no argument but --markdown");
  }
  std::cout << (flags.markdown ? ValidValuesTable() : GamesHelp());
  return kGenuine;
}

// One command: its usage, and what runs it.
struct CommandSpec {
  CommandUsage usage;
  int (*run)(const Flags& flags);
};

// Each command's exit statuses: as the file's comment says, and
// README.md's "Verifying a match" section.
constexpr CommandSpec kCommands[] = {
    {{"verify", "LOG...",
      "    one line per LOG (several: on every core); --inclusion: one LOG, "
      "and\n"
      "    --tlog_key only with it; --json: each line a JSON object of file,\n"
      "    verdict (genuine, not_genuine, unsealed_prefix, unreadable), ok, "
      "level,\n"
      "    record, reason, signature_failed, match_id, game, label, "
      "referee_key,\n"
      "    key_pinned, records, signed_records, moves, outcome, seats,\n"
      "    seats_naming_header, keyed_seats_naming_header, "
      "seats_match_roster,\n"
      "    inclusion (docs/log-format.md, \"Several logs\")\n",
      "0 every LOG genuine (an unsealed prefix too, with --allow_unsealed), "
      "and the --inclusion proof holds; 1 a LOG NOT GENUINE or an unsealed "
      "prefix, or the proof fails, even if a file could not be read as well "
      "(a forged log is never hidden behind a 2); 2 a usage error or a file "
      "that cannot be read"},
     Verify},
    {{"consistency", "OLD_CHECKPOINT NEW_CHECKPOINT PROOF",
      "    NEW extends OLD; give --key or --tlog_key; --json: one JSON "
      "object,\n"
      "    {old_checkpoint, new_checkpoint, proof, ok, reason when not ok}\n",
      "0 NEW extends OLD; 1 NOT CONSISTENT (the proof fails, two roots of "
      "one size, a signature by the key that does not verify, neither "
      "checkpoint signed by the key, a damaged proof); 2 a usage error, a "
      "file that cannot be read, files swapped or of another kind, "
      "checkpoints of different logs (two origins, or one signed by the key "
      "and the other by another key), a proof between other sizes"},
     Consistency},
    {{"verify-tournament", "DIR",
      "    every scheduled match present once, genuine, in the checkpoint; "
      "--json:\n"
      "    one JSON object of dir, ok, summary, problem_count, problems, "
      "notes,\n"
      "    matches, checkpoint, first_leaf, last_leaf, name, run_id, game,\n"
      "    referee_key, referee_key_files, referee, referee_from,\n"
      "    seats_matching_roster; --referee: which referee played, the "
      "auditor's\n"
      "    word (default: DIR's key files say); embedded: the checkpoint's "
      "size\n"
      "    is DIR's sealed logs, and DIR holding referee.pub a problem\n"
      "    (docs/transparency-log.md, \"Tournaments\")\n",
      "0 the directory checks out; 1 it has problems (each named); 2 a "
      "usage error, or DIR missing or not a tournament directory"},
     VerifyTournament},
    {{"html", "LOG",
      "    writes the match viewer, one self-contained HTML page, whatever "
      "the\n"
      "    verdict\n",
      "0 genuine (an unsealed prefix too, with --allow_unsealed); 1 not "
      "genuine (the page says why); 2 a usage error, LOG cannot be read or "
      "the page cannot be written"},
     Html},
    {{"show", "LOG",
      "    the verdict (as replay verify without --key), then every turn\n",
      "0 every record printed, whatever the verdict (its first line says "
      "it); 1 a record could not be decoded; 2 a usage error or LOG cannot "
      "be read"},
     Show},
    {{"export", "LOG",
      "    --json, the one format it writes, is required: one JSON object "
      "per\n"
      "    record\n",
      "as show's"},
     Export},
    {{"games", "", "    the games this build verifies\n",
      "0 the games listed; 2 a usage error"},
     Games},
};

int Usage(std::ostream& out) {
  std::vector<CommandUsage> commands;
  for (const CommandSpec& command : kCommands) {
    commands.push_back(command.usage);
  }
  out << UsageText(commands);
  return kUsage;
}

// The command being run (Main sets it), whose usage a usage error's
// second line gives; none before a command is recognized.
const CommandSpec* running = nullptr;

std::string ShortUsageLine() {
  if (running != nullptr) return ShortUsage(running->usage);
  std::vector<absl::string_view> names;
  for (const CommandSpec& command : kCommands) {
    names.push_back(command.usage.name);
  }
  return absl::StrCat("usage: replay COMMAND [flags] ARGS... (COMMAND: ",
                      absl::StrJoin(names, ", "), "; see replay --help)");
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << ShortUsageLine() << "\n";
    return kUsage;
  }
  // Asked for, the usage is the answer: standard output, status 0.
  if (std::find_if(args.begin(), args.end(), [](const std::string& arg) {
        return arg == "--help" || arg == "-h";
      }) != args.end()) {
    Usage(std::cout);
    return kGenuine;
  }
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << VersionLine("replay");
    return kGenuine;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  for (const CommandSpec& command : kCommands) {
    if (command.usage.name != name) continue;
    running = &command;
    const absl::StatusOr<Flags> flags = ParseArgs(name, args);
    if (!flags.ok()) return Usage(flags.status().message());
    return command.run(*flags);
  }
  return Usage(absl::StrCat("unknown command \"", name, "\""));
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::TuneAllocator();
  return pyramid::Main(argc, argv);
}

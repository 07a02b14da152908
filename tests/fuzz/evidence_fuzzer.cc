// Fuzz target: a tournament's output directory as `replay verify-tournament
// DIR` (CheckTournamentDirectory, replay/evidence.h) takes it from whoever
// ran the tournament: schedule.json, checkpoint, the referee's key files,
// logs/*.pyrlog and proofs/*.tlog-proof (docs/tournament.md).
//
// The input describes the directory. Its first byte picks the key the check
// is given (its value modulo 4): none (the directory's referee.key.pub or
// referee.pub), the example's referee key, its verifier key, or a
// stranger's; and (its value divided by 4, modulo 3) the auditor's roster of
// seat keys (--seat_keys, replay/seat_roster.h): none, the example's bots
// b1, b2 and b3 without keys (as they played), or the same with b2 keyed
// (which no log of the example is). The rest is
// parts separated by kSeparator, each a selector byte and the contents:
// the selector's low six bits pick a name of kNames (modulo their count),
// its high two what is there: a file of the contents (0, or 3 with
// contents), a symbolic link (1) to the name the contents' first byte picks
// (absolute, in the directory; a loop when it is the link's own), an empty
// directory (2), or a FIFO (3 without contents). A later part of a name
// replaces an earlier one; a part that cannot be written (under a "logs" that
// is a file) is left out. The directory is made afresh for each input under a
// per-process directory in /dev/shm (or the system's temporary directory) and
// removed after the check.
//
// What must hold: the check returns; the directory is "not a tournament"
// exactly when it holds neither schedule.json nor checkpoint (not even as
// an entry that cannot be read, such as a loop of links), and then
// nothing else is said; the summary is the problem count, or with no
// problem the match count and checkpoint; the match count is never more
// than the logs in logs/ that no problem or note names, nor the schedule's
// matches not skipped. A verdict with no problem is what the contract
// says, checked again here from the files: the checkpoint opens with the
// referee's key and is the verdict's; the schedule's matches are numbered
// from 0 and labelled NAME/RUN/INDEX; every log in logs/ is genuine under
// that key or an unsealed prefix; each genuine log is of the schedule's
// game, carries the label of a match not skipped (a different one for each
// log) and that match's seats, and its proofs/NAME.tlog-proof proves it
// included in the directory's checkpoint; the count is of those logs, one
// for every match not skipped, of which there is at least one; every entry
// of proofs/ is the proof of such a log; skipped matches all come after the
// last one played, and tournament.txt (a Tournament in text format, of the
// schedule's name and game) has an SPRT; and with referee.key.pub but no
// referee.pub (the embedded referee's directory) the checkpoint's size is
// the number of distinct sealed logs in logs/ and superseded/ (those of
// superseded/ with a label of the schedule); schedule.json is strict JSON
// with no key twice in an object; with a roster, every seat of every
// counted log is a bot of the roster with the roster's key (or none), and
// the verdict counts those seats. Whatever schedule.json holds, the JSON
// key scanner returns, and finds no key twice with protobuf's field names
// folded only where it finds none without.
//
// The seeds (tests/fuzz/make_evidence_seeds.py writes them) are
// testdata/tlog/example in this format and damaged copies. Two variables
// of the environment help check them: EVIDENCE_FUZZER_PRINT prints each
// verdict (notes, problems, summary) to stderr, and EVIDENCE_FUZZER_GENUINE
// makes a verdict with a problem abort (the fuzz_seeds_evidence_genuine
// test: the genuine_* seeds reach the checks of a genuine verdict), e.g.
//   EVIDENCE_FUZZER_PRINT=1 build-asan/bin/evidence_fuzzer -runs=0 \
//       tests/fuzz/seeds/evidence
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/log.pb.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "replay/seat_roster.h"
#include "replay/strict_json.h"
#include "replay/verifier.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;

// Larger inputs are skipped: a few logs of a few KiB each is all a
// directory check needs, and each input must stay fast.
constexpr size_t kMaxInput = 256 * 1024;
// At most this many parts are written.
constexpr size_t kMaxParts = 32;
constexpr std::string_view kSeparator = "@@@@";

// The names a part can have. m0 to m3 name logs and their proofs; m4 is a
// proof's only; a .txt beside them is neither; superseded/ holds the logs
// a runner set aside.
constexpr std::string_view kNames[] = {
    "schedule.json",
    "checkpoint",
    "referee.pub",
    "referee.key.pub",
    "logs/m0.pyrlog",
    "logs/m1.pyrlog",
    "logs/m2.pyrlog",
    "logs/m3.pyrlog",
    "logs/m0.txt",
    "proofs/m0.tlog-proof",
    "proofs/m1.tlog-proof",
    "proofs/m2.tlog-proof",
    "proofs/m3.tlog-proof",
    "proofs/m4.tlog-proof",
    "proofs/m0.txt",
    "logs",
    "proofs",
    "tournament.txt",
    "superseded/m0.pyrlog",
    "superseded/m3.pyrlog",
};
constexpr size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

// testdata/tlog/example's referee key, and its verifier key
// (testdata/tlog/tlog.vkey).
constexpr char kRefereeKeyHex[] =
    "84c5b30cb33a0e5d9fad5ad68c4734199e5c644fbfd0f8c1605c1558e11d61d6";
constexpr char kVerifierKey[] =
    "pyramid-referee/84c5b30cb33a0e5d+6bddd573+"
    "AYTFswyzOg5dn61a1oxHNBmeXGRPv9D4wWBcFVjhHWHW";

using ::pyramid::fuzz::Check;

// The per-process directory the inputs' directories are made in, removed
// at exit.
const fs::path& WorkDirectory() {
  static const fs::path* const dir = [] {
    std::error_code error;
    const fs::path base = fs::is_directory("/dev/shm", error)
                              ? fs::path("/dev/shm")
                              : fs::temp_directory_path();
    auto* path =
        new fs::path(base / absl::StrCat("pyramid-evidence-fuzz-", getpid()));
    fs::remove_all(*path, error);
    fs::create_directories(*path);
    std::atexit([] {
      std::error_code error;
      fs::remove_all(WorkDirectory(), error);
    });
    return path;
  }();
  return *dir;
}

pyramid::CheckpointKey KeyOf(uint8_t choice) {
  switch (choice % 4) {
    case 0:
      return {};
    case 1:
      return {"", *pyramid::FromHex(kRefereeKeyHex)};
    case 2:
      return {kVerifierKey, ""};
    default:
      return {
          "",
          pyramid::SigningKey::FromSeed(std::string(32, 'f'))->public_key()};
  }
}

// The roster the first byte picks (null for none): the example's bots,
// b2 keyed in the second.
const pyramid::SeatRoster* RosterOf(uint8_t choice) {
  static const pyramid::SeatRoster* const rosters[2] = {
      new pyramid::SeatRoster(
          *pyramid::SeatRoster::Parse("b1 none\nb2 none\nb3 none\n")),
      new pyramid::SeatRoster(*pyramid::SeatRoster::Parse(
          absl::StrCat("b1 none\nb3 none\nb2 ",
                       pyramid::ToHex(std::string(32, '\x5a')), "\n"))),
  };
  const int pick = (choice / 4) % 3;
  return pick == 0 ? nullptr : rosters[pick - 1];
}

// Writes the parts of `text` into `dir` (made empty).
void WriteDirectory(std::string_view text, const fs::path& dir) {
  std::error_code error;
  fs::remove_all(dir, error);
  fs::create_directory(dir);
  size_t parts = 0;
  while (!text.empty() && parts < kMaxParts) {
    const size_t end = text.find(kSeparator);
    const std::string_view part = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + kSeparator.size());
    if (part.empty()) continue;
    ++parts;
    const auto selector = static_cast<uint8_t>(part[0]);
    const fs::path path = dir / kNames[(selector & 0x3f) % kNameCount];
    fs::remove_all(path, error);
    fs::create_directories(path.parent_path(), error);
    switch (selector >> 6) {
      case 1: {
        // A symbolic link to a name of the directory (its own: a loop),
        // never out of it.
        const uint8_t target = part.size() > 1 ? part[1] : 0;
        fs::create_symlink(dir / kNames[target % kNameCount], path, error);
        break;
      }
      case 2:
        fs::create_directory(path, error);
        break;
      case 3:
        // Without contents: a FIFO, which the check must name, not wait on.
        if (part.size() == 1) {
          mkfifo(path.c_str(), 0600);
          break;
        }
        [[fallthrough]];
      default:
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            << part.substr(1);
    }
  }
}

// Whether an entry is at `path`, counting one that cannot be looked at (a
// loop of symbolic links).
bool Exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error) || error;
}

// The entries of `dir` (none when it cannot be listed).
std::vector<fs::path> List(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code error;
  for (fs::directory_iterator it(dir, error);
       !error && it != fs::directory_iterator(); it.increment(error)) {
    entries.push_back(it->path());
  }
  return entries;
}

std::vector<fs::path> Logs(const fs::path& dir) {
  std::vector<fs::path> logs;
  for (const fs::path& path : List(dir / "logs")) {
    if (path.extension() == ".pyrlog") logs.push_back(path);
  }
  return logs;
}

bool SameTree(const pyramid::tlog::Checkpoint& a,
              const pyramid::tlog::Checkpoint& b) {
  return a.origin == b.origin && a.size == b.size && a.root == b.root;
}

// A verdict of no problem, checked again from the files in `dir` against
// the contract (CheckTournamentDirectory's comment): aborts where it does
// not hold.
void CheckGenuineDirectory(const fs::path& dir, pyramid::CheckpointKey key,
                           const pyramid::SeatRoster* roster,
                           const pyramid::TournamentVerdict& verdict) {
  // The referee's key: the one given, else the directory's key files
  // (either, and the same key when both are there).
  if (key.verifier_key.empty() && key.public_key.empty()) {
    for (const char* name : {"referee.key.pub", "referee.pub"}) {
      if (!Exists(dir / name)) continue;
      absl::StatusOr<std::string> parsed =
          pyramid::ParsePublicKey((dir / name).string());
      Check(parsed.ok());
      Check(key.public_key.empty() || key.public_key == *parsed);
      key.public_key = *parsed;
    }
    Check(!key.public_key.empty());
  }
  std::string log_key = key.public_key;
  if (log_key.empty()) {
    absl::StatusOr<pyramid::tlog::NoteVerifier> verifier =
        pyramid::tlog::ParseVerifierKey(key.verifier_key);
    Check(verifier.ok());
    log_key = verifier->public_key;
  }
  // The checkpoint, opened with it: the verdict's.
  absl::StatusOr<std::string> note =
      pyramid::ReadFileToString((dir / "checkpoint").string());
  Check(note.ok());
  absl::StatusOr<pyramid::tlog::Checkpoint> checkpoint =
      pyramid::OpenCheckpointWith(*note, key);
  Check(checkpoint.ok());
  Check(SameTree(*checkpoint, verdict.checkpoint));
  // The schedule: numbered from 0, labelled NAME/RUN/INDEX.
  absl::StatusOr<std::string> json =
      pyramid::ReadFileToString((dir / "schedule.json").string());
  Check(json.ok());
  v1::TournamentSchedule schedule;
  Check(google::protobuf::util::JsonStringToMessage(*json, &schedule).ok());
  Check(pyramid::CheckJsonKeysOnce(*json, true).ok());
  size_t to_play = 0;
  for (int i = 0; i < schedule.matches_size(); ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(i);
    Check(entry.index() == static_cast<uint32_t>(i));
    Check(entry.label() ==
          pyramid::TournamentLabel(schedule.name(), schedule.run_id(), i));
    if (!entry.skipped()) ++to_play;
  }
  // Every log: genuine (then scheduled, included) or an unsealed prefix.
  pyramid::VerifyOptions options;
  options.pinned_key = log_key;
  std::set<uint32_t> played;
  std::set<std::string> proofs;
  uint64_t seats = 0;
  for (const fs::path& path : Logs(dir)) {
    absl::StatusOr<std::string> bytes =
        pyramid::ReadFileToString(path.string());
    Check(bytes.ok());
    const pyramid::Verdict v = pyramid::VerifyLog(*bytes, options);
    if (v.kind == pyramid::Verdict::Kind::kUnsealedPrefix) continue;
    Check(v.kind == pyramid::Verdict::Kind::kGenuine);
    Check(v.header.game().game() == schedule.game());
    const v1::ScheduleEntry* entry = nullptr;
    for (const v1::ScheduleEntry& scheduled : schedule.matches()) {
      if (scheduled.label() == v.header.label()) entry = &scheduled;
    }
    Check(entry != nullptr && !entry->skipped());
    Check(played.insert(entry->index()).second);
    Check(v.header.seats_size() == entry->seats_size());
    for (int seat = 0; seat < entry->seats_size(); ++seat) {
      const v1::Seat& in_header = v.header.seats(seat);
      Check(in_header.name() == entry->seats(seat));
      if (roster != nullptr) {
        Check(roster->Has(in_header.name()));
        Check(roster->KeyOf(in_header.name()) == in_header.public_key());
      }
    }
    seats += v.header.seats_size();
    const std::string proof_name = path.stem().string() + ".tlog-proof";
    absl::StatusOr<std::string> proof =
        pyramid::ReadFileToString((dir / "proofs" / proof_name).string());
    Check(proof.ok());
    absl::StatusOr<pyramid::Inclusion> inclusion = pyramid::CheckInclusion(
        *bytes, pyramid::ToHex(v.header.match_id()), *proof, key);
    Check(inclusion.ok());
    Check(SameTree(inclusion->checkpoint, *checkpoint));
    proofs.insert(proof_name);
  }
  Check(verdict.matches == played.size());
  Check(verdict.matches == to_play);
  Check(verdict.seats_matching_roster == (roster != nullptr ? seats : 0));
  Check(to_play > 0);
  // Skipped matches: the last ones, of a tournament with an SPRT.
  int last_played = -1;
  bool any_skipped = false;
  for (int i = 0; i < schedule.matches_size(); ++i) {
    if (schedule.matches(i).skipped()) {
      any_skipped = true;
    } else {
      Check(!any_skipped);
      last_played = i;
    }
  }
  Check(last_played >= 0);
  if (any_skipped) {
    std::error_code looked;
    Check(fs::is_regular_file(dir / "tournament.txt", looked));
    absl::StatusOr<std::string> text =
        pyramid::ReadFileToString((dir / "tournament.txt").string());
    Check(text.ok());
    v1::Tournament tournament;
    Check(google::protobuf::TextFormat::ParseFromString(*text, &tournament));
    Check(tournament.has_sprt());
    Check(tournament.name() == schedule.name());
    Check(tournament.game().game() == schedule.game());
  }
  // The embedded referee's tree holds the directory's sealed logs alone.
  if (!Exists(dir / "referee.pub") && Exists(dir / "referee.key.pub")) {
    std::set<std::string> sealed;
    for (const char* sub : {"logs", "superseded"}) {
      for (const fs::path& path : List(dir / sub)) {
        std::error_code looked;
        if (path.extension() != ".pyrlog" ||
            !fs::is_regular_file(path, looked)) {
          continue;
        }
        absl::StatusOr<std::string> bytes =
            pyramid::ReadFileToString(path.string());
        if (!bytes.ok()) continue;
        const pyramid::Verdict v = pyramid::VerifyLog(*bytes, options);
        if (v.kind != pyramid::Verdict::Kind::kGenuine) continue;
        bool scheduled = std::string_view(sub) == "logs";
        for (const v1::ScheduleEntry& entry : schedule.matches()) {
          scheduled |= entry.label() == v.header.label();
        }
        if (scheduled) sealed.insert(v.header.match_id());
      }
    }
    Check(checkpoint->size == sealed.size());
  }
  // No other proof.
  for (const fs::path& path : List(dir / "proofs")) {
    Check(proofs.contains(path.filename().string()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pyramid::fuzz::QuietProtobuf();
  if (size == 0 || size > kMaxInput) return 0;
  const pyramid::CheckpointKey key = KeyOf(data[0]);
  const pyramid::SeatRoster* const roster = RosterOf(data[0]);
  const fs::path dir = WorkDirectory() / "tournament";
  WriteDirectory(
      std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), dir);

  const pyramid::TournamentVerdict verdict =
      pyramid::CheckTournamentDirectory(dir.string(), key, roster);
  static const bool print = std::getenv("EVIDENCE_FUZZER_PRINT") != nullptr;
  static const bool genuine = std::getenv("EVIDENCE_FUZZER_GENUINE") != nullptr;
  if (print) {
    for (const std::string& note : verdict.notes) {
      std::cerr << "note: " << note << "\n";
    }
    for (const std::string& problem : verdict.problems) {
      std::cerr << "problem: " << problem << "\n";
    }
    std::cerr << "verdict: " << verdict.summary << " (matches "
              << verdict.matches << ")\n";
  }
  if (genuine)
    Check(verdict.not_a_tournament.empty() && verdict.problems.empty());

  // Not a tournament exactly when neither file is there; then nothing else
  // is said.
  const bool tournament =
      Exists(dir / "schedule.json") || Exists(dir / "checkpoint");
  Check(verdict.not_a_tournament.empty() == tournament);
  if (!tournament) {
    Check(verdict.problems.empty() && verdict.notes.empty() &&
          verdict.matches == 0 && verdict.summary == verdict.not_a_tournament);
  } else if (verdict.problems.empty()) {
    // Then where its logs are in the tree and which run they are.
    Check(absl::StartsWith(
        verdict.summary,
        absl::StrCat(verdict.matches, " matches, all included in checkpoint ",
                     verdict.checkpoint.size, " ",
                     pyramid::ToHex(pyramid::AsView(verdict.checkpoint.root)),
                     " as ")));
    CheckGenuineDirectory(dir, key, roster, verdict);
  } else {
    Check(verdict.summary ==
          absl::StrCat(verdict.problem_count, " problem",
                       verdict.problem_count == 1 ? "" : "s"));
  }
  // The count is of logs, each of a scheduled match not skipped: never
  // more than the logs no problem or note is about.
  size_t unnamed = 0;
  for (const fs::path& log : Logs(dir)) {
    const std::string named =
        absl::StrCat("logs/", log.filename().string(), ":");
    bool said = false;
    for (const auto* list : {&verdict.problems, &verdict.notes}) {
      for (const std::string& text : *list) said |= text.starts_with(named);
    }
    if (!said) ++unnamed;
  }
  Check(verdict.matches <= unnamed);
  v1::TournamentSchedule schedule;
  // Only a file: a FIFO there (which the check names) would block the read.
  std::error_code looked;
  absl::StatusOr<std::string> json =
      fs::is_regular_file(dir / "schedule.json", looked)
          ? pyramid::ReadFileToString((dir / "schedule.json").string())
          : absl::NotFoundError("not a file");
  // The key scanner on any bytes: folding names only merges keys.
  if (json.ok() && pyramid::CheckJsonKeysOnce(*json, true).ok()) {
    Check(pyramid::CheckJsonKeysOnce(*json).ok());
  }
  if (json.ok() &&
      google::protobuf::util::JsonStringToMessage(*json, &schedule).ok()) {
    size_t to_play = 0;
    for (const v1::ScheduleEntry& entry : schedule.matches()) {
      if (!entry.skipped()) ++to_play;
    }
    Check(verdict.matches <= to_play);
  }

  std::error_code error;
  fs::remove_all(dir, error);
  return 0;
}

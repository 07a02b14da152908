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

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
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
#include "tools/tournament/match_verdict.h"
#include "tools/tournament/ratings.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"

namespace {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;

// Larger inputs are skipped: a few logs of a few KiB each is all a
// directory check needs, and each input must stay fast.
constexpr size_t kMaxInput = 256 * 1024;
// At most this many parts are written.
constexpr size_t kMaxParts = 32;
constexpr std::string_view kSeparator = "@@@@";
// A results.json from the input's bytes holds at most this many of them:
// the runner writes about 650 bytes a match, and a few matches is all the
// directory has (a larger one only makes each input slower).
constexpr size_t kMaxResultsJson = 64 * 1024;
// The pseudo-names of kNames that make tournament.txt and results.json.
constexpr std::string_view kMadeTournament = "<made tournament.txt>";
constexpr std::string_view kMadeResults = "<made results.json>";

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
    "results.json",
    // Not files: a part of either name has the fuzzer make the file from
    // the directory as the other parts left it (ResultsOfDirectory,
    // TournamentOfSchedule), the part's contents picking its fields and
    // changes, after every other part is written.
    kMadeTournament,
    kMadeResults,
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

// The contents of the parts that name kMadeTournament and kMadeResults
// (the last of each), which make those files once the others are written.
struct MadeParts {
  std::optional<std::string> tournament;
  std::optional<std::string> results;
};

// Writes the parts of `text` into `dir` (made empty), but for those of
// kMadeTournament and kMadeResults: returned.
MadeParts WriteDirectory(std::string_view text, const fs::path& dir) {
  MadeParts made;
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
    const std::string_view name = kNames[(selector & 0x3f) % kNameCount];
    if (name == kMadeTournament || name == kMadeResults) {
      (name == kMadeTournament ? made.tournament : made.results) =
          std::string(part.substr(1));
      continue;
    }
    const fs::path path = dir / name;
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
            << part.substr(1, name == "results.json" ? kMaxResultsJson
                                                     : std::string_view::npos);
    }
  }
  return made;
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

// The bytes of a part's contents, one at a time: 0 past the end.
class Bytes {
 public:
  explicit Bytes(std::string_view bytes) : bytes_(bytes) {}
  uint8_t Next() {
    if (bytes_.empty()) return 0;
    const auto next = static_cast<uint8_t>(bytes_[0]);
    bytes_.remove_prefix(1);
    return next;
  }
  bool empty() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

// The contents of `path` when it is a regular file (through links; never a
// FIFO, whose read would wait).
std::optional<std::string> ReadRegular(const fs::path& path) {
  std::error_code looked;
  if (!fs::is_regular_file(path, looked)) return std::nullopt;
  absl::StatusOr<std::string> bytes = pyramid::ReadFileToString(path.string());
  if (!bytes.ok()) return std::nullopt;
  return *std::move(bytes);
}

std::optional<v1::TournamentSchedule> ScheduleOf(const fs::path& dir) {
  const std::optional<std::string> json = ReadRegular(dir / "schedule.json");
  v1::TournamentSchedule schedule;
  if (!json ||
      !google::protobuf::util::JsonStringToMessage(*json, &schedule).ok()) {
    return std::nullopt;
  }
  return schedule;
}

// The schedule's bots in the order they first play.
std::vector<std::string> BotsOf(const v1::TournamentSchedule& schedule) {
  std::vector<std::string> bots;
  std::set<std::string> named;
  for (const v1::ScheduleEntry& entry : schedule.matches()) {
    for (const std::string& bot : entry.seats()) {
      if (named.insert(bot).second) bots.push_back(bot);
    }
  }
  return bots;
}

// Whether the runner's MakeSchedule makes `schedule` of `t` (a round
// robin or gauntlet), entry by entry: index, label NAME/RUN_ID/INDEX and
// seats by bot name (as WhyNotItsSchedule in replay/tournament_check.cc).
bool MakesSchedule(const v1::Tournament& t,
                   const v1::TournamentSchedule& schedule) {
  absl::StatusOr<std::vector<pyramid::ScheduledMatch>> made =
      pyramid::MakeSchedule(t.format(), t.bots_size(),
                            static_cast<int>(t.seats()), t.rounds(), t.seed());
  if (!made.ok() ||
      made->size() != static_cast<size_t>(schedule.matches_size())) {
    return false;
  }
  for (const pyramid::ScheduledMatch& match : *made) {
    if (match.index >= static_cast<uint32_t>(schedule.matches_size())) {
      return false;
    }
    const v1::ScheduleEntry& entry = schedule.matches(match.index);
    if (entry.index() != match.index ||
        entry.label() != pyramid::TournamentLabel(
                             schedule.name(), schedule.run_id(), match.index) ||
        entry.seats_size() != static_cast<int>(match.bots.size())) {
      return false;
    }
    for (size_t seat = 0; seat < match.bots.size(); ++seat) {
      if (entry.seats(seat) != t.bots(match.bots[seat]).name()) return false;
    }
  }
  return true;
}

// A tournament the runner can have made `schedule` with: a round robin or
// gauntlet of the schedule's bots (2 to 4) in some order, at its seats, for
// 1 to 4 rounds, of a seed below 8; nullopt when there is none such (for
// any schedule of more than 64 matches). Remembered for the last schedules
// asked about: the search makes a few hundred schedules.
std::optional<v1::Tournament> TournamentThatMade(
    const v1::TournamentSchedule& schedule) {
  static auto* const known =
      new std::map<std::string, std::optional<v1::Tournament>>();
  std::string key;
  Check(schedule.SerializeToString(&key));
  if (const auto it = known->find(key); it != known->end()) return it->second;
  if (known->size() >= 64) known->clear();
  std::optional<v1::Tournament>& found = (*known)[key];
  std::vector<std::string> bots = BotsOf(schedule);
  const int matches = schedule.matches_size();
  if (schedule.name().empty() || bots.size() < 2 || bots.size() > 4 ||
      matches == 0 || matches > 64) {
    return found;
  }
  v1::Tournament t;
  t.set_name(schedule.name());
  t.mutable_game()->set_game(schedule.game());
  t.set_seats(schedule.matches(0).seats_size());
  std::sort(bots.begin(), bots.end());
  do {
    t.clear_bots();
    for (const std::string& bot : bots) t.add_bots()->set_name(bot);
    for (const v1::TournamentFormat format : {v1::ROUND_ROBIN, v1::GAUNTLET}) {
      t.set_format(format);
      // The rounds the count gives (a round's matches do not depend on the
      // seed, only their order).
      t.set_rounds(1);
      absl::StatusOr<std::vector<pyramid::ScheduledMatch>> round =
          pyramid::MakeSchedule(format, t.bots_size(),
                                static_cast<int>(t.seats()), 1, 0);
      if (!round.ok() || round->empty() || matches % round->size() != 0 ||
          matches / round->size() > 4) {
        continue;
      }
      t.set_rounds(matches / round->size());
      {
        for (uint64_t seed = 0; seed < 8; ++seed) {
          t.set_seed(seed);
          if (MakesSchedule(t, schedule)) {
            found = t;
            return found;
          }
        }
      }
    }
  } while (std::next_permutation(bots.begin(), bots.end()));
  return found;
}

// The directory's tournament.txt as the fuzzer made it (kMadeTournament).
struct MadeTournament {
  v1::Tournament tournament;
  // The runner's: one that makes the schedule (TournamentThatMade), not
  // tampered with, with an SPRT only where the runner takes one, so that
  // the check compares results.json with it.
  bool as_runner = false;
};

// Writes DIR/tournament.txt of the directory's schedule (nullopt, nothing
// written, without one), as the runner copies it there: one that makes
// the schedule (TournamentThatMade; else of the schedule's bots in the
// order they first play, the format the contents pick, 1 round, seed 0),
// with settings the check does not compare that the contents pick, and an
// SPRT when they ask; or, when they ask, one tampered with: of another
// name or game, another seat count, format, seed or number of rounds, an
// SPRT that cannot run, a bot left out or added, the bots in another
// order. Contents: flags (format: bits 0-1; SPRT: bit 2; tampered: bit 3),
// concurrency, commit timeout (s), elo0, elo1 - elo0 - 1, alpha and beta
// (in 512ths; 0 the default), the tampering.
std::optional<MadeTournament> WriteTournament(const fs::path& dir,
                                              std::string_view contents) {
  const std::optional<v1::TournamentSchedule> schedule = ScheduleOf(dir);
  if (!schedule) return std::nullopt;
  Bytes in(contents);
  const uint8_t flags = in.Next();
  MadeTournament made;
  v1::Tournament& t = made.tournament;
  if (std::optional<v1::Tournament> found = TournamentThatMade(*schedule)) {
    t = *std::move(found);
    made.as_runner = true;
  } else {
    t.set_name(schedule->name());
    t.mutable_game()->set_game(schedule->game());
    t.set_seats(
        schedule->matches().empty() ? 2 : schedule->matches(0).seats_size());
    for (const std::string& bot : BotsOf(*schedule)) {
      t.add_bots()->set_name(bot);
    }
    t.set_format(static_cast<v1::TournamentFormat>(flags & 3));
    t.set_rounds(1);
  }
  t.set_concurrency(in.Next());
  t.mutable_clocks()->set_commit_timeout_ms(1000 * in.Next());
  if (flags & 4) {
    v1::SprtSettings& sprt = *t.mutable_sprt();
    sprt.set_elo0(static_cast<int8_t>(in.Next()));
    sprt.set_elo1(sprt.elo0() + 1 + in.Next());
    sprt.set_alpha(in.Next() / 512.0);
    sprt.set_beta(in.Next() / 512.0);
    made.as_runner &= pyramid::ValidateSprt(t.sprt()).ok() &&
                      t.bots_size() == 2 && t.seats() == 2 &&
                      (t.format() == v1::ROUND_ROBIN ||
                       t.format() == v1::TOURNAMENT_FORMAT_UNSPECIFIED);
  }
  if (flags & 8) {
    made.as_runner = false;
    switch (in.Next() % 10) {
      case 0:
        t.set_name(absl::StrCat(t.name(), "x"));
        break;
      case 1:
        t.mutable_game()->set_game(absl::StrCat(t.game().game(), "x"));
        break;
      case 2:
        t.set_seats(t.seats() + 1);
        break;
      case 3:
        t.mutable_sprt()->set_elo1(t.sprt().elo0());
        break;
      case 4:
        if (!t.bots().empty()) t.mutable_bots()->erase(t.bots().begin());
        break;
      case 5:
        t.add_bots()->set_name("never");
        break;
      case 6:
        std::reverse(t.mutable_bots()->begin(), t.mutable_bots()->end());
        break;
      case 7:
        t.set_format(static_cast<v1::TournamentFormat>((t.format() + 1) % 4));
        break;
      case 8:
        t.set_seed(t.seed() + 1);
        break;
      default:
        t.set_rounds(t.rounds() + 1);
    }
  }
  std::string text;
  Check(google::protobuf::TextFormat::PrintToString(t, &text));
  std::error_code error;
  fs::remove_all(dir / "tournament.txt", error);
  std::ofstream(dir / "tournament.txt", std::ios::binary | std::ios::trunc)
      << text;
  return made;
}

// The raw key the directory's logs are checked against: `key`'s, else the
// directory's key file's (empty when there is none that parses).
std::string LogKeyOf(const fs::path& dir, const pyramid::CheckpointKey& key) {
  if (!key.public_key.empty()) return key.public_key;
  if (!key.verifier_key.empty()) {
    absl::StatusOr<pyramid::tlog::NoteVerifier> verifier =
        pyramid::tlog::ParseVerifierKey(key.verifier_key);
    return verifier.ok() ? verifier->public_key : "";
  }
  for (const char* name : {"referee.key.pub", "referee.pub"}) {
    std::error_code looked;
    if (!fs::is_regular_file(dir / name, looked)) continue;
    absl::StatusOr<std::string> parsed =
        pyramid::ParsePublicKey((dir / name).string());
    if (parsed.ok()) return *parsed;
  }
  return "";
}

// A double changed beyond the check's tolerances: a finite one by 1 or
// more, any other made 0.
double Changed(double value, uint8_t by) {
  return std::isfinite(value) ? value + 1 + by % 16 : 0;
}

// The directory's results.json as the fuzzer made it (kMadeResults).
struct MadeResults {
  // What the runner writes (no field the check compares changed, nor the
  // JSON's form).
  bool as_runner = true;
  // Exactly one change the check must find (and none undone by a later
  // change of the bytes).
  int checked_changes = 0;
  size_t bytes = 0;
};

// Whether the check compares results.json with `tournament`'s format, bots
// and SPRT: the fuzzer's tournament.txt, the runner's (else the check has
// none, or a tournament.txt the fuzzer does not judge).
bool CheckedAgainst(const std::optional<MadeTournament>& tournament) {
  return tournament && tournament->as_runner;
}

// Writes DIR/results.json as the runner would for the directory as the
// other parts left it (Runner::Report): a genuine result of each genuine
// log in logs/ (under the key the check uses) of a scheduled match not
// skipped (the first such log of a match), the counts, standings and
// ratings the runner computes from them and the SPRT of the runner's
// tournament; the runner's tournament is `tournament` when the fuzzer
// made tournament.txt, else DIR/tournament.txt when it is the schedule's,
// else one of the schedule's bots. Then changed as the contents say: flags
// (bit 0: compact JSON; bit 1: lowerCamelCase names; bits 2-3: the SPRT's
// decision when the ratio is not at a bound), then up to 8 changes, each
// an operation and its operand (ChangeResults). Nothing is written without
// a schedule.
std::optional<MadeResults> WriteResults(
    const fs::path& dir, const pyramid::CheckpointKey& key,
    std::string_view contents,
    const std::optional<MadeTournament>& made_tournament) {
  const std::optional<v1::TournamentSchedule> schedule = ScheduleOf(dir);
  if (!schedule) return std::nullopt;
  Bytes in(contents);
  const uint8_t flags = in.Next();
  // The runner's tournament.
  v1::Tournament t;
  bool from_file = false;
  if (made_tournament) {
    t = made_tournament->tournament;
    from_file = true;
  } else if (const std::optional<std::string> text =
                 ReadRegular(dir / "tournament.txt");
             text && google::protobuf::TextFormat::ParseFromString(*text, &t) &&
             (t.name().empty() ? "tournament" : t.name()) == schedule->name() &&
             t.game().game() == schedule->game()) {
    from_file = true;
  }
  if (!from_file) {
    t.Clear();
    t.set_name(schedule->name());
    t.mutable_game()->set_game(schedule->game());
    t.set_seats(
        schedule->matches().empty() ? 2 : schedule->matches(0).seats_size());
    std::vector<std::string> bots = BotsOf(*schedule);
    // The runner's order of bots need not be the schedule's.
    if (flags & 0x10) std::reverse(bots.begin(), bots.end());
    for (const std::string& bot : bots) t.add_bots()->set_name(bot);
  }
  std::vector<std::string> bots;
  for (const v1::TournamentBot& bot : t.bots()) bots.push_back(bot.name());

  // The results of the genuine logs, by index.
  const std::string log_key = LogKeyOf(dir, key);
  std::map<uint32_t, v1::TournamentMatchResult> played;
  if (!log_key.empty()) {
    pyramid::VerifyOptions options;
    options.pinned_key = log_key;
    for (const fs::path& path : Logs(dir)) {
      const std::optional<std::string> bytes = ReadRegular(path);
      if (!bytes) continue;
      const pyramid::Verdict v = pyramid::VerifyLog(*bytes, options);
      if (v.kind != pyramid::Verdict::Kind::kGenuine) continue;
      for (const v1::ScheduleEntry& entry : schedule->matches()) {
        if (entry.label() != v.header.label() || entry.skipped() ||
            played.contains(entry.index())) {
          continue;
        }
        v1::TournamentMatchResult& r = played[entry.index()];
        r.set_index(entry.index());
        r.set_match_id(pyramid::ToHex(v.header.match_id()));
        *r.mutable_seats() = entry.seats();
        *r.mutable_outcome() = v.outcome;
        r.set_log_file(absl::StrCat("logs/", path.filename().string()));
        r.set_verdict(pyramid::kGenuineVerdict);
        r.set_moves(v.moves);
        break;
      }
    }
  }
  std::vector<v1::TournamentMatchResult> matches;
  for (const auto& [index, r] : played) matches.push_back(r);

  v1::TournamentResults results;
  results.set_name(schedule->name());
  *results.mutable_game() = t.game();
  results.set_referee_public_key(pyramid::ToHex(log_key));
  *results.mutable_clocks() = t.clocks();
  results.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
  results.set_format(t.format());
  results.set_scheduled(schedule->matches_size());
  results.set_verified(matches.size());
  uint32_t skipped = 0;
  for (const v1::ScheduleEntry& entry : schedule->matches()) {
    skipped += entry.skipped();
  }
  results.set_skipped(skipped);
  std::vector<v1::TournamentStanding> standings = pyramid::ComputeStandings(
      bots, matches, pyramid::StandingsOrderOf(t.format()));
  for (v1::TournamentStanding& s : standings) s.set_restarts(flags >> 5);
  results.set_rating_model(
      pyramid::ApplyRatings(bots, matches, t.seats(), standings));
  for (v1::TournamentStanding& s : standings) {
    *results.add_standings() = std::move(s);
  }
  MadeResults made;
  if (t.has_sprt()) {
    if (pyramid::ValidateSprt(t.sprt()).ok()) {
      // Runner::Count: bot 0 is the tournament's first.
      const std::string first = bots.empty() ? "" : bots[0];
      int wins = 0, draws = 0, losses = 0;
      for (const v1::TournamentMatchResult& r : matches) {
        if (r.seats_size() != 2 || r.outcome().seats_size() != 2) continue;
        const int mine_at = r.seats(0) == first ? 0 : 1;
        const uint32_t mine = r.outcome().seats(mine_at).rank();
        const uint32_t theirs = r.outcome().seats(1 - mine_at).rank();
        ++(mine < theirs ? wins : mine == theirs ? draws : losses);
      }
      v1::SprtOutcome& sprt = *results.mutable_sprt();
      sprt = pyramid::EvaluateSprt(t.sprt(), wins, draws, losses);
      // The decision the runner took when the ratio first reached a bound
      // (which the final ratio need not be at): one the check cannot
      // tell from another, but "inconclusive" only when no match was
      // skipped and the ratio is not at a bound.
      const int pick = (flags >> 2) & 3;
      if (sprt.decision() == "inconclusive") {
        if (skipped > 0 || pick != 0) sprt.set_decision(pick & 1 ? "H1" : "H0");
      } else if (pick == 3) {
        sprt.set_decision(sprt.decision() == "H0" ? "H1" : "H0");
      }
    } else {
      made.as_runner = false;  // Not a tournament the runner runs.
    }
  }
  for (const v1::TournamentMatchResult& r : matches) {
    *results.add_matches() = r;
  }

  // The changes.
  const bool against = CheckedAgainst(made_tournament);
  const bool sprt_checked =
      against && made_tournament->tournament.has_sprt() &&
      pyramid::ValidateSprt(made_tournament->tournament.sprt()).ok();
  bool raw_edits = false;
  std::vector<std::pair<uint8_t, uint8_t>> raw;
  for (int i = 0; i < 8 && !in.empty(); ++i) {
    const uint8_t op = in.Next();
    const uint8_t arg = in.Next();
    const int n = results.standings_size();
    const int m = results.matches_size();
    v1::TournamentStanding* s =
        n > 0 ? results.mutable_standings(arg % n) : nullptr;
    v1::TournamentMatchResult* r =
        m > 0 ? results.mutable_matches(arg % m) : nullptr;
    // A change the check must find; one it does not look at.
    auto checked = [&] {
      ++made.checked_changes;
      made.as_runner = false;
    };
    switch (op % 40) {
      case 0:
        if (s) {
          s->set_points(Changed(s->points(), arg));
          checked();
        }
        break;
      case 1:
        if (s) {
          s->set_matches(s->matches() + 1);
          checked();
        }
        break;
      case 2:
        if (s) {
          s->set_firsts(s->firsts() + 1);
          checked();
        }
        break;
      case 3:
        if (s) {
          s->set_forfeits(s->forfeits() + 1);
          checked();
        }
        break;
      case 4:
        if (s) {
          s->set_mean_rank(Changed(s->mean_rank(), arg));
          checked();
        }
        break;
      case 5:
        if (s) {
          s->set_rating(Changed(s->rating(), arg));
          checked();
        }
        break;
      case 6:
        if (s) {
          s->set_rating_low(Changed(s->rating_low(), arg));
          checked();
        }
        break;
      case 7:
        if (s) {
          s->set_rating_high(Changed(s->rating_high(), arg));
          checked();
        }
        break;
      case 8:
        // Two places swapped.
        if (n >= 2) {
          const int other = (arg % n + 1 + (arg >> 4) % (n - 1)) % n;
          if (results.standings(arg % n).bot() !=
              results.standings(other).bot()) {
            results.mutable_standings()->SwapElements(arg % n, other);
            checked();
          }
        }
        break;
      case 9:
        // A standing left out: the check finds it missing when the bot is
        // one it knows of without results.json.
        if (s) {
          bool known = against;
          for (const v1::ScheduleEntry& e : schedule->matches()) {
            for (const std::string& bot : e.seats()) known |= bot == s->bot();
          }
          if (known)
            checked();
          else
            made.as_runner = false;
          results.mutable_standings()->erase(results.standings().begin() +
                                             arg % n);
        }
        break;
      case 10: {
        // A bot that never played, at the end: seen only against the
        // tournament's bots.
        v1::TournamentStanding& added = *results.add_standings();
        added.set_bot(absl::StrCat("invented", arg % 4));
        added.set_rating_low(-INFINITY);
        added.set_rating_high(INFINITY);
        if (against)
          checked();
        else
          made.as_runner = false;
        break;
      }
      case 11:
        if (r && r->outcome().seats_size() > 0) {
          auto& seat = *r->mutable_outcome()->mutable_seats(
              arg % r->outcome().seats_size());
          seat.set_rank(seat.rank() + 1);
          checked();
        }
        break;
      case 12:
        if (r && r->outcome().seats_size() > 0) {
          auto& seat = *r->mutable_outcome()->mutable_seats(
              arg % r->outcome().seats_size());
          seat.set_score(seat.score() + 1 + arg % 4);
          checked();
        }
        break;
      case 13:
        if (r && r->outcome().seats_size() > 0) {
          auto& seat = *r->mutable_outcome()->mutable_seats(
              arg % r->outcome().seats_size());
          seat.set_forfeited(!seat.forfeited());
          checked();
        }
        break;
      case 14:
        if (r) {
          r->mutable_outcome()->set_termination(
              static_cast<v1::Termination>(r->outcome().termination() % 3 + 1));
          checked();
        }
        break;
      case 15:
        if (r) {
          std::string id = r->match_id();
          if (id.empty())
            id = "0";
          else
            id[arg % id.size()] = id[arg % id.size()] == 'f' ? '0' : 'f';
          r->set_match_id(id);
          checked();
        }
        break;
      case 16:
        if (r) {
          r->set_moves(r->moves() + 1 + arg);
          checked();
        }
        break;
      case 17:
        if (r) {
          r->set_log_file(absl::StrCat(r->log_file(), "x"));
          checked();
        }
        break;
      case 18:
        if (r) {
          r->set_verdict("not genuine");
          checked();
        }
        break;
      case 19:
        if (r) {
          results.mutable_matches()->erase(results.matches().begin() + arg % m);
          checked();
        }
        break;
      case 20:
        if (r) {
          const v1::TournamentMatchResult copy = *r;
          *results.add_matches() = copy;
          checked();
        }
        break;
      case 21:
        if (r) {
          r->set_index(r->index() + 1000);
          checked();
        }
        break;
      case 22:
        if (r) {
          r->add_seats("invented");
          checked();
        }
        break;
      case 23:
        if (r && r->seats_size() >= 2 && r->seats(0) != r->seats(1)) {
          r->mutable_seats()->SwapElements(0, 1);
          checked();
        }
        break;
      case 24:
        results.set_scheduled(results.scheduled() + 1 + arg);
        checked();
        break;
      case 25:
        results.set_verified(results.verified() + 1 + arg);
        checked();
        break;
      case 26:
        results.set_skipped(results.skipped() + 1 + arg);
        checked();
        break;
      case 27:
        results.set_name(absl::StrCat(results.name(), "x"));
        checked();
        break;
      case 28:
        results.mutable_game()->set_game(
            absl::StrCat(results.game().game(), "x"));
        checked();
        break;
      case 29:
        results.set_rating_model(absl::StrCat(results.rating_model(), "x"));
        checked();
        break;
      case 30:
        // The format: compared only with the tournament's.
        results.set_format(static_cast<v1::TournamentFormat>(
            (results.format() + 1 + arg % 3) % 4));
        if (against)
          checked();
        else
          made.as_runner = false;
        break;
      case 31:
        // The SPRT's figures, or one where the tournament has none.
        if (results.has_sprt()) {
          v1::SprtOutcome& sprt = *results.mutable_sprt();
          switch (arg % 4) {
            case 0:
              sprt.set_llr(Changed(sprt.llr(), arg));
              break;
            case 1:
              sprt.set_wins(sprt.wins() + 1);
              break;
            case 2:
              sprt.set_elo_high(Changed(sprt.elo_high(), arg));
              break;
            default:
              sprt.set_decision("maybe");
          }
          if (sprt_checked)
            checked();
          else
            made.as_runner = false;
        } else {
          results.mutable_sprt()->set_decision("H1");
          if (against)
            checked();
          else
            made.as_runner = false;
        }
        break;
      // Fields the check does not compare.
      case 32:
        results.set_referee_public_key(std::string(arg % 8, 'a'));
        break;
      case 33:
        if (s) s->set_restarts(s->restarts() + 1 + arg);
        break;
      case 34:
        results.set_checkpoint(absl::StrCat("checkpoint ", arg));
        break;
      case 35:
        results.set_transparency_verdict("all included");
        results.set_transparency_problems(arg);
        break;
      case 36:
        results.mutable_clocks()->set_commit_timeout_ms(1000 * arg);
        break;
      case 37:
        results.set_forfeit_policy(static_cast<v1::ForfeitPolicy>(arg % 3));
        break;
      // The JSON's bytes.
      default:
        raw.emplace_back(op, arg);
    }
  }
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = (flags & 1) == 0;
  options.preserve_proto_field_names = (flags & 2) == 0;
  options.always_print_primitive_fields = true;
  std::string json;
  Check(google::protobuf::util::MessageToJsonString(results, &json, options)
            .ok());
  if (flags & 2) made.as_runner = false;
  for (const auto& [op, arg] : raw) {
    made.as_runner = false;
    if (op % 40 == 38 && json.starts_with("{")) {
      // A key twice, its first value another (as schedule_key_twice):
      // strict JSON has each key once.
      json.insert(1, "\"name\": \"evil\",");
      ++made.checked_changes;
    } else if (!json.empty()) {
      // A byte changed: anything then.
      raw_edits = true;
      json[arg * json.size() / 256] ^= static_cast<char>(1 + (op >> 5));
    }
  }
  if (raw_edits) made.checked_changes = 0;
  made.bytes = json.size();
  Check(made.bytes < kMaxResultsJson);
  std::error_code error;
  fs::remove_all(dir / "results.json", error);
  std::ofstream(dir / "results.json", std::ios::binary | std::ios::trunc)
      << json;
  return made;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pyramid::fuzz::QuietProtobuf();
  if (size == 0 || size > kMaxInput) return 0;
  const pyramid::CheckpointKey key = KeyOf(data[0]);
  const pyramid::SeatRoster* const roster = RosterOf(data[0]);
  const fs::path dir = WorkDirectory() / "tournament";
  const MadeParts parts = WriteDirectory(
      std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), dir);
  // tournament.txt and results.json made from the directory, when the
  // input asks; and whether tournament.txt is one the check reads as the
  // runner's, or none (else it is of the input's bytes, which the fuzzer
  // does not judge).
  const std::optional<MadeTournament> made_tournament =
      parts.tournament ? WriteTournament(dir, *parts.tournament) : std::nullopt;
  const std::optional<MadeResults> made_results =
      parts.results ? WriteResults(dir, key, *parts.results, made_tournament)
                    : std::nullopt;
  const bool runners_tournament = CheckedAgainst(made_tournament);

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
    if (made_tournament) {
      std::cerr << "made tournament.txt: "
                << (made_tournament->as_runner ? "the runner's" : "another")
                << "\n";
    }
    if (made_results) {
      std::cerr << "made results.json: " << made_results->bytes << " bytes, "
                << (made_results->as_runner
                        ? "the runner's"
                        : absl::StrCat(made_results->checked_changes,
                                       " checked changes"))
                << "\n";
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
  // results.json (check 7): the runner's for the directory passes when
  // nothing else is wrong with it; with one change to a field the check
  // compares, it does not.
  bool results_problem = false;
  bool other_problem = false;
  for (const std::string& problem : verdict.problems) {
    if (problem.starts_with("results.json")) {
      results_problem = true;
    } else if (!(problem.starts_with("and ") &&
                 problem.find(" more problem") != std::string::npos)) {
      other_problem = true;
    }
  }
  if (made_results && made_results->as_runner && runners_tournament) {
    Check(!results_problem || other_problem);
  }
  if (made_results && made_results->checked_changes == 1) {
    Check(results_problem || other_problem);
  }
  if (made_results && tournament) {
    for (const std::string& note : verdict.notes) {
      Check(!note.starts_with("the directory holds no results.json"));
    }
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

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "replay/ordered_pool.h"
#include "tools/tournament/ratings.h"
#include "tools/tournament/report.h"
#include "tools/tournament/runner_impl.h"
#include "tools/tournament/sprt.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace runner_internal {

absl::Status WriteFile(const fs::path& path, const std::string& bytes) {
  return ReplaceFileWhole(path.string(), bytes);
}

absl::Status SyncFileSystemOf(const fs::path& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat(
        "cannot open ", dir.string(), " to sync it: ", std::strerror(errno)));
  }
  const bool ok = syncfs(fd) == 0;
  const std::string error = ok ? "" : std::strerror(errno);
  close(fd);
  if (!ok) {
    return absl::InternalError(
        absl::StrCat("cannot sync ", dir.string(), ": ", error));
  }
  return absl::OkStatus();
}

namespace {

// The most of a published proof read to compare it: replay
// verify-tournament refuses a larger one unread (an inclusion proof is a
// few KiB: at most 64 hashes and a checkpoint).
constexpr size_t kMaxProofBytes = 1 << 20;

// What stands at a published proof's path.
enum class Published { kSame, kDifferent, kNotAFile };

// Whether the entry at `path` is a regular file holding `bytes`. Only a
// regular file of at most kMaxProofBytes is read: a symlink is not
// followed, a FIFO is not waited on (O_NONBLOCK), and what was opened is
// what is checked (fstat), so that an entry replaced meanwhile is not read
// either. kDifferent for a missing one.
Published ComparePublished(const fs::path& path, const std::string& bytes) {
  const int fd =
      open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return errno == ENOENT ? Published::kDifferent : Published::kNotAFile;
  }
  struct stat st;
  Published published = Published::kNotAFile;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    published = Published::kDifferent;
    if (static_cast<uint64_t>(st.st_size) == bytes.size() &&
        bytes.size() <= kMaxProofBytes) {
      std::string now(bytes.size() + 1, '\0');
      size_t got = 0;
      for (ssize_t n = 1; n > 0 && got < now.size(); got += n) {
        n = read(fd, now.data() + got, now.size() - got);
        if (n < 0) {
          got = now.size();  // Unreadable: written anew.
          break;
        }
      }
      if (got == bytes.size() && now.compare(0, got, bytes) == 0) {
        published = Published::kSame;
      }
    }
  }
  close(fd);
  return published;
}

// Whether every entry of the directory `proofs` (itself no symlink) is a
// regular file named in `names`: the published proofs can then be kept.
bool HoldsOnlyProofs(const fs::path& proofs,
                     const std::set<std::string>& names) {
  std::error_code error;
  if (!fs::is_directory(fs::symlink_status(proofs, error))) return false;
  for (fs::directory_iterator it(proofs, error), end; !error && it != end;
       it.increment(error)) {
    if (!names.contains(it->path().filename().string()) ||
        !it->is_regular_file(error) || it->is_symlink(error)) {
      return false;
    }
  }
  return !error;
}

// Makes the published proof at `path` hold `bytes`: left as it is when it
// does, else written as `made` (outside the published directory, on its
// file system) and renamed over it (a reader sees the old file or the new
// one whole; Publish syncs them all at once). An entry that is no regular
// file (one put there since the directory was looked at) is removed
// first.
absl::Status ReplaceIfDifferent(const fs::path& path, const fs::path& made,
                                const std::string& bytes) {
  const Published published = ComparePublished(path, bytes);
  if (published == Published::kSame) return absl::OkStatus();
  if (absl::Status s = WriteFile(made, bytes); !s.ok()) return s;
  std::error_code error;
  if (published == Published::kNotAFile) fs::remove_all(path, error);
  if (!error) fs::rename(made, path, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

// The name of the inclusion proof of `match`'s log in OUTPUT/proofs/.
std::string ProofFileOf(const v1::TournamentMatchResult& match) {
  return fs::path(match.log_file()).stem().string() + ".tlog-proof";
}

// Whether the published proofs can be kept and only those missing or
// different written: when the output directory `out` published the
// checkpoint `note` already, byte for byte (a finished tournament run
// again, or a resume that sealed nothing new), and its proofs/ holds
// nothing but regular files named in `proof_files`, the proofs of the
// genuine matches. Every published proof then stands against it, so each
// is kept when it is the referee's, and only one missing or different is
// written (made in proofs.new, renamed into proofs/). Writing thousands of
// files anew cost a finished tournament's run most of its time. Otherwise
// (anything else in proofs/: a directory, a FIFO or a symlink with a
// proof's name, a stray file, a *.new an earlier version left) the proofs
// are made beside the published ones and replace them whole, then the
// checkpoint they prove against: a failure on the way leaves the evidence
// an earlier run published as it was, and the next run makes them whole
// again.
bool KeepsPublishedProofs(const fs::path& out, const std::string& note,
                          const std::set<std::string>& proof_files) {
  const absl::StatusOr<std::string> published =
      ReadFileToString((out / "checkpoint").string(), kMaxProofBytes);
  return published.ok() && *published == note &&
         HoldsOnlyProofs(out / "proofs", proof_files);
}

// Makes `dir` an empty directory, removing what was there; INTERNAL,
// naming `dir`, when it cannot remove all of it (what is left, say a file
// an earlier run left in proofs.new, would be published with the proofs)
// or cannot make it.
absl::Status MakeEmptyDirectory(const fs::path& dir) {
  std::error_code error;
  fs::remove_all(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot remove ", dir.string(), ": ", error.message()));
  }
  fs::create_directories(dir, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot make ", dir.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

// Puts the proofs made in `made` in place as `proofs`: with
// `kept_published` (the changed ones are in place already) `made` is only
// removed; otherwise `proofs` is replaced by it whole. Not synced;
// INTERNAL when it cannot.
absl::Status PutProofsInPlace(const fs::path& proofs, const fs::path& made,
                              bool kept_published) {
  std::error_code error;
  if (kept_published) {
    fs::remove_all(made, error);
  } else {
    fs::remove_all(proofs, error);
    if (!error) fs::rename(made, proofs, error);
  }
  if (error) return absl::InternalError(error.message());
  return absl::OkStatus();
}

}  // namespace

std::map<std::string, uint32_t> Runner::EarlierRestarts() const {
  std::map<std::string, uint32_t> restarts;
  absl::StatusOr<std::string> json =
      ReadFileToString((out_ / "results.json").string());
  v1::TournamentResults earlier;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  if (!json.ok() ||
      !google::protobuf::util::JsonStringToMessage(*json, &earlier, options)
           .ok()) {
    return restarts;
  }
  for (const v1::TournamentStanding& s : earlier.standings()) {
    restarts[s.bot()] = s.restarts();
  }
  return restarts;
}

absl::StatusOr<v1::TournamentResults> Runner::Report() {
  v1::TournamentResults results;
  results.set_name(t_.name());
  *results.mutable_game() = t_.game();
  results.set_referee_public_key(ToHex(link_->public_key()));
  *results.mutable_clocks() = MatchClocks(t_.clocks());
  results.set_forfeit_policy(t_.forfeit_policy() ==
                                     v1::FORFEIT_POLICY_UNSPECIFIED
                                 ? v1::FORFEIT_POLICY_FORFEIT
                                 : t_.forfeit_policy());
  results.set_format(t_.format());
  results.set_scheduled(scheduled_);
  std::vector<v1::TournamentMatchResult> matches;
  {
    absl::MutexLock lock(&results_mu_);
    for (const auto& [index, result] : results_) matches.push_back(result);
  }
  uint32_t verified = 0;
  for (const auto& r : matches) verified += IsGenuine(r);
  results.set_verified(verified);
  if (sprt_decided_.load()) results.set_skipped(scheduled_ - matches.size());
  // Swiss: a bye leaves a bot fewer matches, not a worse rank.
  std::vector<v1::TournamentStanding> standings =
      ComputeStandings(names_, matches, StandingsOrderOf(t_.format()));
  FillRestarts(standings);
  results.set_rating_model(
      ApplyRatings(names_, matches, t_.seats(), standings));
  for (auto& s : standings) *results.add_standings() = std::move(s);
  if (t_.has_sprt()) {
    absl::MutexLock lock(&results_mu_);
    *results.mutable_sprt() =
        EvaluateSprt(t_.sprt(), sprt_wins_, sprt_draws_, sprt_losses_);
    // The decision taken when the ratio first reached a bound stands.
    if (sprt_decided_.load())
      results.mutable_sprt()->set_decision(sprt_decision_);
  }
  if (!CutShort()) {
    if (absl::Status s = Publish(matches, results); !s.ok()) return s;
  }
  // Pages of matches kept from an earlier run that left none.
  for (const auto& r : matches) {
    if (!r.log_file().empty() &&
        !fs::exists(out_ / ViewerPageOf(r.log_file()))) {
      WriteViewerPage(r);
    }
  }
  for (auto& r : matches) *results.add_matches() = std::move(r);
  std::string json;
  google::protobuf::util::JsonPrintOptions json_options;
  json_options.add_whitespace = true;
  json_options.preserve_proto_field_names = true;
  json_options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(results, &json,
                                                    json_options);
  if (absl::Status s = WriteFile(out_ / "results.json", json); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          WriteFile(out_ / "report.html",
                    RenderHtmlReport(
                        results, BotsThatNeverPlayed(results, out_.string())));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = SyncFileSystemOf(out_); !s.ok()) return s;
  return results;
}

absl::Status Runner::CheckExtendsPublished(
    const v1::TlogCheckpoint& checkpoint) {
  const fs::path path = out_ / "checkpoint";
  std::error_code error;
  if (!fs::exists(path, error)) return absl::OkStatus();  // None yet.
  absl::StatusOr<std::string> published = ReadFileToString(path.string());
  if (!published.ok()) return published.status();
  const auto refused = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat(
        "the referee's transparency log checkpoint (", checkpoint.tree_size(),
        " logs) does not extend the one this directory published, ",
        path.string(), ": ", why,
        "; the referee rewrote its log, so its evidence is not published "
        "over the directory's, which is left as it was"));
  };
  absl::StatusOr<tlog::ParsedNote> note = tlog::ParseNote(*published);
  if (!note.ok()) return refused(std::string(note.status().message()));
  absl::StatusOr<tlog::Checkpoint> old = tlog::ParseCheckpoint(note->text);
  if (!old.ok()) return refused(std::string(old.status().message()));
  if (old->size > checkpoint.tree_size()) {
    return refused(absl::StrCat("it covered ", old->size, " logs"));
  }
  // A tree of no logs is a prefix of every tree: the proof holds no
  // hashes, and the referee makes none (it needs 0 < OLD), so it is
  // written here; the check still takes the empty tree's root and the
  // referee's signature on the published checkpoint. A first run whose
  // disk filled up can publish such a checkpoint.
  std::string proof_file;
  if (old->size == 0) {
    proof_file = tlog::FormatConsistencyProof(
        {.old_size = 0, .new_size = checkpoint.tree_size(), .hashes = {}});
  } else {
    absl::StatusOr<v1::ConsistencyProof> proof =
        link_->GetConsistencyProof(old->size, checkpoint.tree_size());
    if (!proof.ok()) return proof.status();
    proof_file = proof->proof_file();
  }
  if (absl::Status s = CheckConsistency(
          *published, checkpoint.note(), proof_file,
          CheckpointKey{"", link_->public_key()},
          ConsistencyNames{.old_checkpoint = path.string(),
                           .new_checkpoint = "the referee's checkpoint",
                           .proof = "the referee's consistency proof"});
      !s.ok()) {
    return refused(std::string(s.message()));
  }
  return absl::OkStatus();
}

absl::Status Runner::Publish(
    const std::vector<v1::TournamentMatchResult>& matches,
    v1::TournamentResults& results) {
  absl::StatusOr<v1::TlogCheckpoint> checkpoint = link_->GetCheckpoint();
  if (!checkpoint.ok()) return checkpoint.status();
  if (absl::Status s = CheckExtendsPublished(*checkpoint); !s.ok()) return s;
  if (absl::Status s = PublishProofs(matches, *checkpoint); !s.ok()) return s;
  // The proofs are durable before the checkpoint they prove against.
  if (absl::Status s = SyncFileSystemOf(out_); !s.ok()) return s;
  if (absl::Status s = WriteFileAtomically((out_ / "checkpoint").string(),
                                           checkpoint->note());
      !s.ok()) {
    return s;
  }
  if (absl::Status s = PublishRefereeKey(); !s.ok()) return s;
  if (absl::Status s = WriteFile(out_ / "schedule.json", ScheduleJson(matches));
      !s.ok()) {
    return s;
  }
  RecordTransparencyVerdict(*checkpoint, results);
  return absl::OkStatus();
}

absl::Status Runner::PublishProofs(
    const std::vector<v1::TournamentMatchResult>& matches,
    const v1::TlogCheckpoint& checkpoint) {
  const fs::path proofs = out_ / "proofs";
  const fs::path made = out_ / "proofs.new";
  std::vector<const v1::TournamentMatchResult*> genuine;
  std::set<std::string> proof_files;
  for (const v1::TournamentMatchResult& match : matches) {
    if (!IsGenuine(match)) continue;
    genuine.push_back(&match);
    proof_files.insert(ProofFileOf(match));
  }
  const bool keep_published =
      KeepsPublishedProofs(out_, checkpoint.note(), proof_files);
  if (absl::Status s = MakeEmptyDirectory(made); !s.ok()) return s;
  if (absl::Status s = WriteProofs(genuine, checkpoint.tree_size(),
                                   keep_published, proofs, made);
      !s.ok()) {
    return s;
  }
  return PutProofsInPlace(proofs, made, keep_published);
}

absl::Status Runner::WriteProofs(
    const std::vector<const v1::TournamentMatchResult*>& genuine,
    uint64_t tree_size, bool keep_published, const fs::path& proofs,
    const fs::path& made) {
  // A proof is a call to the referee and a file: two per core at once
  // keep both busy (a 10,000-match tournament spent a fifth of its time
  // here, one at a time). The first failure, in match order, is the
  // answer.
  std::vector<absl::Status> written(genuine.size());
  RunInOrder(
      genuine.size(), 2 * PoolSize(genuine.size()),
      [&](size_t i) {
        const v1::TournamentMatchResult& match = *genuine[i];
        absl::StatusOr<v1::InclusionProof> proof =
            link_->GetInclusionProof(match.match_id(), tree_size);
        if (!proof.ok()) {
          written[i] = proof.status();
          return JobOutput();
        }
        const std::string name = ProofFileOf(match);
        written[i] = keep_published
                         ? ReplaceIfDifferent(proofs / name, made / name,
                                              proof->tlog_proof())
                         : WriteFile(made / name, proof->tlog_proof());
        return JobOutput();
      },
      [](size_t, const JobOutput&) {});
  for (const absl::Status& s : written) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Runner::PublishRefereeKey() const {
  // The embedded referee's referee.key.pub is there already.
  if (t_.referee().empty()) return absl::OkStatus();
  return WriteFileAtomically((out_ / "referee.pub").string(),
                             ToHex(link_->public_key()) + "\n");
}

std::string Runner::ScheduleJson(
    const std::vector<v1::TournamentMatchResult>& matches) const {
  v1::TournamentSchedule schedule;
  schedule.set_name(t_.name());
  schedule.set_game(t_.game().game());
  schedule.set_run_id(run_id_);
  std::set<uint32_t> done;
  for (const v1::TournamentMatchResult& match : matches) {
    done.insert(match.index());
  }
  for (const auto& [index, scheduled] : scheduled_matches_) {
    v1::ScheduleEntry* entry = schedule.add_matches();
    entry->set_index(index);
    entry->set_label(Label(index));
    for (int bot : scheduled.bots) entry->add_seats(names_[bot]);
    entry->set_skipped(sprt_decided_.load() && !done.contains(index));
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions json_options;
  json_options.add_whitespace = true;
  json_options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(schedule, &json,
                                                    json_options);
  return json;
}

void Runner::RecordTransparencyVerdict(const v1::TlogCheckpoint& checkpoint,
                                       v1::TournamentResults& results) const {
  // The logs this run verified and that are unchanged since are not read
  // again. results.json is not written yet (it is made from these logs,
  // with this verdict in it): not checked.
  const TournamentVerdict verdict = CheckTournamentDirectory(
      out_.string(), CheckpointKey{"", link_->public_key()}, nullptr,
      [this](const std::string& path, const std::string& key) {
        return verified_logs_.Find(path, key);
      },
      ResultsFile::kIgnore);
  results.set_checkpoint(checkpoint.note());
  std::string text = verdict.summary;
  for (const std::string& problem : verdict.problems) {
    absl::StrAppend(&text, "\n", problem);
  }
  results.set_transparency_verdict(text);
  results.set_transparency_problems(verdict.problem_count);
}

}  // namespace runner_internal

std::vector<std::string> BotsThatNeverPlayed(
    const referee::v1::TournamentResults& results,
    const std::string& output_dir) {
  // Each bot with a genuine match: whether it played in one.
  std::map<std::string, bool> played;
  for (const referee::v1::TournamentMatchResult& match : results.matches()) {
    if (!IsGenuine(match)) continue;
    for (const std::string& bot : match.seats()) played.emplace(bot, false);
  }
  for (const referee::v1::TournamentMatchResult& match : results.matches()) {
    if (!IsGenuine(match)) continue;
    // Read only while one of its bots has not been seen playing: a bot
    // that plays costs one log.
    if (std::all_of(match.seats().begin(), match.seats().end(),
                    [&](const std::string& bot) { return played[bot]; })) {
      continue;
    }
    absl::StatusOr<std::string> bytes = ReadFileToString(
        (std::filesystem::path(output_dir) / match.log_file()).string());
    if (!bytes.ok()) {
      for (const std::string& bot : match.seats()) played[bot] = true;
      continue;
    }
    // A seat played when it committed a move, or committed the seed
    // contribution and was never asked for a move (its opponent's forfeit
    // ended the match first). The seed contribution alone is not playing:
    // a bot that answers only that and forfeits every move is as broken as
    // one that never connects.
    const size_t seats = match.seats_size();
    std::vector<bool> moved(seats), asked(seats), seeded(seats);
    LogSplitter splitter(*bytes);
    for (RawRecord raw; splitter.Next(raw);) {
      referee::v1::LogRecord record;
      if (!record.ParseFromArray(raw.bytes.data(),
                                 static_cast<int>(raw.bytes.size()))) {
        continue;
      }
      if (record.has_decision_opened() &&
          record.decision_opened().decision_id() != 0) {
        for (uint32_t seat : record.decision_opened().seats()) {
          if (seat < seats) asked[seat] = true;
        }
      } else if (record.has_commit() && record.commit().seat() < seats) {
        (record.commit().decision_id() == 0 ? seeded
                                            : moved)[record.commit().seat()] =
            true;
      }
    }
    for (size_t seat = 0; seat < seats; ++seat) {
      if (moved[seat] || (seeded[seat] && !asked[seat])) {
        played[match.seats(seat)] = true;
      }
    }
  }
  std::vector<std::string> never;
  for (const referee::v1::TournamentStanding& s : results.standings()) {
    const auto it = played.find(s.bot());
    if (it != played.end() && !it->second) never.push_back(s.bot());
  }
  return never;
}

}  // namespace pyramid

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/sha256.h"
#include "tools/tournament/runner_impl.h"
#include "tools/tournament/sprt.h"

namespace pyramid {
namespace runner_internal {

std::optional<VerifiedLogs::Identity> VerifiedLogs::IdentityOf(
    const fs::path& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return Identity{
      .device = static_cast<uint64_t>(st.st_dev),
      .inode = static_cast<uint64_t>(st.st_ino),
      .size = static_cast<uint64_t>(st.st_size),
      .modified_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
      .changed_ns = st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
}

absl::StatusOr<std::shared_ptr<const VerifiedLogs::Entry>> VerifiedLogs::Get(
    const fs::path& path, const std::string& key) {
  const std::optional<Identity> before = IdentityOf(path);
  if (before.has_value()) {
    if (std::shared_ptr<const Entry> kept = KeptAs(path, key, *before)) {
      return kept;
    }
  }
  absl::StatusOr<std::string> bytes = ReadFileToString(path.string());
  if (!bytes.ok()) return bytes.status();
  if (on_read_) on_read_(path.string());
  VerifyOptions options;
  options.pinned_key = key;
  auto entry = std::make_shared<Entry>();
  entry->verdict = VerifyLog(*bytes, options);
  entry->sha256 = Sha256(*bytes);
  // Kept only when the file did not change while it was read.
  const std::optional<Identity> after = IdentityOf(path);
  absl::MutexLock lock(&mu_);
  if (before.has_value() && after == before) {
    kept_[path.string()] = Kept{*before, key, entry};
  } else {
    kept_.erase(path.string());
  }
  return entry;
}

std::shared_ptr<const VerifiedLogs::Entry> VerifiedLogs::Find(
    const fs::path& path, const std::string& key) {
  const std::optional<Identity> now = IdentityOf(path);
  return now.has_value() ? KeptAs(path, key, *now) : nullptr;
}

std::shared_ptr<const VerifiedLogs::Entry> VerifiedLogs::KeptAs(
    const fs::path& path, const std::string& key, const Identity& identity) {
  absl::MutexLock lock(&mu_);
  const auto it = kept_.find(path.string());
  if (it == kept_.end() || it->second.identity != identity ||
      it->second.key != key) {
    return nullptr;
  }
  return it->second.entry;
}

VerifyOptions Runner::PinnedOptions() const {
  VerifyOptions options;
  options.pinned_key = link_->public_key();
  return options;
}

absl::StatusOr<Verdict> Runner::VerifyFile(const fs::path& path) const {
  return VerifyFileWith(path, link_->public_key());
}

absl::StatusOr<Verdict> Runner::VerifyFileWith(const fs::path& path,
                                               const std::string& key) const {
  absl::StatusOr<std::shared_ptr<const VerifiedLogs::Entry>> entry =
      verified_logs_.Get(path, key);
  if (!entry.ok()) return entry.status();
  const Verdict& verdict = (*entry)->verdict;
  if (verdict.kind != Verdict::Kind::kGenuine) {
    return absl::DataLossError(WhyNot(verdict));
  }
  return verdict;
}

std::optional<RefereeLink::SealedLog> Runner::SealedLogOf(
    const std::string& path, const std::string& key) const {
  absl::StatusOr<std::shared_ptr<const VerifiedLogs::Entry>> entry =
      verified_logs_.Get(path, key);
  if (!entry.ok() || (*entry)->verdict.kind != Verdict::Kind::kGenuine) {
    return std::nullopt;
  }
  return RefereeLink::SealedLog{
      .match_id = ToHex((*entry)->verdict.header.match_id()),
      .sha256 = (*entry)->sha256};
}

void Runner::LogVerified(const fs::path& path) const {
  if (options_.log_verified) options_.log_verified(path.string());
}

std::string Runner::WhyNot(const Verdict& verdict) {
  return absl::StrCat(VerdictKindName(verdict.kind), " at record ",
                      verdict.bad_record, ": ", verdict.reason);
}

std::string Runner::Judge(const Verdict& verdict,
                          v1::TournamentMatchResult& result) {
  if (verdict.kind != Verdict::Kind::kGenuine) return WhyNot(verdict);
  *result.mutable_outcome() = verdict.outcome;
  result.set_moves(verdict.moves);
  return kGenuineVerdict;
}

ExpectedMatch Runner::Expected(const v1::TournamentMatchResult& result) const {
  ExpectedMatch expected{.game = t_.game(),
                         .forfeit_policy = t_.forfeit_policy(),
                         .label = Label(result.index()),
                         .seats = {},
                         .match_id = result.match_id()};
  for (const std::string& name : result.seats()) {
    const auto bot = std::find(names_.begin(), names_.end(), name);
    expected.seats.push_back(ExpectedSeat{
        .name = name,
        .public_key =
            bot == names_.end() ? "" : bot_public_keys_[bot - names_.begin()]});
  }
  return expected;
}

std::string Runner::Verify(v1::TournamentMatchResult& result) const {
  absl::StatusOr<Verdict> verdict = VerifyFile(out_ / result.log_file());
  if (!verdict.ok()) return std::string(verdict.status().message());
  return Judge(*verdict, result);
}

void Runner::Record(v1::TournamentMatchResult result) {
  // Said as it is recorded: a run that ends before its summary (a halt,
  // results.json not written) still says why each match does not count.
  const std::string uncounted =
      IsGenuine(result)
          ? ""
          : absl::StrCat("match ", result.index(), " (", result.match_id(),
                         ") not counted: ", result.verdict());
  {
    absl::MutexLock lock(&results_mu_);
    if (absl::Status s = journal_->Append(result); !s.ok()) {
      // Every later append fails the same way (MatchJournal::Append): said
      // once, with the halt. The match's sealed log is adopted on resume.
      ++unjournaled_;
      Halt(s);
    }
    if (EndedKind(result)) ++ended_;
    Count(result);
    results_[result.index()] = std::move(result);
  }
  if (!uncounted.empty()) Note(uncounted);
}

Runner::Uncounted Runner::UncountedKind(
    const v1::TournamentMatchResult& result) {
  const std::string& verdict = result.verdict();
  if (IsGenuine(result)) return Uncounted::kNone;
  // Play's verdicts on a match the referee did not create.
  if (absl::StartsWith(verdict, "not played")) return Uncounted::kNotPlayed;
  // Finish's: AwaitEnd's error, which is DATA_LOSS "the match broke: ..."
  // for a match the referee broke (it ended).
  if (absl::StartsWith(verdict, "not finished: the match broke")) {
    return Uncounted::kBroke;
  }
  if (absl::StartsWith(verdict, "not finished")) return Uncounted::kNotFinished;
  if (absl::StartsWith(verdict, "log not fetched")) {
    return Uncounted::kNotFetched;
  }
  return Uncounted::kNotVerified;
}

bool Runner::EndedKind(const v1::TournamentMatchResult& result) {
  const Uncounted kind = UncountedKind(result);
  return kind != Uncounted::kNotPlayed && kind != Uncounted::kNotFinished;
}

std::string Runner::MatchCounts() {
  absl::MutexLock lock(&results_mu_);
  const size_t verified = results_.size() - unverified_ - unplayed_;
  std::string text =
      absl::StrCat(verified, " of ", scheduled_, " matches verified");
  const auto count = [&text](size_t n, const char* what) {
    if (n > 0) absl::StrAppend(&text, ", ", n, what);
  };
  count(uncounted_[Uncounted::kNotFinished],
        " not finished (not watched to their end: the referee could not be "
        "reached, or went silent)");
  count(uncounted_[Uncounted::kBroke], " that broke");
  count(uncounted_[Uncounted::kNotFetched],
        " whose log was not fetched or not written");
  count(uncounted_[Uncounted::kNotVerified],
        " whose log did not verify (or is not the match asked for)");
  count(scheduled_ - results_.size() + unplayed_, " not played");
  count(unjournaled_, " not journaled");
  return text;
}

std::string Runner::MatchesSoFar(bool resumes) {
  std::string text =
      absl::StrCat(MatchCounts(), "; the results are not all written");
  if (resumes) {
    absl::StrAppend(&text, ": run the same command again to resume from ",
                    out_.string(), " (it keeps every verified match)");
  }
  return text;
}

void Runner::Count(const v1::TournamentMatchResult& result) {
  if (result.outcome().termination() == v1::TERMINATION_FORFEIT) ++forfeits_;
  if (const Uncounted kind = UncountedKind(result); kind != Uncounted::kNone) {
    ++uncounted_[kind];
    // Never created on the referee: nothing was there to verify.
    ++(kind == Uncounted::kNotPlayed ? unplayed_ : unverified_);
    if (!EndedKind(result)) ++unended_;
  }
  if (!t_.has_sprt() || !IsGenuine(result)) return;
  const int first = result.seats(0) == names_[0] ? 0 : 1;
  const uint32_t mine = result.outcome().seats(first).rank();
  const uint32_t theirs = result.outcome().seats(1 - first).rank();
  (mine < theirs ? sprt_wins_ : mine == theirs ? sprt_draws_ : sprt_losses_)++;
  if (sprt_decided_.load()) return;
  const std::string decision =
      EvaluateSprt(t_.sprt(), sprt_wins_, sprt_draws_, sprt_losses_).decision();
  if (decision != "inconclusive") {
    sprt_decision_ = decision;
    sprt_decided_ = true;
  }
}

}  // namespace runner_internal
}  // namespace pyramid

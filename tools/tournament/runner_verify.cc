#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "tools/tournament/runner_impl.h"
#include "tools/tournament/sprt.h"

namespace pyramid {
namespace runner_internal {

VerifyOptions Runner::PinnedOptions() const {
  VerifyOptions options;
  options.pinned_key = link_->public_key();
  return options;
}

absl::StatusOr<Verdict> Runner::VerifyFile(const fs::path& path) const {
  return VerifyFileWith(path, link_->public_key());
}

absl::StatusOr<Verdict> Runner::VerifyFileWith(const fs::path& path,
                                               const std::string& key) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path.string());
  if (!bytes.ok()) return bytes.status();
  VerifyOptions options;
  options.pinned_key = key;
  Verdict verdict = VerifyLog(*bytes, options);
  if (verdict.kind != Verdict::Kind::kGenuine) {
    return absl::DataLossError(WhyNot(verdict));
  }
  return verdict;
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
  return kGenuine;
}

ExpectedMatch Runner::Expected(const v1::TournamentMatchResult& result) const {
  ExpectedMatch expected{.game = t_.game(),
                         .forfeit_policy = t_.forfeit_policy(),
                         .label = Label(result.index()),
                         .seats = {}};
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
  absl::MutexLock lock(&results_mu_);
  if (absl::Status s = journal_->Append(result); !s.ok()) {
    Note(std::string(s.message()));
  }
  ++played_;
  Count(result);
  results_[result.index()] = std::move(result);
}

void Runner::Count(const v1::TournamentMatchResult& result) {
  if (result.outcome().termination() == v1::TERMINATION_FORFEIT) ++forfeits_;
  if (!t_.has_sprt() || result.verdict() != kGenuine) return;
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

#include "referee/core/match.h"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/clock_settings.h"
#include "referee/core/log_format.h"
#include "referee/crypto/protocol.h"
#include "referee/games/registry.h"

namespace pyramid {
EntropySource SystemEntropy() {
  return [](char* out, size_t size) {
    if (sodium_init() < 0) std::abort();
    randombytes_buf(out, size);
  };
}

Match::Match(MatchConfig config, std::unique_ptr<Game> game, const Clock* clock)
    : config_(std::move(config)), game_(std::move(game)), clock_(clock) {}

absl::StatusOr<std::unique_ptr<Match>> Match::Create(
    MatchConfig config, SigningKey referee_key, std::unique_ptr<LogSink> sink,
    const Clock* clock, EntropySource entropy) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(config.game);
  if (!game.ok()) return game.status();
  const int seats = static_cast<int>(config.seats.size());
  if (seats < (*game)->min_seats() || seats > (*game)->max_seats()) {
    return absl::InvalidArgumentError(
        absl::StrCat(config.game.game(), " takes ", (*game)->min_seats(),
                     " to ", (*game)->max_seats(), " seats, not ", seats));
  }
  for (const v1::Seat& seat : config.seats) {
    if (!seat.public_key().empty() &&
        seat.public_key().size() != kPublicKeySize) {
      return absl::InvalidArgumentError("a seat public key is 32 bytes");
    }
  }
  if (absl::Status clocks = ValidateClockSettings(config.clocks);
      !clocks.ok()) {
    return clocks;
  }
  if (config.forfeit_policy == v1::FORFEIT_POLICY_UNSPECIFIED) {
    config.forfeit_policy = v1::FORFEIT_POLICY_FORFEIT;
  }
  auto match = std::unique_ptr<Match>(
      new Match(std::move(config), *std::move(game), clock));
  match->Tick();
  match->bank_ms_.assign(seats, match->config_.clocks.commit_timeout_ms() == 0
                                    ? 0
                                    : match->config_.clocks.time_bank_ms());
  match->match_id_.resize(kMatchIdSize);
  entropy(match->match_id_.data(), kMatchIdSize);
  match->referee_contribution_.resize(kSeedContributionSize);
  entropy(match->referee_contribution_.data(), kSeedContributionSize);
  const std::string public_key = referee_key.public_key();
  match->log_ = std::make_unique<LogWriter>(
      std::move(sink), std::move(referee_key), match->match_id_,
      match->config_.checkpoint_interval, match->config_.fsync);

  v1::LogRecord record;
  v1::Header* header = record.mutable_header();
  header->set_format_version(log_format::kFormatVersion);
  header->set_rules_version(match->game_->rules_version());
  header->set_match_id(match->match_id_);
  *header->mutable_game() = match->config_.game;
  for (const v1::Seat& seat : match->config_.seats) {
    *header->add_seats() = seat;
  }
  header->set_referee_public_key(public_key);
  header->set_referee_commitment(std::string(AsView(
      RefereeCommitment(match->match_id_, match->referee_contribution_))));
  *header->mutable_clocks() = match->config_.clocks;
  header->set_forfeit_policy(match->config_.forfeit_policy);
  header->set_created_unix_ms(match->NowMs());
  header->set_checkpoint_interval(match->config_.checkpoint_interval);
  header->set_label(match->config_.label);
  if (absl::Status s = match->Log(std::move(record)); !s.ok()) return s;
  // A signed checkpoint right after the header: a log cut short at any later
  // instant still verifies as an unsealed prefix (docs/log-format.md).
  if (absl::Status s = match->log_->Checkpoint(); !s.ok()) return s;

  std::vector<int> all_seats(seats);
  for (int i = 0; i < seats; ++i) all_seats[i] = i;
  match->decision_.id = 0;
  if (absl::Status s = match->OpenDecision(all_seats, /*simultaneous=*/true);
      !s.ok()) {
    return s;
  }
  return match;
}

void Match::Tick() {
  now_ = absl::FromUnixMillis(absl::ToUnixMillis(clock_->Now()));
}

int64_t Match::NowMs() const { return absl::ToUnixMillis(now_); }

absl::Time Match::PhaseDeadline(uint32_t timeout_ms) const {
  if (timeout_ms == 0) return absl::InfiniteFuture();
  return now_ + absl::Milliseconds(timeout_ms);
}

absl::Status Match::Log(v1::LogRecord record) {
  if (!broken_.ok()) return broken_;
  absl::Status status = log_->Append(record);
  if (!status.ok()) {
    broken_ = status;
    return status;
  }
  if (listener_) listener_(record);
  return absl::OkStatus();
}

absl::Status Match::Checkpoint() {
  if (!broken_.ok()) return broken_;
  if (finished_) return absl::OkStatus();
  absl::Status status = log_->Checkpoint();
  if (status.ok()) status = log_->Sync();
  if (!status.ok()) broken_ = status;
  return status;
}

std::optional<DecisionView> Match::decision() const {
  if (finished_) return std::nullopt;
  return decision_;
}

absl::Time Match::NextDeadline() const {
  absl::Time next = absl::InfiniteFuture();
  if (finished_ || !broken_.ok()) return next;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    const SeatProgress& p = progress_[i];
    const bool owes = decision_.reveal_phase
                          ? !p.faulted && !p.action.has_value()
                          : !p.faulted && p.commitment.empty();
    if (owes) next = std::min(next, decision_.deadlines[i]);
  }
  return next;
}

// Takes the part of the commit time beyond the commit timeout from the
// seat's bank.
void Match::ChargeTimeBank(int seat) {
  if (config_.clocks.commit_timeout_ms() == 0) return;
  const int64_t used_ms = absl::ToInt64Milliseconds(now_ - opened_);
  const int64_t overrun =
      used_ms - static_cast<int64_t>(config_.clocks.commit_timeout_ms());
  if (overrun > 0)
    bank_ms_[seat] = std::max<int64_t>(0, bank_ms_[seat] - overrun);
  bank_ms_[seat] += config_.clocks.time_bank_increment_ms();
}

absl::Status Match::OpenDecision(std::vector<int> seats, bool simultaneous) {
  decision_.seats = std::move(seats);
  decision_.simultaneous = simultaneous;
  decision_.reveal_phase = false;
  opened_ = now_;
  const absl::Time base = PhaseDeadline(config_.clocks.commit_timeout_ms());
  decision_.deadlines.clear();
  for (int seat : decision_.seats) {
    decision_.deadlines.push_back(base + absl::Milliseconds(bank_ms_[seat]));
  }
  progress_.assign(decision_.seats.size(), SeatProgress{});
  v1::LogRecord record;
  v1::DecisionOpened* opened = record.mutable_decision_opened();
  opened->set_decision_id(decision_.id);
  for (int seat : decision_.seats) opened->add_seats(seat);
  opened->set_simultaneous(simultaneous);
  opened->set_opened_unix_ms(NowMs());
  opened->set_commit_deadline_unix_ms(
      base == absl::InfiniteFuture() ? 0 : absl::ToUnixMillis(base));
  return Log(std::move(record));
}

absl::Status Match::CheckOpen(int seat, uint64_t decision_id) const {
  if (!broken_.ok()) return broken_;
  if (finished_) return absl::FailedPreconditionError("the match is over");
  if (decision_id != decision_.id) {
    return absl::FailedPreconditionError(absl::StrCat("decision ", decision_id,
                                                      " is not open (decision ",
                                                      decision_.id, " is)"));
  }
  if (std::find(decision_.seats.begin(), decision_.seats.end(), seat) ==
      decision_.seats.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("seat ", seat, " does not act in decision ", decision_id));
  }
  return absl::OkStatus();
}

bool Match::AwaitsCommit(int seat) const {
  if (finished_ || decision_.reveal_phase) return false;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    if (decision_.seats[i] == seat) {
      return progress_[i].commitment.empty() && !progress_[i].faulted;
    }
  }
  return false;
}

bool Match::HasCommitted(int seat) const {
  if (finished_) return false;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    if (decision_.seats[i] == seat) return !progress_[i].commitment.empty();
  }
  return false;
}

bool Match::AwaitsReveal(int seat) const {
  if (finished_ || !decision_.reveal_phase) return false;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    if (decision_.seats[i] == seat) {
      return !progress_[i].revealed && !progress_[i].faulted;
    }
  }
  return false;
}

absl::Status Match::Commit(int seat, uint64_t decision_id,
                           std::string_view commitment,
                           std::string_view signature) {
  Tick();
  if (absl::Status s = CheckDeadlinesNow(); !s.ok()) return s;
  if (absl::Status s = CheckOpen(seat, decision_id); !s.ok()) return s;
  if (decision_.reveal_phase) {
    return absl::FailedPreconditionError("the commit phase is over");
  }
  const size_t index =
      std::find(decision_.seats.begin(), decision_.seats.end(), seat) -
      decision_.seats.begin();
  SeatProgress& progress = progress_[index];
  if (progress.faulted) {
    return absl::FailedPreconditionError("the seat missed its commit deadline");
  }
  if (!progress.commitment.empty()) {
    return absl::AlreadyExistsError("the seat has already committed");
  }
  if (commitment.size() != Digest().size()) {
    return absl::InvalidArgumentError("a commitment is 32 bytes");
  }
  const std::string& key = config_.seats[seat].public_key();
  if (key.empty() && !signature.empty()) {
    return absl::InvalidArgumentError(
        "the seat has no key: commits must not be signed");
  }
  if (!key.empty() &&
      !VerifySignature(
          key, CommitSignatureMessage(match_id_, seat, decision_id, commitment),
          signature)) {
    return absl::InvalidArgumentError("the commit signature does not verify");
  }
  progress.commitment = std::string(commitment);
  ChargeTimeBank(seat);
  v1::LogRecord record;
  v1::Commit* commit = record.mutable_commit();
  commit->set_decision_id(decision_id);
  commit->set_seat(seat);
  commit->set_commitment(progress.commitment);
  commit->set_signature(std::string(signature));
  commit->set_received_unix_ms(NowMs());
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  return AfterProgress();
}

absl::Status Match::Reveal(int seat, uint64_t decision_id,
                           std::string_view salt,
                           std::string_view action_bytes) {
  Tick();
  if (absl::Status s = CheckDeadlinesNow(); !s.ok()) return s;
  if (absl::Status s = CheckOpen(seat, decision_id); !s.ok()) return s;
  if (!decision_.reveal_phase) {
    return absl::FailedPreconditionError(
        "reveal before every commitment is in");
  }
  const size_t index =
      std::find(decision_.seats.begin(), decision_.seats.end(), seat) -
      decision_.seats.begin();
  SeatProgress& progress = progress_[index];
  if (progress.faulted) {
    return absl::FailedPreconditionError(
        "the seat has been faulted in this decision");
  }
  if (progress.revealed) {
    return absl::AlreadyExistsError("the seat has already revealed");
  }
  if (salt.size() != kSaltSize) {
    return absl::InvalidArgumentError("a salt is 32 bytes");
  }
  if (action_bytes.size() > game_->max_action_bytes()) {
    // Refused unread and unlogged: no legal action is this long, and the
    // log stays bounded. The seat still owes its reveal.
    return absl::InvalidArgumentError(
        absl::StrCat("the action is ", action_bytes.size(), " bytes; ",
                     std::string(game_->id()), " actions are at most ",
                     game_->max_action_bytes(), " bytes"));
  }
  progress.revealed = true;
  v1::LogRecord record;
  v1::Reveal* reveal = record.mutable_reveal();
  reveal->set_decision_id(decision_id);
  reveal->set_seat(seat);
  reveal->set_salt(std::string(salt));
  reveal->set_action(std::string(action_bytes));
  reveal->set_received_unix_ms(NowMs());
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;

  const Digest expected =
      CommitmentHash(match_id_, seat, decision_id, salt, action_bytes);
  absl::Status usable;
  v1::FaultReason reason = v1::FAULT_REVEAL_MISMATCH;
  v1::Action action;
  if (AsView(expected) != progress.commitment) {
    usable =
        absl::InvalidArgumentError("the reveal does not match the commitment");
  } else {
    reason = v1::FAULT_ILLEGAL_ACTION;
    absl::StatusOr<v1::Action> parsed = ParseSeatAction(action_bytes);
    if (parsed.ok()) {
      action = *std::move(parsed);
      usable = ValidateSeatAction(seat, action);
    } else {
      usable = parsed.status();
    }
  }
  if (!usable.ok()) {
    if (absl::Status s = Fault(seat, reason, std::string(usable.message()));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = AfterProgress(); !s.ok()) return s;
    return usable;
  }
  if (decision_.id == 0) {
    progress.seed_contribution = action.seed().contribution();
  }
  progress.action = std::move(action);
  return AfterProgress();
}

absl::Status Match::ValidateSeatAction(int seat,
                                       const v1::Action& action) const {
  if (decision_.id == 0) {
    if (action.kind_case() != v1::Action::kSeed ||
        action.seed().contribution().size() != kSeedContributionSize) {
      return absl::InvalidArgumentError(
          "the seed decision takes a 32-byte seed contribution");
    }
    return absl::OkStatus();
  }
  return session_->state().ValidateAction(seat, action);
}

absl::Status Match::Fault(int seat, v1::FaultReason reason,
                          std::string detail) {
  const size_t index =
      std::find(decision_.seats.begin(), decision_.seats.end(), seat) -
      decision_.seats.begin();
  progress_[index].faulted = true;
  progress_[index].action.reset();
  v1::LogRecord record;
  v1::Fault* fault = record.mutable_fault();
  fault->set_decision_id(decision_.id);
  fault->set_seat(seat);
  fault->set_reason(reason);
  fault->set_consequence(config_.forfeit_policy ==
                                 v1::FORFEIT_POLICY_DEFAULT_ACTION
                             ? v1::FAULT_DEFAULT_ACTION
                             : v1::FAULT_FORFEIT);
  fault->set_detail(std::move(detail));
  fault->set_at_unix_ms(NowMs());
  return Log(std::move(record));
}

bool Match::AllCommittedOrFaulted() const {
  return std::all_of(
      progress_.begin(), progress_.end(),
      [](const SeatProgress& p) { return !p.commitment.empty() || p.faulted; });
}

bool Match::AllResolved() const {
  return std::all_of(
      progress_.begin(), progress_.end(),
      [](const SeatProgress& p) { return p.faulted || p.action.has_value(); });
}

bool Match::AnyFaulted() const {
  return std::any_of(progress_.begin(), progress_.end(),
                     [](const SeatProgress& p) { return p.faulted; });
}

// Moves the open decision on after a commit, reveal or fault.
absl::Status Match::AfterProgress() {
  if (finished_) return absl::OkStatus();
  const bool forfeits =
      config_.forfeit_policy == v1::FORFEIT_POLICY_FORFEIT && AnyFaulted();
  if (!decision_.reveal_phase) {
    if (!AllCommittedOrFaulted()) return absl::OkStatus();
    // The commit phase is over. Under the forfeit policy a seat that missed
    // it has already lost: the reveals would change nothing.
    if (forfeits || AllResolved()) return CloseDecision();
    decision_.reveal_phase = true;
    decision_.deadlines.assign(
        decision_.seats.size(),
        PhaseDeadline(config_.clocks.reveal_timeout_ms()));
    return absl::OkStatus();
  }
  if (!AllResolved()) return absl::OkStatus();
  return CloseDecision();
}

absl::Status Match::CheckDeadlines() {
  Tick();
  return CheckDeadlinesNow();
}

absl::Status Match::CheckDeadlinesNow() {
  if (!broken_.ok()) return broken_;
  const absl::Time now = now_;
  if (finished_ || now < NextDeadline()) return absl::OkStatus();
  const v1::FaultReason reason = decision_.reveal_phase
                                     ? v1::FAULT_REVEAL_TIMEOUT
                                     : v1::FAULT_COMMIT_TIMEOUT;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    const SeatProgress& p = progress_[i];
    const bool owes = decision_.reveal_phase
                          ? !p.faulted && !p.action.has_value()
                          : !p.faulted && p.commitment.empty();
    if (!owes || now < decision_.deadlines[i]) continue;
    if (absl::Status s = Fault(
            decision_.seats[i], reason,
            decision_.reveal_phase ? "no reveal in time" : "no commit in time");
        !s.ok()) {
      return s;
    }
  }
  return AfterProgress();
}

absl::Status Match::CloseDecision() {
  if (config_.forfeit_policy == v1::FORFEIT_POLICY_FORFEIT && AnyFaulted()) {
    std::vector<int> forfeited;
    for (size_t i = 0; i < decision_.seats.size(); ++i) {
      if (progress_[i].faulted) forfeited.push_back(decision_.seats[i]);
    }
    return Finish(ForfeitOutcome(session_ ? &session_->state() : nullptr,
                                 num_seats(), forfeited));
  }
  if (decision_.id == 0) return CloseSeedDecision();
  std::vector<v1::Move> moves;
  for (size_t i = 0; i < decision_.seats.size(); ++i) {
    v1::Move& move = moves.emplace_back();
    move.set_seat(decision_.seats[i]);
    if (progress_[i].faulted) {
      move.set_source(v1::MOVE_DEFAULT);
    } else {
      move.set_source(v1::MOVE_REVEALED);
      *move.mutable_action() = *progress_[i].action;
    }
  }
  absl::StatusOr<v1::Applied> applied =
      session_->ApplyDecision(decision_.id, std::move(moves));
  if (!applied.ok()) {
    // Every action was validated on reveal; this is a rules bug.
    broken_ = absl::InternalError(absl::StrCat("validated actions refused: ",
                                               applied.status().message()));
    return broken_;
  }
  v1::LogRecord record;
  *record.mutable_applied() = *std::move(applied);
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  return Advance();
}

absl::Status Match::CloseSeedDecision() {
  std::vector<std::string> contributions;
  for (const SeatProgress& p : progress_) {
    contributions.push_back(p.faulted ? std::string(kSeedContributionSize, '\0')
                                      : p.seed_contribution);
  }
  const Digest seed =
      DeriveSeed(match_id_, referee_contribution_, contributions);
  absl::StatusOr<GameSession> session =
      GameSession::Start(*game_, num_seats(), seed);
  if (!session.ok()) {
    broken_ = session.status();
    return broken_;
  }
  session_.emplace(*std::move(session));
  v1::LogRecord record;
  v1::SeedReveal* reveal = record.mutable_seed_reveal();
  reveal->set_referee_contribution(referee_contribution_);
  reveal->set_seed(std::string(AsView(seed)));
  *reveal->mutable_initial_view() = session_->state().PublicView();
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  return Advance();
}

// Takes automatic moves, then ends the game or opens the next decision.
absl::Status Match::Advance() {
  for (v1::Applied& applied : session_->TakeAutomaticMoves()) {
    v1::LogRecord record;
    *record.mutable_applied() = std::move(applied);
    if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  }
  if (session_->IsTerminal()) return Finish(session_->state().Outcome());
  ++decision_.id;
  return OpenDecision(session_->ActingSeats(), session_->IsSimultaneous());
}

absl::Status Match::Finish(v1::Outcome outcome) {
  outcome_ = std::move(outcome);
  finished_ = true;
  v1::LogRecord record;
  *record.mutable_outcome() = outcome_;
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  absl::Status sealed = log_->Seal();
  if (!sealed.ok()) broken_ = sealed;
  log_.reset();  // Closes the file: a sealed log takes no more records.
  return sealed;
}

v1::Observation Match::ObservationFor(int seat) const {
  if (!session_ || seat < 0 || seat >= num_seats()) return {};
  return session_->state().ObservationFor(seat);
}

v1::Observation Match::PublicView() const {
  if (!session_) return {};
  return session_->state().PublicView();
}

v1::Action Match::DefaultActionFor(int seat) const {
  if (!session_ || finished_) return {};
  return session_->state().DefaultAction(seat);
}

std::vector<v1::Action> Match::LegalActions(int seat) const {
  if (!session_ || finished_) return {};
  return session_->state().LegalActions(seat);
}

}  // namespace pyramid

namespace pyramid {

bool Match::ListsLegalActions() const {
  return session_.has_value() && !finished_ &&
         session_->state().ListsLegalActions();
}

}  // namespace pyramid

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

EntropySource FixedEntropy(std::string bytes) {
  return [bytes = std::move(bytes), at = size_t{0}](char* out,
                                                    size_t size) mutable {
    for (size_t i = 0; i < size; ++i) {
      out[i] = at < bytes.size() ? bytes[at++] : 0;
    }
  };
}

v1::Header HeaderFor(const MatchConfig& config) {
  v1::Header header;
  header.set_format_version(log_format::kFormatVersion);
  *header.mutable_game() = config.game;
  for (const v1::Seat& seat : config.seats) *header.add_seats() = seat;
  *header.mutable_clocks() = config.clocks;
  header.set_forfeit_policy(config.forfeit_policy);
  header.set_checkpoint_interval(config.checkpoint_interval);
  header.set_label(config.label);
  return header;
}

MatchConfig ConfigFromHeader(const v1::Header& header, FsyncPolicy fsync) {
  MatchConfig config;
  config.game = header.game();
  config.seats.assign(header.seats().begin(), header.seats().end());
  config.clocks = header.clocks();
  config.forfeit_policy = header.forfeit_policy();
  config.checkpoint_interval = header.checkpoint_interval();
  config.fsync = fsync;
  config.label = header.label();
  return config;
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
    return absl::InvalidArgumentError(absl::StrCat(
        config.game.game(), " takes ", SeatCounts((*game)->description()),
        " seats, not ", seats));
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
  *header = HeaderFor(match->config_);
  header->set_rules_version(match->game_->rules_version());
  header->set_match_id(match->match_id_);
  header->set_referee_public_key(public_key);
  header->set_referee_commitment(std::string(AsView(
      RefereeCommitment(match->match_id_, match->referee_contribution_))));
  header->set_created_unix_ms(match->NowMs());
  if (absl::Status s = match->Log(std::move(record)); !s.ok()) return s;
  // The header's own hash, not that of a checkpoint an interval of 1 puts
  // right after it.
  match->header_hash_ = match->log_->appended_hash();
  // A signed checkpoint right after the header: a log cut short at any later
  // instant still verifies as an unsealed prefix (docs/log-format.md).
  if (absl::Status s = match->log_->Checkpoint(); !s.ok()) return s;

  std::vector<int> all_seats(seats);
  for (int i = 0; i < seats; ++i) all_seats[i] = i;
  if (absl::Status s = match->OpenDecision(0, all_seats, /*simultaneous=*/true);
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

uint32_t Match::CommitTimeoutMs() const {
  if (decision_.id() == 0 && config_.clocks.seed_timeout_ms() != 0) {
    return config_.clocks.seed_timeout_ms();
  }
  return config_.clocks.commit_timeout_ms();
}

absl::Status Match::Log(v1::LogRecord record, std::string_view seat_note) {
  if (!broken_.ok()) return broken_;
  absl::Status status = log_->Append(record);
  if (!status.ok()) {
    broken_ = status;
    return status;
  }
  if (listener_) listener_(record, seat_note);
  return absl::OkStatus();
}

void Match::BeginBatch() {
  if (log_ != nullptr) log_->BeginBatch();
}

absl::Status Match::EndBatch() {
  if (log_ == nullptr) return broken_;  // Sealed: the seal wrote the rest.
  absl::Status status = log_->EndBatch();
  if (!status.ok() && broken_.ok()) broken_ = status;
  return broken_;
}

void Match::DeferCheckpointSyncs() {
  if (log_ != nullptr) log_->DeferCheckpointSyncs();
}

std::optional<SyncJob> Match::TakeOwedSync() {
  if (log_ == nullptr) return std::exchange(seal_sync_, std::nullopt);
  return log_->TakeOwedSync();
}

bool Match::OwesSync() const {
  return log_ == nullptr ? seal_sync_.has_value() : log_->sync_owed();
}

void Match::Break(const absl::Status& status) {
  if (broken_.ok() && !status.ok()) broken_ = status;
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
  const std::vector<int>& seats = decision_.seats();
  return DecisionView{.id = decision_.id(),
                      .seats = {seats.begin(), seats.end()},
                      .simultaneous = decision_.simultaneous(),
                      .reveal_phase = decision_.reveal_phase(),
                      .deadlines = {deadlines_.begin(), deadlines_.end()}};
}

absl::Time Match::NextDeadline() const {
  absl::Time next = absl::InfiniteFuture();
  if (finished_ || !broken_.ok()) return next;
  const std::vector<int>& seats = decision_.seats();
  for (size_t i = 0; i < seats.size(); ++i) {
    const bool owes = decision_.reveal_phase() ? decision_.OwesReveal(seats[i])
                                               : decision_.OwesCommit(seats[i]);
    if (owes) next = std::min(next, deadlines_[i]);
  }
  return next;
}

// Takes the part of the commit time beyond the commit timeout from the
// seat's bank.
void Match::ChargeTimeBank(int seat) {
  if (CommitTimeoutMs() == 0) return;
  const int64_t used_ms = absl::ToInt64Milliseconds(now_ - opened_);
  const int64_t overrun = used_ms - static_cast<int64_t>(CommitTimeoutMs());
  if (overrun > 0)
    bank_ms_[seat] = std::max<int64_t>(0, bank_ms_[seat] - overrun);
  bank_ms_[seat] += config_.clocks.time_bank_increment_ms();
}

// Step 1 (decision.h): opens decision `id` with its commit deadlines.
absl::Status Match::OpenDecision(uint64_t id, std::vector<int> seats,
                                 bool simultaneous) {
  decision_.Open(id, std::move(seats), simultaneous);
  opened_ = now_;
  const absl::Time base = PhaseDeadline(CommitTimeoutMs());
  deadlines_.clear();
  for (int seat : decision_.seats()) {
    deadlines_.push_back(base + absl::Milliseconds(bank_ms_[seat]));
  }
  v1::LogRecord record;
  v1::DecisionOpened* opened = record.mutable_decision_opened();
  opened->set_decision_id(id);
  for (int seat : decision_.seats()) opened->add_seats(seat);
  opened->set_simultaneous(simultaneous);
  opened->set_opened_unix_ms(NowMs());
  opened->set_commit_deadline_unix_ms(
      base == absl::InfiniteFuture() ? 0 : absl::ToUnixMillis(base));
  return Log(std::move(record));
}

absl::Status Match::CheckOpen(int seat, uint64_t decision_id) const {
  if (!broken_.ok()) return broken_;
  if (finished_) return absl::FailedPreconditionError("the match is over");
  if (decision_id != decision_.id()) {
    return absl::FailedPreconditionError(absl::StrCat("decision ", decision_id,
                                                      " is not open (decision ",
                                                      decision_.id(), " is)"));
  }
  if (!decision_.IndexOf(seat)) {
    return absl::FailedPreconditionError(
        absl::StrCat("seat ", seat, " does not act in decision ", decision_id));
  }
  return absl::OkStatus();
}

bool Match::AwaitsCommit(int seat) const {
  return !finished_ && decision_.OwesCommit(seat);
}

bool Match::HasCommitted(int seat) const {
  return !finished_ && decision_.HasCommitted(seat);
}

bool Match::AwaitsReveal(int seat) const {
  return !finished_ && decision_.OwesReveal(seat);
}

// Step 2 (decision.h).
absl::Status Match::Commit(int seat, uint64_t decision_id,
                           std::string_view commitment,
                           std::string_view signature) {
  Tick();
  if (absl::Status s = CheckDeadlinesNow(); !s.ok()) return s;
  if (absl::Status s = CheckOpen(seat, decision_id); !s.ok()) return s;
  if (absl::Status s = decision_.CheckCommit(
          seat, match_id_, commitment, signature,
          config_.seats[seat].public_key(), /*check_signature=*/true);
      !s.ok()) {
    return s;
  }
  decision_.RecordCommit(seat, commitment);
  ChargeTimeBank(seat);
  v1::LogRecord record;
  v1::Commit* commit = record.mutable_commit();
  commit->set_decision_id(decision_id);
  commit->set_seat(seat);
  commit->set_commitment(std::string(commitment));
  commit->set_signature(std::string(signature));
  commit->set_received_unix_ms(NowMs());
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  return AfterProgress();
}

// Step 4 (decision.h); a reveal the rules cannot use is step 5 at once.
absl::Status Match::Reveal(int seat, uint64_t decision_id,
                           std::string_view salt,
                           std::string_view action_bytes) {
  Tick();
  if (absl::Status s = CheckDeadlinesNow(); !s.ok()) return s;
  if (absl::Status s = CheckOpen(seat, decision_id); !s.ok()) return s;
  // A reveal too long is refused unread and unlogged; the seat still owes
  // its reveal.
  if (absl::Status s =
          decision_.CheckReveal(seat, salt.size(), action_bytes.size(), *game_);
      !s.ok()) {
    return s;
  }
  decision_.RecordReveal(seat);
  v1::LogRecord record;
  v1::Reveal* reveal = record.mutable_reveal();
  reveal->set_decision_id(decision_id);
  reveal->set_seat(seat);
  reveal->set_salt(std::string(salt));
  reveal->set_action(std::string(action_bytes));
  reveal->set_received_unix_ms(NowMs());
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;

  Decision::Judgement judgement = decision_.JudgeReveal(
      seat, match_id_, AsView(header_hash_), salt, action_bytes,
      session_ ? &session_->state() : nullptr);
  if (!judgement.action) {
    if (absl::Status s =
            Fault(seat, judgement.fault, judgement.why, judgement.hint);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = AfterProgress(); !s.ok()) return s;
    return absl::InvalidArgumentError(
        judgement.hint.empty()
            ? judgement.why
            : absl::StrCat(judgement.why, ": ", judgement.hint));
  }
  decision_.Accept(seat, *std::move(judgement.action));
  return AfterProgress();
}

// Step 5 (decision.h).
absl::Status Match::Fault(int seat, v1::FaultReason reason, std::string detail,
                          std::string_view seat_note) {
  decision_.RecordFault(seat);
  v1::LogRecord record;
  v1::Fault* fault = record.mutable_fault();
  fault->set_decision_id(decision_.id());
  fault->set_seat(seat);
  fault->set_reason(reason);
  fault->set_consequence(ConsequenceOf(config_.forfeit_policy));
  fault->set_detail(std::move(detail));
  fault->set_at_unix_ms(NowMs());
  return Log(std::move(record), seat_note);
}

// Moves the open decision on after a commit, reveal or fault.
absl::Status Match::AfterProgress() {
  if (finished_) return absl::OkStatus();
  switch (decision_.AfterProgress(config_.forfeit_policy)) {
    case Decision::Next::kWait:
      return absl::OkStatus();
    case Decision::Next::kOpenRevealPhase:  // Step 3.
      deadlines_.assign(decision_.seats().size(),
                        PhaseDeadline(config_.clocks.reveal_timeout_ms()));
      return absl::OkStatus();
    case Decision::Next::kClose:
      return CloseDecision();
  }
  return absl::OkStatus();
}

absl::Status Match::CheckDeadlines() {
  Tick();
  return CheckDeadlinesNow();
}

absl::Status Match::CheckDeadlinesNow() {
  if (!broken_.ok()) return broken_;
  const absl::Time now = now_;
  if (finished_ || now < NextDeadline()) return absl::OkStatus();
  const bool reveal_phase = decision_.reveal_phase();
  const std::vector<int> seats = decision_.seats();
  for (size_t i = 0; i < seats.size(); ++i) {
    const bool owes = reveal_phase ? decision_.OwesReveal(seats[i])
                                   : decision_.OwesCommit(seats[i]);
    if (!owes || now < deadlines_[i]) continue;
    // A missed commit deadline has used the commit timeout and the whole
    // bank (the deadline includes it); no increment, which a commit earns.
    if (!reveal_phase) bank_ms_[seats[i]] = 0;
    if (absl::Status s = Fault(
            seats[i],
            reveal_phase ? v1::FAULT_REVEAL_TIMEOUT : v1::FAULT_COMMIT_TIMEOUT,
            reveal_phase ? "no reveal in time" : "no commit in time");
        !s.ok()) {
      return s;
    }
  }
  return AfterProgress();
}

// Step 6 (decision.h).
absl::Status Match::CloseDecision() {
  if (decision_.Forfeits(config_.forfeit_policy)) {
    return Finish(ForfeitOutcome(session_ ? &session_->state() : nullptr,
                                 num_seats(), decision_.Forfeited()));
  }
  if (decision_.id() == 0) return CloseSeedDecision();
  v1::LogRecord record;
  if (absl::Status s = session_->ApplyDecision(
          decision_.id(), decision_.TakeMoves(), *record.mutable_applied());
      !s.ok()) {
    // Every action was validated on reveal; this is a rules bug.
    broken_ = absl::InternalError(
        absl::StrCat("validated actions refused: ", s.message()));
    return broken_;
  }
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  return Advance();
}

absl::Status Match::CloseSeedDecision() {
  const Digest seed = DeriveSeed(match_id_, referee_contribution_,
                                 decision_.SeedContributions());
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
  while (true) {
    v1::LogRecord record;
    if (!session_->TakeAutomaticMove(*record.mutable_applied())) break;
    if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  }
  if (session_->IsTerminal()) return Finish(session_->state().Outcome());
  return OpenDecision(decision_.id() + 1, session_->ActingSeats(),
                      session_->IsSimultaneous());
}

absl::Status Match::Finish(v1::Outcome outcome) {
  outcome_ = std::move(outcome);
  finished_ = true;
  v1::LogRecord record;
  *record.mutable_outcome() = outcome_;
  if (absl::Status s = Log(std::move(record)); !s.ok()) return s;
  absl::Status sealed = log_->Seal();
  if (!sealed.ok()) broken_ = sealed;
  // The seal's sync, when owed, outlives the writer (it holds the file's
  // descriptor open until it has run).
  if (sealed.ok()) seal_sync_ = log_->TakeOwedSync();
  log_.reset();  // Closes the file: a sealed log takes no more records.
  return sealed;
}

v1::Observation Match::ObservationFor(int seat) const {
  v1::Observation observation;
  ObservationInto(seat, observation);
  return observation;
}

void Match::ObservationInto(int seat, v1::Observation& observation) const {
  if (!session_ || seat < 0 || seat >= num_seats()) return;
  session_->state().ObservationInto(seat, observation);
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

void Match::LegalActionsInto(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const {
  if (session_ && !finished_) session_->state().LegalActionsInto(seat, out);
}

bool Match::ListsLegalActions() const {
  return session_.has_value() && !finished_ &&
         session_->state().ListsLegalActions();
}

}  // namespace pyramid

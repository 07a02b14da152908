#include "replay/verifier.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "referee/core/game_session.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

std::string Canonical(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

bool SameMessage(const google::protobuf::Message& a,
                 const google::protobuf::Message& b) {
  return Canonical(a) == Canonical(b);
}

absl::Status Bad(absl::string_view reason) {
  return absl::DataLossError(reason);
}

// A record the protocol requires next, recomputed by the verifier.
struct Expected {
  enum class Kind { kSeedReveal, kApplied, kDecision, kOutcome };
  Kind kind;
  v1::LogRecord record;  // Holds the expected message (decision: id, seats).
};

// Replays the protocol over the records of one log, mirroring the referee's
// match core (referee/core/match.cc) without sharing its code.
class Replayer {
 public:
  explicit Replayer(const VerifyOptions& options) : options_(options) {}

  // Judges record `index`; `bytes` are its stored bytes.
  absl::Status Next(uint64_t index, std::string_view bytes);

  bool sealed() const { return sealed_; }
  uint64_t signed_records() const { return signed_records_; }
  uint64_t moves() const { return moves_; }
  const v1::Header& header() const { return header_; }
  const v1::Outcome& outcome() const { return outcome_; }

 private:
  struct SeatProgress {
    bool committed = false;
    std::string commitment;
    bool revealed = false;
    bool faulted = false;
    std::optional<v1::Action> action;
  };

  absl::Status OnHeader(const v1::Header& header);
  absl::Status OnSignature(uint64_t index, const v1::Signature& signature);
  absl::Status OnDecision(const v1::DecisionOpened& opened);
  absl::Status OnCommit(const v1::Commit& commit);
  absl::Status OnReveal(const v1::Reveal& reveal);
  absl::Status OnFault(const v1::Fault& fault);
  absl::Status OnExpected(const v1::LogRecord& record);
  absl::Status AfterProgress();
  absl::Status CloseDecision();
  void ExpectAdvance();
  void ExpectOutcome(v1::Outcome outcome);
  absl::StatusOr<size_t> SeatIndex(uint64_t decision_id, uint32_t seat) const;
  bool AllCommittedOrFaulted() const;
  bool AllResolved() const;
  bool Forfeits() const;

  const VerifyOptions& options_;
  v1::Header header_;
  std::string key_;
  std::unique_ptr<Game> game_;
  std::optional<GameSession> session_;
  Digest chain_{};
  uint64_t since_checkpoint_ = 0;
  uint64_t signed_records_ = 0;
  uint64_t moves_ = 0;
  bool sealed_ = false;
  bool outcome_seen_ = false;
  v1::Outcome outcome_;

  // The open decision.
  bool decision_open_ = false;
  uint64_t decision_id_ = 0;
  uint64_t next_decision_id_ = 0;
  std::vector<uint32_t> seats_;
  bool reveal_phase_ = false;
  std::vector<SeatProgress> progress_;
  // A reveal that must be followed at once by this fault (seat, reason).
  std::optional<std::pair<uint32_t, v1::FaultReason>> owed_fault_;

  std::vector<std::string> seed_contributions_;  // Closed seed decision.
  std::deque<Expected> expected_;
};

absl::Status Replayer::Next(uint64_t index, std::string_view bytes) {
  if (sealed_) return Bad("record after the seal");
  v1::LogRecord record;
  if (!record.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Bad("not a LogRecord message");
  }
  if (record.prev_hash() != AsView(chain_)) {
    return Bad("prev_hash does not match the previous record (hash chain)");
  }
  chain_ = Sha256(bytes);
  if (index == 0) {
    if (record.kind_case() != v1::LogRecord::kHeader) {
      return Bad("record 0 is not a header");
    }
    since_checkpoint_ = 1;
    return OnHeader(record.header());
  }
  const bool is_signature = record.kind_case() == v1::LogRecord::kCheckpoint ||
                            record.kind_case() == v1::LogRecord::kSeal;
  // The writer signs after at most every `checkpoint_interval` records
  // (counting the header), and may sign earlier (e.g. at shutdown), but never
  // twice in a row.
  const uint32_t interval = header_.checkpoint_interval();
  if (interval != 0 && since_checkpoint_ >= interval &&
      record.kind_case() != v1::LogRecord::kCheckpoint) {
    return Bad(absl::StrCat("a checkpoint is due after every ", interval,
                            " records"));
  }
  // A checkpoint may fall between the reveal and its fault: the writer signs
  // whenever one is due, whatever record comes next.
  if (owed_fault_ && record.kind_case() != v1::LogRecord::kFault &&
      record.kind_case() != v1::LogRecord::kCheckpoint) {
    return Bad("a reveal that cannot be used must be followed by its fault");
  }
  if (!is_signature) ++since_checkpoint_;
  switch (record.kind_case()) {
    case v1::LogRecord::kHeader:
      return Bad("a second header");
    case v1::LogRecord::kCheckpoint:
      if (since_checkpoint_ == 0) return Bad("two signatures in a row");
      since_checkpoint_ = 0;
      return OnSignature(index, record.checkpoint());
    case v1::LogRecord::kSeal:
      if (!outcome_seen_) return Bad("seal before the outcome");
      sealed_ = true;
      return OnSignature(index, record.seal());
    case v1::LogRecord::kDecisionOpened:
      return OnDecision(record.decision_opened());
    case v1::LogRecord::kCommit:
      return OnCommit(record.commit());
    case v1::LogRecord::kReveal:
      return OnReveal(record.reveal());
    case v1::LogRecord::kFault:
      return OnFault(record.fault());
    case v1::LogRecord::kSeedReveal:
    case v1::LogRecord::kApplied:
    case v1::LogRecord::kOutcome:
      return OnExpected(record);
    case v1::LogRecord::KIND_NOT_SET:
      break;
  }
  return Bad("record of unknown kind");
}

absl::Status Replayer::OnHeader(const v1::Header& header) {
  header_ = header;
  if (header.format_version() != log_format::kFormatVersion) {
    return Bad(absl::StrCat("unsupported log format version ",
                            header.format_version()));
  }
  if (header.match_id().size() != kMatchIdSize) return Bad("bad match id");
  if (header.referee_public_key().size() != kPublicKeySize) {
    return Bad("bad referee public key");
  }
  if (header.referee_commitment().size() != Digest().size()) {
    return Bad("bad referee seed commitment");
  }
  key_ = header.referee_public_key();
  if (!options_.pinned_key.empty() && options_.pinned_key != key_) {
    return Bad("the referee key in the header is not the pinned key");
  }
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(header.game());
  if (!game.ok()) return Bad(game.status().message());
  game_ = *std::move(game);
  if (header.rules_version() != game_->rules_version()) {
    return Bad(absl::StrCat("rules version ", header.rules_version(), " of ",
                            header.game().game(), " is not implemented (this verifier "
                            "implements version ", game_->rules_version(), ")"));
  }
  const int seats = header.seats_size();
  if (seats < game_->min_seats() || seats > game_->max_seats()) {
    return Bad("seat count out of range for the game");
  }
  for (const v1::Seat& seat : header.seats()) {
    if (!seat.public_key().empty() &&
        seat.public_key().size() != kPublicKeySize) {
      return Bad("bad seat public key");
    }
  }
  Expected decision{Expected::Kind::kDecision, {}};
  v1::DecisionOpened* opened = decision.record.mutable_decision_opened();
  opened->set_decision_id(0);
  for (int i = 0; i < seats; ++i) opened->add_seats(i);
  opened->set_simultaneous(true);
  expected_.push_back(std::move(decision));
  return absl::OkStatus();
}

absl::Status Replayer::OnSignature(uint64_t index,
                                   const v1::Signature& signature) {
  // chain_ already includes this record; the signature covers the ones
  // before it, whose hash is this record's prev_hash.
  if (signature.record_count() != index) {
    return Bad("signature record_count is not the record's index");
  }
  // The chain hash signed is the prev_hash, which Next() has checked equals
  // the hash of the previous record.
  if (signature.chain_hash().size() != Digest().size()) {
    return Bad("bad signed chain hash");
  }
  if (options_.check_signatures &&
      !VerifySignature(key_,
                       LogSignatureMessage(header_.match_id(), index,
                                           signature.chain_hash()),
                       signature.signature())) {
    return Bad("referee signature does not verify");
  }
  signed_records_ = index;
  return absl::OkStatus();
}

absl::Status Replayer::OnDecision(const v1::DecisionOpened& opened) {
  if (expected_.empty() || expected_.front().kind != Expected::Kind::kDecision) {
    return Bad("a decision opened out of turn");
  }
  const v1::DecisionOpened& want = expected_.front().record.decision_opened();
  if (opened.decision_id() != want.decision_id()) {
    return Bad(absl::StrCat("decision ", opened.decision_id(),
                            " opened where decision ", want.decision_id(),
                            " is due"));
  }
  if (!std::equal(opened.seats().begin(), opened.seats().end(),
                  want.seats().begin(), want.seats().end()) ||
      opened.simultaneous() != want.simultaneous()) {
    return Bad("the decision's seats are not the seats the rules say act");
  }
  expected_.pop_front();
  decision_open_ = true;
  decision_id_ = opened.decision_id();
  seats_.assign(opened.seats().begin(), opened.seats().end());
  reveal_phase_ = false;
  progress_.assign(seats_.size(), SeatProgress{});
  return absl::OkStatus();
}

absl::StatusOr<size_t> Replayer::SeatIndex(uint64_t decision_id,
                                           uint32_t seat) const {
  if (!decision_open_ || decision_id != decision_id_) {
    return Bad("record for a decision that is not open");
  }
  auto it = std::find(seats_.begin(), seats_.end(), seat);
  if (it == seats_.end()) return Bad("record for a seat not in the decision");
  return static_cast<size_t>(it - seats_.begin());
}

absl::Status Replayer::OnCommit(const v1::Commit& commit) {
  absl::StatusOr<size_t> index = SeatIndex(commit.decision_id(), commit.seat());
  if (!index.ok()) return index.status();
  SeatProgress& p = progress_[*index];
  if (reveal_phase_) return Bad("commit after the commit phase");
  if (p.committed || p.faulted) return Bad("second commit from a seat");
  if (commit.commitment().size() != Digest().size()) {
    return Bad("bad commitment size");
  }
  const std::string& key = header_.seats(commit.seat()).public_key();
  if (key.empty()) {
    if (!commit.signature().empty()) return Bad("signed commit from a keyless seat");
  } else if (options_.check_signatures &&
             !VerifySignature(key,
                              CommitSignatureMessage(
                                  header_.match_id(), commit.seat(),
                                  commit.decision_id(), commit.commitment()),
                              commit.signature())) {
    return Bad("the seat's commit signature does not verify");
  }
  p.committed = true;
  p.commitment = commit.commitment();
  return AfterProgress();
}

absl::Status Replayer::OnReveal(const v1::Reveal& reveal) {
  absl::StatusOr<size_t> index = SeatIndex(reveal.decision_id(), reveal.seat());
  if (!index.ok()) return index.status();
  SeatProgress& p = progress_[*index];
  if (!reveal_phase_) return Bad("reveal before every commitment is in");
  if (!p.committed || p.faulted || p.revealed) {
    return Bad("reveal from a seat that does not owe one");
  }
  if (reveal.salt().size() != kSaltSize) return Bad("bad salt size");
  p.revealed = true;
  const Digest commitment =
      CommitmentHash(header_.match_id(), reveal.seat(), reveal.decision_id(),
                     reveal.salt(), reveal.action());
  if (AsView(commitment) != p.commitment) {
    owed_fault_.emplace(reveal.seat(), v1::FAULT_REVEAL_MISMATCH);
    return absl::OkStatus();
  }
  v1::Action action;
  bool legal = action.ParseFromString(reveal.action());
  if (legal && decision_id_ == 0) {
    legal = action.kind_case() == v1::Action::kSeed &&
            action.seed().contribution().size() == kSeedContributionSize;
  } else if (legal) {
    legal = session_->state().ValidateAction(reveal.seat(), action).ok();
  }
  if (!legal) {
    owed_fault_.emplace(reveal.seat(), v1::FAULT_ILLEGAL_ACTION);
    return absl::OkStatus();
  }
  p.action = std::move(action);
  return AfterProgress();
}

absl::Status Replayer::OnFault(const v1::Fault& fault) {
  absl::StatusOr<size_t> index = SeatIndex(fault.decision_id(), fault.seat());
  if (!index.ok()) return index.status();
  SeatProgress& p = progress_[*index];
  const v1::FaultConsequence consequence =
      header_.forfeit_policy() == v1::FORFEIT_POLICY_DEFAULT_ACTION
          ? v1::FAULT_DEFAULT_ACTION
          : v1::FAULT_FORFEIT;
  if (fault.consequence() != consequence) {
    return Bad("fault consequence differs from the match's forfeit policy");
  }
  if (owed_fault_) {
    if (owed_fault_->first != fault.seat() ||
        owed_fault_->second != fault.reason()) {
      return Bad("the fault does not match the reveal before it");
    }
    owed_fault_.reset();
  } else if (fault.reason() == v1::FAULT_COMMIT_TIMEOUT) {
    if (reveal_phase_ || p.committed || p.faulted) {
      return Bad("commit timeout for a seat that did not owe a commit");
    }
  } else if (fault.reason() == v1::FAULT_REVEAL_TIMEOUT) {
    if (!reveal_phase_ || !p.committed || p.revealed || p.faulted) {
      return Bad("reveal timeout for a seat that did not owe a reveal");
    }
  } else {
    return Bad("fault without the reveal that justifies it");
  }
  p.faulted = true;
  p.action.reset();
  return AfterProgress();
}

bool Replayer::AllCommittedOrFaulted() const {
  return std::all_of(progress_.begin(), progress_.end(),
                     [](const SeatProgress& p) {
                       return p.committed || p.faulted;
                     });
}

bool Replayer::AllResolved() const {
  return std::all_of(
      progress_.begin(), progress_.end(),
      [](const SeatProgress& p) { return p.faulted || p.action.has_value(); });
}

bool Replayer::Forfeits() const {
  return header_.forfeit_policy() != v1::FORFEIT_POLICY_DEFAULT_ACTION &&
         std::any_of(progress_.begin(), progress_.end(),
                     [](const SeatProgress& p) { return p.faulted; });
}

absl::Status Replayer::AfterProgress() {
  if (!reveal_phase_) {
    if (!AllCommittedOrFaulted()) return absl::OkStatus();
    if (Forfeits() || AllResolved()) return CloseDecision();
    reveal_phase_ = true;
    return absl::OkStatus();
  }
  if (!AllResolved()) return absl::OkStatus();
  return CloseDecision();
}

absl::Status Replayer::CloseDecision() {
  decision_open_ = false;
  const int num_seats = header_.seats_size();
  if (Forfeits()) {
    std::vector<int> forfeited;
    for (size_t i = 0; i < seats_.size(); ++i) {
      if (progress_[i].faulted) forfeited.push_back(seats_[i]);
    }
    ExpectOutcome(ForfeitOutcome(session_ ? &session_->state() : nullptr,
                                 num_seats, forfeited));
    return absl::OkStatus();
  }
  if (decision_id_ == 0) {
    // The referee's contribution is only known from the SeedReveal record
    // itself; OnExpected checks it against the header's commitment.
    seed_contributions_.clear();
    for (const SeatProgress& p : progress_) {
      seed_contributions_.push_back(
          p.faulted ? std::string(kSeedContributionSize, '\0')
                    : p.action->seed().contribution());
    }
    expected_.push_back({Expected::Kind::kSeedReveal, {}});
    return absl::OkStatus();
  }
  std::vector<v1::Move> moves;
  for (size_t i = 0; i < seats_.size(); ++i) {
    v1::Move& move = moves.emplace_back();
    move.set_seat(seats_[i]);
    if (progress_[i].faulted) {
      move.set_source(v1::MOVE_DEFAULT);
    } else {
      move.set_source(v1::MOVE_REVEALED);
      *move.mutable_action() = *progress_[i].action;
    }
  }
  absl::StatusOr<v1::Applied> applied =
      session_->ApplyDecision(decision_id_, std::move(moves));
  if (!applied.ok()) {
    return Bad(absl::StrCat("the rules refuse the decision's actions: ",
                            applied.status().message()));
  }
  Expected expected{Expected::Kind::kApplied, {}};
  *expected.record.mutable_applied() = *std::move(applied);
  expected_.push_back(std::move(expected));
  ExpectAdvance();
  return absl::OkStatus();
}

// After a decision or the seed: the automatic moves the rules make, then the
// next decision or the outcome.
void Replayer::ExpectAdvance() {
  for (v1::Applied& applied : session_->TakeAutomaticMoves()) {
    Expected expected{Expected::Kind::kApplied, {}};
    *expected.record.mutable_applied() = std::move(applied);
    expected_.push_back(std::move(expected));
  }
  if (session_->IsTerminal()) {
    ExpectOutcome(session_->state().Outcome());
    return;
  }
  Expected decision{Expected::Kind::kDecision, {}};
  v1::DecisionOpened* opened = decision.record.mutable_decision_opened();
  opened->set_decision_id(++next_decision_id_);
  for (int seat : session_->ActingSeats()) opened->add_seats(seat);
  opened->set_simultaneous(session_->IsSimultaneous());
  expected_.push_back(std::move(decision));
}

void Replayer::ExpectOutcome(v1::Outcome outcome) {
  Expected expected{Expected::Kind::kOutcome, {}};
  *expected.record.mutable_outcome() = std::move(outcome);
  expected_.push_back(std::move(expected));
}

absl::Status Replayer::OnExpected(const v1::LogRecord& record) {
  if (expected_.empty()) return Bad("record where none is due");
  Expected want = std::move(expected_.front());
  expected_.pop_front();
  switch (record.kind_case()) {
    case v1::LogRecord::kSeedReveal: {
      if (want.kind != Expected::Kind::kSeedReveal) {
        return Bad("seed reveal out of turn");
      }
      const v1::SeedReveal& reveal = record.seed_reveal();
      if (reveal.referee_contribution().size() != kSeedContributionSize ||
          AsView(RefereeCommitment(header_.match_id(),
                                   reveal.referee_contribution())) !=
              header_.referee_commitment()) {
        return Bad("the referee's seed contribution does not match its "
                   "commitment in the header");
      }
      const Digest seed = DeriveSeed(header_.match_id(),
                                     reveal.referee_contribution(),
                                     seed_contributions_);
      if (reveal.seed() != AsView(seed)) {
        return Bad("the seed is not derived from the contributions");
      }
      absl::StatusOr<GameSession> session =
          GameSession::Start(*game_, header_.seats_size(), seed);
      if (!session.ok()) return Bad(session.status().message());
      session_.emplace(*std::move(session));
      if (!SameMessage(reveal.initial_view(), session_->state().PublicView())) {
        return Bad("the initial public view differs from the recomputed deal");
      }
      ExpectAdvance();
      return absl::OkStatus();
    }
    case v1::LogRecord::kApplied:
      if (want.kind != Expected::Kind::kApplied) {
        return Bad("applied result out of turn");
      }
      if (!SameMessage(record.applied(), want.record.applied())) {
        return Bad("the applied moves or result differ from the replay");
      }
      moves_ += record.applied().moves_size();
      return absl::OkStatus();
    case v1::LogRecord::kOutcome:
      if (want.kind != Expected::Kind::kOutcome) {
        return Bad("outcome out of turn");
      }
      if (!SameMessage(record.outcome(), want.record.outcome())) {
        return Bad("the outcome differs from the replay");
      }
      outcome_ = record.outcome();
      outcome_seen_ = true;
      return absl::OkStatus();
    default:
      return Bad("record out of turn");
  }
}

}  // namespace

Verdict VerifyLog(std::string_view file, const VerifyOptions& options) {
  Verdict verdict;
  verdict.key_from_header = options.pinned_key.empty();
  const SplitLogResult split = SplitLog(file);
  Replayer replayer(options);
  for (uint64_t i = 0; i < split.records.size(); ++i) {
    absl::Status status = replayer.Next(i, split.records[i].bytes);
    verdict.records = i + 1;
    if (i == 0) verdict.header = replayer.header();
    if (!status.ok()) {
      verdict.kind = Verdict::Kind::kNotGenuine;
      verdict.bad_record = i;
      verdict.reason = std::string(status.message());
      verdict.signed_records = replayer.signed_records();
      return verdict;
    }
  }
  verdict.signed_records = replayer.signed_records();
  verdict.moves = replayer.moves();
  const uint64_t count = split.records.size();
  if (split.tail == SplitLogResult::Tail::kCorrupt) {
    verdict.kind = Verdict::Kind::kNotGenuine;
    verdict.bad_record = count;
    verdict.reason = absl::StrCat(split.tail_reason, " at byte ",
                                  split.tail_offset);
    return verdict;
  }
  if (replayer.sealed()) {
    if (split.tail == SplitLogResult::Tail::kTruncated) {
      verdict.kind = Verdict::Kind::kNotGenuine;
      verdict.bad_record = count;
      verdict.reason = "bytes after the seal";
      return verdict;
    }
    verdict.kind = Verdict::Kind::kGenuine;
    verdict.outcome = replayer.outcome();
    return verdict;
  }
  const std::string tail =
      split.tail == SplitLogResult::Tail::kTruncated
          ? absl::StrCat("; ", split.tail_reason, " at byte ", split.tail_offset)
          : "";
  if (verdict.signed_records == 0) {
    verdict.kind = Verdict::Kind::kNotGenuine;
    verdict.bad_record = count;
    verdict.reason = absl::StrCat("the log ends after ", count,
                                  " records with no seal and no checkpoint",
                                  tail);
    return verdict;
  }
  verdict.kind = Verdict::Kind::kUnsealedPrefix;
  verdict.reason = absl::StrCat(
      "unsealed: records 0..", verdict.signed_records,
      " verify (signed by the checkpoint at record ", verdict.signed_records,
      "); ", count - verdict.signed_records - 1,
      " later records are unsigned", tail);
  return verdict;
}

}  // namespace pyramid

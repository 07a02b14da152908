#include "replay/verifier.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "referee/core/decision.h"
#include "referee/core/game_session.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/games/registry.h"
#include "referee/games/wire_scanner.h"
#include "replay/record_encoding.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

absl::Status Bad(absl::string_view reason) {
  return absl::DataLossError(reason);
}

// Where Replayer::Parse() puts parsed records. One record per kind, so that
// a record's fields reuse the memory the previous record of its kind
// allocated; kept per thread (ThreadParseBuffers), so that verifying many
// logs in a row allocates almost nothing for parsing.
struct ParseBuffers {
  ParseBuffers()
      : arena(arena_block.data(), arena_block.size()),
        results(results_block.data(), results_block.size()) {
    for (int kind = v1::LogRecord::kHeaderFieldNumber;
         kind <= v1::LogRecord::kSealFieldNumber; ++kind) {
      scanners[kind] = &WireScanner::For(
          v1::LogRecord::descriptor()->FindFieldByNumber(kind)->message_type());
    }
  }

  std::array<v1::LogRecord, v1::LogRecord::kSealFieldNumber + 1> by_kind;
  v1::LogRecord general;  // For records in another layout.
  // The scanner of each kind's message (NonCanonical), and of a record.
  std::array<const WireScanner*, v1::LogRecord::kSealFieldNumber + 1>
      scanners{};
  const WireScanner& record_scanner =
      WireScanner::For(v1::LogRecord::descriptor());
  // For records found to be as expected: the kind only.
  v1::LogRecord unparsed;
  // Scratch for StoredAs() and SameMessage().
  std::string serialized;
  std::string serialized_other;
  // The seed reveal (once per log) holds the initial view, a tree of small
  // messages that a heap message would free and allocate again for every
  // log; this arena, reset for each seed reveal, holds it instead.
  alignas(8) std::array<char, 16 << 10> arena_block;
  google::protobuf::Arena arena;
  // The Applied records the replay expects (Expected::applied), built by the
  // rules on this arena instead of the heap; reset as each decision closes,
  // when none is pending (Replayer::CloseDecision), so it holds at most one
  // log's records.
  alignas(8) std::array<char, 64 << 10> results_block;
  google::protobuf::Arena results;
};

// Logs larger than this release the buffers after use, so that one huge
// log does not leave a thread holding its memory.
inline constexpr size_t kRetainBuffersUpTo = 1 << 20;

std::unique_ptr<ParseBuffers>& ThreadParseBuffers() {
  thread_local std::unique_ptr<ParseBuffers> buffers;
  if (buffers == nullptr) buffers = std::make_unique<ParseBuffers>();
  return buffers;
}

// A record the protocol requires next, recomputed by the verifier. Only the
// member of its kind is set.
struct Expected {
  enum class Kind { kSeedReveal, kApplied, kDecision, kOutcome };
  Kind kind;
  v1::Applied* applied = nullptr;  // On ParseBuffers::results.
  // kOutcome only: the other kinds, one per record, construct no message.
  std::optional<v1::Outcome> outcome;
  // kDecision: the decision the rules open next.
  uint64_t decision_id = 0;
  std::vector<int> seats;  // Moved into the Decision once it opens.
  bool simultaneous = false;
};

// The records expected next, first in first out. Every record of a log
// passes through it, and a std::deque allocated and freed a block every few
// records; this keeps its memory, emptying whenever every expected record
// has been read (after each decision opens, at least). emplace_back()
// invalidates references to its items.
class ExpectedQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  Expected& front() { return items_[head_]; }
  const Expected& front() const { return items_[head_]; }
  Expected& emplace_back() {
    if (empty()) {
      items_.clear();
      head_ = 0;
    }
    return items_.emplace_back();
  }
  void pop_front() { ++head_; }
  void pop_back() { items_.pop_back(); }

 private:
  std::vector<Expected> items_;
  size_t head_ = 0;  // items_[head_] is the front; those before are read.
};

// Replays the protocol over the records of one log with the referee's own
// code: each decision's commit-reveal is the Decision the referee's Match
// keeps (referee/core/decision.h; the same steps, checks and words), and
// what the rules say happens next comes from the same GameSession
// (referee/core/game_session.h: automatic moves, default actions, forfeit
// outcomes). What is this class's own is reading: the log drives nothing,
// every record is checked against what the referee would have written.
class Replayer {
 public:
  Replayer(const VerifyOptions& options, ParseBuffers& buffers,
           ReplayObserver* observer)
      : options_(options), buffers_(buffers), observer_(observer) {}

  // Judges record `index`; `bytes` are its stored bytes.
  absl::Status Next(uint64_t index, std::string_view bytes);

  bool sealed() const { return sealed_; }
  // The index of the last checkpoint or seal read (0: none).
  uint64_t signed_records() const { return signed_records_; }
  // Checks the referee's signature in the last checkpoint or seal read.
  // Only that one is checked (docs/log-format.md, "Which signatures are
  // checked"): it signs the hash chain through every record before it, so
  // it vouches for every earlier checkpoint's bytes as well.
  absl::Status CheckLastSignature() const;
  uint64_t moves() const { return moves_; }
  uint32_t seats_naming_header() const { return seats_naming_header_; }
  uint32_t keyed_seats_naming_header() const {
    return keyed_seats_naming_header_;
  }
  // The header as read (empty unless record 0 parsed as one). Call last.
  v1::Header TakeHeader() { return std::move(header_); }
  v1::Outcome TakeOutcome() { return std::move(outcome_); }

 private:
  absl::Status OnHeader(const v1::Header& header);
  absl::Status OnSignature(uint64_t index, const v1::Signature& signature);
  absl::Status OnDecision(const v1::DecisionOpened& opened);
  absl::Status OnCommit(const v1::Commit& commit);
  absl::Status OnReveal(const v1::Reveal& reveal);
  absl::Status OnFault(const v1::Fault& fault);
  absl::Status OnRestart(const v1::Restart& restart);
  absl::Status OnExpected(const v1::LogRecord& record);
  absl::Status OnSeedReveal(const v1::SeedReveal& reveal);
  // The deal a seed reveal with this referee contribution and seed makes,
  // once the contribution opens the header's commitment and the seed is
  // derived from the contributions; why not (Bad) otherwise.
  absl::StatusOr<GameSession> Deal(std::string_view referee_contribution,
                                   std::string_view seed) const;
  // Next()'s steps after the chain check: where a record may stand (the
  // checkpoint interval, a fault owed, the chain a signature names); at
  // --level=chain, the records that are not replayed (nullopt for those
  // that are checked as at every level); and the handler of its kind.
  absl::Status CheckPlace(const v1::LogRecord& record);
  std::optional<absl::Status> ChainOnly(const v1::LogRecord& record);
  absl::Status Dispatch(uint64_t index, const v1::LogRecord& record);
  // The record in `bytes`, parsed into a reused buffer (null when it does
  // not parse); sets prev_hash_, as_expected_ and non_canonical_. The
  // record's own prev_hash field is set only when it was parsed whole: read
  // prev_hash_ instead.
  const v1::LogRecord* Parse(std::string_view bytes);
  // A record SplitRecord cannot lay out, parsed whole.
  const v1::LogRecord* ParseWhole(std::string_view bytes);
  // When the record is the Applied or Outcome expected next, stored exactly
  // as its canonical encoding: a record holding only its kind (it need not
  // be parsed). Null otherwise.
  const v1::LogRecord* AsExpected(const RecordLayout& layout);
  // When the record is the seed reveal expected next, its contribution and
  // seed check out (Deal), and it is stored exactly as the canonical
  // encoding of the seed reveal holding them and that deal's public view:
  // a record holding only its kind, the deal left in dealt_ (the initial
  // view, a tree of small messages, is neither parsed nor scanned). Null
  // otherwise.
  const v1::LogRecord* SeedRevealAsExpected(const RecordLayout& layout);
  absl::Status AfterProgress();
  absl::Status CloseDecision();
  // Shows the rules' state to the observer, if any (a new position).
  void Observe() {
    if (observer_ != nullptr) observer_->OnPosition(header_, session_->state());
  }
  void ExpectAdvance();
  // An Applied record expected next, empty, for the rules to build.
  v1::Applied& ExpectApplied();
  void ExpectOutcome(v1::Outcome outcome);
  // OK when `seat` acts in decision `decision_id`, which is open.
  absl::Status CheckSeat(uint64_t decision_id, uint32_t seat) const;

  const VerifyOptions& options_;
  ParseBuffers& buffers_;
  ReplayObserver* const observer_;
  // Whether the record being judged is an Applied, Outcome or SeedReveal
  // record whose payload is exactly the serialization of the message the
  // replay expects (and so was not parsed): AsExpected, SeedRevealAsExpected.
  bool as_expected_ = false;
  // A seed reveal as expected: the deal it makes, for OnSeedReveal.
  std::optional<GameSession> dealt_;
  // Set by Parse(): why the record's bytes are not canonical, or null.
  const char* non_canonical_ = nullptr;
  // Set by Parse(): the record's prev_hash, in its stored bytes or in the
  // record parsed whole (never copied: every record has one).
  std::string_view prev_hash_;
  v1::Header header_;
  std::string key_;
  std::unique_ptr<Game> game_;
  std::optional<GameSession> session_;
  Digest chain_{};
  Digest header_hash_{};  // SHA-256 of record 0's stored bytes.
  uint64_t since_checkpoint_ = 0;
  uint64_t signed_records_ = 0;
  v1::Signature last_signature_;  // Of record signed_records_.
  uint64_t moves_ = 0;
  uint32_t seats_naming_header_ = 0;
  uint32_t keyed_seats_naming_header_ = 0;
  bool sealed_ = false;
  bool outcome_seen_ = false;
  v1::Outcome outcome_;

  // The open decision: the referee's own commit-reveal bookkeeping
  // (referee/core/decision.h), checked against the log.
  bool decision_open_ = false;
  Decision decision_;
  uint64_t next_decision_id_ = 0;
  // A reveal that must be followed at once by this fault (seat, reason).
  std::optional<std::pair<uint32_t, v1::FaultReason>> owed_fault_;

  std::vector<std::string> seed_contributions_;  // Closed seed decision.
  ExpectedQueue expected_;
};

absl::Status Replayer::Next(uint64_t index, std::string_view bytes) {
  if (sealed_) return Bad("record after the seal");
  const v1::LogRecord* parsed = Parse(bytes);
  if (parsed == nullptr) return Bad("not a LogRecord message");
  if (non_canonical_ != nullptr) {
    return Bad(absl::StrCat("the record ", non_canonical_,
                            "; a log has exactly one valid encoding"));
  }
  const v1::LogRecord& record = *parsed;
  if (prev_hash_ != AsView(chain_)) {
    // docs/log-format.md, "The hash chain": record 0's prev_hash is 32 zero
    // bytes; record k's is chain_(k-1), the SHA-256 of record k-1's stored
    // bytes, so either record may be the one altered.
    if (index == 0) {
      return Bad(
          "prev_hash does not match the 32 zero bytes record 0's must hold "
          "(hash chain: no record comes before it)");
    }
    return Bad(
        absl::StrCat("prev_hash does not match the chain hash of record ",
                     index - 1, " (the SHA-256 of its bytes): record ",
                     index - 1, " or this prev_hash was altered (hash chain)"));
  }
  chain_ = Sha256(bytes);
  if (index == 0) {
    header_hash_ = chain_;
    if (record.kind_case() != v1::LogRecord::kHeader) {
      return Bad("record 0 is not a header");
    }
    since_checkpoint_ = 1;
    return OnHeader(record.header());
  }
  if (absl::Status s = CheckPlace(record); !s.ok()) return s;
  if (options_.level == VerifyOptions::Level::kChain) {
    if (std::optional<absl::Status> done = ChainOnly(record)) return *done;
  }
  return Dispatch(index, record);
}

absl::Status Replayer::CheckPlace(const v1::LogRecord& record) {
  const bool is_signature = record.kind_case() == v1::LogRecord::kCheckpoint ||
                            record.kind_case() == v1::LogRecord::kSeal;
  // The writer signs after at most every `checkpoint_interval` records
  // (counting the header), and may sign earlier (e.g. at shutdown), but never
  // twice in a row.
  const uint32_t interval = header_.checkpoint_interval();
  if (interval != 0 && since_checkpoint_ >= interval &&
      record.kind_case() != v1::LogRecord::kCheckpoint) {
    return Bad(
        absl::StrCat("a checkpoint is due after every ", interval, " records"));
  }
  // A checkpoint may fall between a reveal and its fault (the writer signs
  // after any record).
  if (owed_fault_ && record.kind_case() != v1::LogRecord::kFault &&
      record.kind_case() != v1::LogRecord::kCheckpoint) {
    return Bad("a reveal that cannot be used must be followed by its fault");
  }
  // A signature vouches for the chain it names; that must be this log's
  // chain, or a signature over an earlier version of the log would vouch
  // for an edited one.
  if (is_signature &&
      (record.kind_case() == v1::LogRecord::kCheckpoint ? record.checkpoint()
                                                        : record.seal())
              .chain_hash() != prev_hash_) {
    return Bad("the signed chain hash is not the hash of the previous record");
  }
  if (!is_signature) ++since_checkpoint_;
  return absl::OkStatus();
}

std::optional<absl::Status> Replayer::ChainOnly(const v1::LogRecord& record) {
  switch (record.kind_case()) {
    case v1::LogRecord::kOutcome:
      if (outcome_seen_) return Bad("a second outcome");
      outcome_ = record.outcome();
      outcome_seen_ = true;
      return absl::OkStatus();
    case v1::LogRecord::kDecisionOpened:
    case v1::LogRecord::kCommit:
    case v1::LogRecord::kReveal:
    case v1::LogRecord::kFault:
    case v1::LogRecord::kSeedReveal:
    case v1::LogRecord::kApplied:
    case v1::LogRecord::kRestart:
      // Not replayed; only a signature may follow the outcome.
      if (outcome_seen_) return Bad("a record after the outcome");
      return absl::OkStatus();
    default:
      return std::nullopt;  // The header and signatures, as at every level.
  }
}

absl::Status Replayer::Dispatch(uint64_t index, const v1::LogRecord& record) {
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
    case v1::LogRecord::kRestart:
      return OnRestart(record.restart());
    case v1::LogRecord::KIND_NOT_SET:
      break;
  }
  return Bad("record of unknown kind");
}

// The referee resumed the match after a restart. It changes no rule and no
// expectation: only the deadlines, which the verifier does not judge.
absl::Status Replayer::OnRestart(const v1::Restart& restart) {
  if (outcome_seen_) return Bad("restart after the outcome");
  if (restart.restarted_unix_ms() < restart.last_record_unix_ms()) {
    return Bad("restart before the record it follows");
  }
  return absl::OkStatus();
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
    // Both keys, so that the reader sees which referee signed; but a
    // pinned "key" that is the header key's secret seed (a secret key
    // file given for its public one) is named, never printed.
    absl::StatusOr<SigningKey> secret =
        SigningKey::FromSeed(options_.pinned_key);
    if (secret.ok() && secret->public_key() == key_) {
      return Bad(absl::StrCat(
          "the referee key in the header is not the pinned key: the pinned "
          "key is the secret key (seed) of the header's key ",
          ToHex(key_), "; pin the public key (the .pub file)"));
    }
    return Bad(absl::StrCat(
        "the referee key in the header is not the pinned key (header ",
        ToHex(key_), ", pinned ", ToHex(options_.pinned_key), ")"));
  }
  for (const v1::Seat& seat : header.seats()) {
    if (!seat.public_key().empty() &&
        seat.public_key().size() != kPublicKeySize) {
      return Bad("bad seat public key");
    }
  }
  if (options_.level == VerifyOptions::Level::kChain) return absl::OkStatus();
  if (header.rules_version() == 0) {
    return Bad("the header names no rules version (0)");
  }
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame(header.game(), header.rules_version());
  if (!game.ok()) return Bad(game.status().message());
  game_ = *std::move(game);
  const int seats = header.seats_size();
  if (seats < game_->min_seats() || seats > game_->max_seats()) {
    return Bad("seat count out of range for the game");
  }
  Expected& decision = expected_.emplace_back();
  decision.kind = Expected::Kind::kDecision;
  decision.decision_id = 0;
  decision.seats.resize(seats);
  for (int i = 0; i < seats; ++i) decision.seats[i] = i;
  decision.simultaneous = true;
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
  signed_records_ = index;
  last_signature_ = signature;
  return absl::OkStatus();
}

absl::Status Replayer::CheckLastSignature() const {
  if (signed_records_ == 0 || !options_.check_signatures) {
    return absl::OkStatus();
  }
  if (!VerifySignature(key_,
                       LogSignatureMessage(header_.match_id(), signed_records_,
                                           last_signature_.chain_hash()),
                       last_signature_.signature())) {
    return Bad("referee signature does not verify");
  }
  return absl::OkStatus();
}

absl::Status Replayer::OnDecision(const v1::DecisionOpened& opened) {
  if (expected_.empty() ||
      expected_.front().kind != Expected::Kind::kDecision) {
    return Bad("a decision opened out of turn");
  }
  Expected& want = expected_.front();
  if (opened.decision_id() != want.decision_id) {
    return Bad(absl::StrCat("decision ", opened.decision_id(),
                            " opened where decision ", want.decision_id,
                            " is due"));
  }
  if (!std::equal(opened.seats().begin(), opened.seats().end(),
                  want.seats.begin(), want.seats.end()) ||
      opened.simultaneous() != want.simultaneous) {
    return Bad("the decision's seats are not the seats the rules say act");
  }
  decision_open_ = true;  // Step 1.
  decision_.Open(opened.decision_id(), std::move(want.seats),
                 opened.simultaneous());
  expected_.pop_front();
  return absl::OkStatus();
}

absl::Status Replayer::CheckSeat(uint64_t decision_id, uint32_t seat) const {
  if (!decision_open_ || decision_id != decision_.id()) {
    return Bad("record for a decision that is not open");
  }
  if (!decision_.IndexOf(static_cast<int>(seat))) {
    return Bad("record for a seat not in the decision");
  }
  return absl::OkStatus();
}

// Step 2 (decision.h).
absl::Status Replayer::OnCommit(const v1::Commit& commit) {
  if (absl::Status s = CheckSeat(commit.decision_id(), commit.seat());
      !s.ok()) {
    return s;
  }
  if (absl::Status s = decision_.CheckCommit(
          commit.seat(), header_.match_id(), commit.commitment(),
          commit.signature(), header_.seats(commit.seat()).public_key(),
          options_.check_signatures);
      !s.ok()) {
    return Bad(s.message());
  }
  decision_.RecordCommit(commit.seat(), commit.commitment());
  return AfterProgress();
}

// Step 4 (decision.h); a reveal the rules cannot use owes its fault (step
// 5) in the next record.
absl::Status Replayer::OnReveal(const v1::Reveal& reveal) {
  if (absl::Status s = CheckSeat(reveal.decision_id(), reveal.seat());
      !s.ok()) {
    return s;
  }
  if (absl::Status s = decision_.CheckReveal(
          reveal.seat(), reveal.salt().size(), reveal.action().size(), *game_);
      !s.ok()) {
    return Bad(s.message());
  }
  decision_.RecordReveal(reveal.seat());
  Decision::Judgement judgement = decision_.JudgeReveal(
      reveal.seat(), header_.match_id(), AsView(header_hash_), reveal.salt(),
      reveal.action(), session_ ? &session_->state() : nullptr);
  if (!judgement.action) {
    owed_fault_.emplace(reveal.seat(), judgement.fault);
    return absl::OkStatus();
  }
  // JudgeReveal checked it is this header.
  if (decision_.id() == 0 && !judgement.action->seed().header_hash().empty()) {
    ++seats_naming_header_;
    if (!header_.seats(reveal.seat()).public_key().empty()) {
      ++keyed_seats_naming_header_;
    }
  }
  decision_.Accept(reveal.seat(), *std::move(judgement.action));
  return AfterProgress();
}

// Step 5 (decision.h).
absl::Status Replayer::OnFault(const v1::Fault& fault) {
  if (absl::Status s = CheckSeat(fault.decision_id(), fault.seat()); !s.ok()) {
    return s;
  }
  if (fault.consequence() != ConsequenceOf(header_.forfeit_policy())) {
    return Bad("fault consequence differs from the match's forfeit policy");
  }
  const int seat = static_cast<int>(fault.seat());
  if (owed_fault_) {
    if (owed_fault_->first != fault.seat() ||
        owed_fault_->second != fault.reason()) {
      return Bad("the fault does not match the reveal before it");
    }
    owed_fault_.reset();
  } else if (fault.reason() == v1::FAULT_COMMIT_TIMEOUT) {
    if (!decision_.OwesCommit(seat)) {
      return Bad("commit timeout for a seat that did not owe a commit");
    }
  } else if (fault.reason() == v1::FAULT_REVEAL_TIMEOUT) {
    if (!decision_.OwesReveal(seat)) {
      return Bad("reveal timeout for a seat that did not owe a reveal");
    }
  } else {
    return Bad("fault without the reveal that justifies it");
  }
  decision_.RecordFault(seat);
  return AfterProgress();
}

// Steps 3 and 6 (decision.h).
absl::Status Replayer::AfterProgress() {
  if (decision_.AfterProgress(header_.forfeit_policy()) !=
      Decision::Next::kClose) {
    return absl::OkStatus();
  }
  return CloseDecision();
}

absl::Status Replayer::CloseDecision() {
  decision_open_ = false;
  // Every record expected before this decision opened has been read (it
  // opens only then), so their messages can go.
  buffers_.results.Reset();
  if (decision_.Forfeits(header_.forfeit_policy())) {
    ExpectOutcome(ForfeitOutcome(session_ ? &session_->state() : nullptr,
                                 header_.seats_size(), decision_.Forfeited()));
    return absl::OkStatus();
  }
  if (decision_.id() == 0) {
    // The referee's contribution is only known from the SeedReveal record
    // itself; Deal checks it against the header's commitment.
    seed_contributions_ = decision_.SeedContributions();
    expected_.emplace_back().kind = Expected::Kind::kSeedReveal;
    return absl::OkStatus();
  }
  v1::Applied& applied = ExpectApplied();
  if (absl::Status s = session_->ApplyDecision(decision_.id(),
                                               decision_.TakeMoves(), applied);
      !s.ok()) {
    return Bad(
        absl::StrCat("the rules refuse the decision's actions: ", s.message()));
  }
  ExpectAdvance();
  return absl::OkStatus();
}

// After a decision or the seed: the position they reached, the automatic
// moves the rules make (each a position too), then the next decision or the
// outcome.
void Replayer::ExpectAdvance() {
  Observe();
  while (session_->TakeAutomaticMove(ExpectApplied())) Observe();
  expected_.pop_back();  // The last one: no automatic move was due.
  if (session_->IsTerminal()) {
    ExpectOutcome(session_->state().Outcome());
    return;
  }
  Expected& decision = expected_.emplace_back();
  decision.kind = Expected::Kind::kDecision;
  decision.decision_id = ++next_decision_id_;
  decision.seats = session_->ActingSeats();
  decision.simultaneous = session_->IsSimultaneous();
}

v1::Applied& Replayer::ExpectApplied() {
  Expected& expected = expected_.emplace_back();
  expected.kind = Expected::Kind::kApplied;
  expected.applied =
      google::protobuf::Arena::CreateMessage<v1::Applied>(&buffers_.results);
  return *expected.applied;
}

void Replayer::ExpectOutcome(v1::Outcome outcome) {
  Expected& expected = expected_.emplace_back();
  expected.kind = Expected::Kind::kOutcome;
  expected.outcome.emplace(std::move(outcome));
}

const v1::LogRecord* Replayer::ParseWhole(std::string_view bytes) {
  v1::LogRecord& record = buffers_.general;
  record.Clear();
  if (!record.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return nullptr;
  }
  non_canonical_ =
      NonCanonical(record, bytes, buffers_.serialized, buffers_.record_scanner);
  prev_hash_ = record.prev_hash();
  return &record;
}

const v1::LogRecord* Replayer::AsExpected(const RecordLayout& layout) {
  if (expected_.empty() ||
      (layout.kind != v1::LogRecord::kAppliedFieldNumber &&
       layout.kind != v1::LogRecord::kOutcomeFieldNumber)) {
    return nullptr;
  }
  const Expected& want = expected_.front();
  const bool applied = layout.kind == v1::LogRecord::kAppliedFieldNumber;
  if (want.kind !=
          (applied ? Expected::Kind::kApplied : Expected::Kind::kOutcome) ||
      !StoredAs(
          applied ? static_cast<const google::protobuf::Message&>(*want.applied)
                  : *want.outcome,
          layout.payload, buffers_.serialized)) {
    return nullptr;
  }
  v1::LogRecord& record = buffers_.unparsed;
  if (applied) {
    record.mutable_applied();
  } else {
    record.mutable_outcome();
  }
  as_expected_ = true;
  return &record;
}

const v1::LogRecord* Replayer::SeedRevealAsExpected(
    const RecordLayout& layout) {
  // The referee's layout: fields 1 and 2 (32 bytes each), then the view.
  constexpr size_t kSeedAt = 2 + kSeedContributionSize + 2;
  constexpr size_t kViewAt = kSeedAt + Digest().size();
  const std::string_view payload = layout.payload;
  if (layout.kind != v1::LogRecord::kSeedRevealFieldNumber ||
      expected_.empty() ||
      expected_.front().kind != Expected::Kind::kSeedReveal ||
      payload.size() < kViewAt || payload.substr(0, 2) != "\x0a\x20" ||
      payload.substr(kSeedAt - 2, 2) != "\x12\x20") {
    return nullptr;
  }
  const std::string_view referee_contribution =
      payload.substr(2, kSeedContributionSize);
  const std::string_view seed = payload.substr(kSeedAt, Digest().size());
  absl::StatusOr<GameSession> deal = Deal(referee_contribution, seed);
  if (!deal.ok()) return nullptr;
  v1::SeedReveal want;
  want.set_referee_contribution(std::string(referee_contribution));
  want.set_seed(std::string(seed));
  *want.mutable_initial_view() = deal->state().PublicView();
  if (!StoredAs(want, payload, buffers_.serialized)) return nullptr;
  dealt_.emplace(*std::move(deal));
  buffers_.unparsed.mutable_seed_reveal();
  as_expected_ = true;
  return &buffers_.unparsed;
}

// Parses `bytes` as a LogRecord; nullptr when they are not one. The result
// is valid until the next call.
//
// For bytes in the referee's layout (SplitRecord), parsing the whole record
// yields exactly prev_hash plus the kind's message parsed from the payload,
// so only the payload is parsed, into the buffer record of its kind. The
// payload is parsed one nesting level below the top, as inside the record,
// so the parser's recursion limit falls where it would for the whole record
// (a payload too short to nest that deep takes the plain, faster parser).
//
// An Applied, Outcome or SeedReveal record is judged against the message
// the replay expects; when its payload is byte for byte that message's
// serialization, it is not parsed at all (as_expected_).
const v1::LogRecord* Replayer::Parse(std::string_view bytes) {
  as_expected_ = false;
  non_canonical_ = nullptr;
  const std::optional<RecordLayout> layout = SplitRecord(bytes);
  if (!layout) return ParseWhole(bytes);
  prev_hash_ = layout->prev_hash;
  if (const v1::LogRecord* expected = AsExpected(*layout)) return expected;
  if (const v1::LogRecord* expected = SeedRevealAsExpected(*layout)) {
    return expected;
  }
  v1::LogRecord* on_arena = nullptr;
  if (layout->kind == v1::LogRecord::kSeedRevealFieldNumber) {
    buffers_.arena.Reset();
    on_arena =
        google::protobuf::Arena::CreateMessage<v1::LogRecord>(&buffers_.arena);
  }
  v1::LogRecord& record =
      on_arena != nullptr ? *on_arena : buffers_.by_kind[layout->kind];
  google::protobuf::MessageLite* kind = MutableKind(record, layout->kind);
  if (kind == nullptr) return nullptr;  // SplitRecord admits no other field.
  if (!ParsePayload(layout->payload, *kind)) return nullptr;
  non_canonical_ = NonCanonical(*static_cast<google::protobuf::Message*>(kind),
                                layout->payload, buffers_.serialized,
                                *buffers_.scanners[layout->kind]);
  return &record;
}

absl::StatusOr<GameSession> Replayer::Deal(
    std::string_view referee_contribution, std::string_view seed) const {
  if (referee_contribution.size() != kSeedContributionSize ||
      AsView(RefereeCommitment(header_.match_id(), referee_contribution)) !=
          header_.referee_commitment()) {
    return Bad(
        "the referee's seed contribution does not match its "
        "commitment in the header");
  }
  const Digest derived =
      DeriveSeed(header_.match_id(), referee_contribution, seed_contributions_);
  if (seed != AsView(derived)) {
    return Bad("the seed is not derived from the contributions");
  }
  absl::StatusOr<GameSession> session =
      GameSession::Start(*game_, header_.seats_size(), derived);
  if (!session.ok()) return Bad(session.status().message());
  return session;
}

// The seed reveal closes the seed decision: the referee's contribution
// against its commitment, the seed, and the deal it makes.
absl::Status Replayer::OnSeedReveal(const v1::SeedReveal& reveal) {
  if (as_expected_) {
    session_ = std::move(dealt_);  // Checked whole by SeedRevealAsExpected.
  } else {
    absl::StatusOr<GameSession> session =
        Deal(reveal.referee_contribution(), reveal.seed());
    if (!session.ok()) return session.status();
    session_.emplace(*std::move(session));
    if (!SameMessage(reveal.initial_view(), session_->state().PublicView(),
                     buffers_.serialized, buffers_.serialized_other)) {
      return Bad("the initial public view differs from the recomputed deal");
    }
  }
  ExpectAdvance();
  return absl::OkStatus();
}

absl::Status Replayer::OnExpected(const v1::LogRecord& record) {
  if (expected_.empty()) return Bad("record where none is due");
  // Only what is read below leaves the queue (not the whole Expected).
  const Expected::Kind want_kind = expected_.front().kind;
  const v1::Applied* const want_applied = expected_.front().applied;
  std::optional<v1::Outcome> want_outcome =
      std::move(expected_.front().outcome);
  expected_.pop_front();
  switch (record.kind_case()) {
    case v1::LogRecord::kSeedReveal:
      if (want_kind != Expected::Kind::kSeedReveal) {
        return Bad("seed reveal out of turn");
      }
      return OnSeedReveal(record.seed_reveal());
    case v1::LogRecord::kApplied:
      if (want_kind != Expected::Kind::kApplied) {
        return Bad("applied result out of turn");
      }
      if (!as_expected_ &&
          !SameMessage(record.applied(), *want_applied, buffers_.serialized,
                       buffers_.serialized_other)) {
        return Bad("the applied moves or result differ from the replay");
      }
      moves_ += want_applied->moves_size();  // Equal to the record's.
      return absl::OkStatus();
    case v1::LogRecord::kOutcome:
      if (want_kind != Expected::Kind::kOutcome) {
        return Bad("outcome out of turn");
      }
      if (!as_expected_ &&
          !SameMessage(record.outcome(), *want_outcome, buffers_.serialized,
                       buffers_.serialized_other)) {
        return Bad("the outcome differs from the replay");
      }
      outcome_ = *std::move(want_outcome);  // Equal to the record's.
      outcome_seen_ = true;
      return absl::OkStatus();
    default:
      return Bad("record out of turn");
  }
}

}  // namespace

const char* VerdictKindName(Verdict::Kind kind) {
  switch (kind) {
    case Verdict::Kind::kGenuine:
      return "genuine";
    case Verdict::Kind::kUnsealedPrefix:
      return "unsealed prefix";
    case Verdict::Kind::kNotGenuine:
      return "not genuine";
  }
  return "?";
}

namespace {

// `verdict` judged NOT GENUINE at `record` for `reason`.
Verdict NotGenuine(Verdict verdict, uint64_t record, std::string reason) {
  verdict.kind = Verdict::Kind::kNotGenuine;
  verdict.bad_record = record;
  verdict.reason = std::move(reason);
  return verdict;
}

// How a file of `file_size` bytes cut short (`split`, kTruncated) ends:
// its size, and where what it cuts begins ("the file (9500 bytes) ends
// inside the record that begins at byte 9418"; the splitter's own "file
// ends inside a record at byte 9418" read as if the file ended there).
std::string TruncatedTail(const SplitLogResult& split, uint64_t file_size) {
  constexpr absl::string_view kEnds = "file ends inside ";
  absl::string_view what = split.tail_reason;
  if (!absl::StartsWith(what, kEnds)) {
    return absl::StrCat(split.tail_reason, " at byte ", split.tail_offset);
  }
  what.remove_prefix(kEnds.size());  // "a record", "the magic".
  what.remove_prefix(what.find(' ') + 1);
  return absl::StrCat("the file (", file_size, " bytes) ends inside the ", what,
                      " that begins at byte ", split.tail_offset);
}

// What follows a seal that ends at byte `end` of a file of `file_size`
// bytes, said after "record after the seal" or "bytes after the seal"; ""
// when the size is not known (0).
std::string AfterTheSeal(uint64_t end, uint64_t file_size) {
  if (file_size <= end) return "";
  const uint64_t after = file_size - end;
  return absl::StrCat(" (", after,
                      after == 1 ? " byte follows" : " bytes follow",
                      " it, from byte ", end, " to the end of the file)");
}

// The verdict on a log whose every complete record replayed: by its last
// signature and by how it ends (sealed, cut short, or corrupt), the file
// being `file_size` bytes (`known_size`: as VerifyLog's file_size).
Verdict JudgeEnd(Replayer& replayer, const LogSplitter& splitter,
                 uint64_t file_size, uint64_t known_size, Verdict verdict) {
  const SplitLogResult& split = splitter.end();
  verdict.signed_records = replayer.signed_records();
  if (absl::Status s = replayer.CheckLastSignature(); !s.ok()) {
    verdict.header = replayer.TakeHeader();
    verdict.signature_failed = true;
    const uint64_t at = verdict.signed_records;
    return NotGenuine(std::move(verdict), at, std::string(s.message()));
  }
  verdict.header = replayer.TakeHeader();
  verdict.moves = replayer.moves();
  verdict.seats_naming_header = replayer.seats_naming_header();
  verdict.keyed_seats_naming_header = replayer.keyed_seats_naming_header();
  const uint64_t count = splitter.count();
  if (split.tail == SplitLogResult::Tail::kCorrupt) {
    return NotGenuine(
        std::move(verdict), count,
        absl::StrCat(split.tail_reason, " at byte ", split.tail_offset));
  }
  if (replayer.sealed()) {
    if (split.tail == SplitLogResult::Tail::kTruncated) {
      return NotGenuine(
          std::move(verdict), count,
          absl::StrCat("bytes after the seal",
                       AfterTheSeal(split.tail_offset, known_size)));
    }
    verdict.kind = Verdict::Kind::kGenuine;
    verdict.outcome = replayer.TakeOutcome();
    return verdict;
  }
  const std::string tail =
      split.tail == SplitLogResult::Tail::kTruncated
          ? absl::StrCat("; ", TruncatedTail(split, file_size))
          : "";
  if (verdict.signed_records == 0) {
    return NotGenuine(
        std::move(verdict), count,
        absl::StrCat("the log ends after ", count,
                     " records with no seal and no checkpoint", tail));
  }
  verdict.kind = Verdict::Kind::kUnsealedPrefix;
  // The kind says "unsealed prefix" already: the reason says how far.
  verdict.reason = absl::StrCat("records 0..", verdict.signed_records,
                                " verify (signed by the checkpoint at record ",
                                verdict.signed_records, "); ",
                                count - verdict.signed_records - 1,
                                " later records are unsigned", tail);
  return verdict;
}

}  // namespace

Verdict VerifyLog(std::string_view file, const VerifyOptions& options,
                  ReplayObserver* observer) {
  return VerifyLog(file, 0, options, observer);
}

Verdict VerifyLog(std::string_view file, uint64_t file_size,
                  const VerifyOptions& options, ReplayObserver* observer) {
  Verdict verdict;
  verdict.key_from_header = options.pinned_key.empty();
  // One record at a time: judged in order, a log's first bad record ends
  // it, however many records the file's bytes would split into.
  LogSplitter splitter(file);
  std::unique_ptr<ParseBuffers>& buffers = ThreadParseBuffers();
  struct Release {
    std::unique_ptr<ParseBuffers>& buffers;
    bool release;
    ~Release() {
      if (release) buffers.reset();
    }
  } release{buffers, file.size() > kRetainBuffersUpTo};
  Replayer replayer(options, *buffers, observer);
  for (RawRecord record; splitter.Next(record);) {
    const uint64_t i = splitter.count() - 1;
    const bool after_the_seal = replayer.sealed();
    absl::Status status = replayer.Next(i, record.bytes);
    verdict.records = i + 1;
    if (!status.ok()) {
      verdict.header = replayer.TakeHeader();
      verdict.signed_records = replayer.signed_records();
      std::string reason(status.message());
      // "record after the seal": the seal ends where this record begins.
      if (after_the_seal) {
        absl::StrAppend(&reason, AfterTheSeal(record.offset, file_size));
      }
      return NotGenuine(std::move(verdict), i, std::move(reason));
    }
  }
  return JudgeEnd(replayer, splitter, file.size(), file_size,
                  std::move(verdict));
}

}  // namespace pyramid

#include "referee/core/decision.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"

namespace pyramid {

bool DefaultsOnFault(v1::ForfeitPolicy policy) {
  return policy == v1::FORFEIT_POLICY_DEFAULT_ACTION;
}

v1::FaultConsequence ConsequenceOf(v1::ForfeitPolicy policy) {
  return DefaultsOnFault(policy) ? v1::FAULT_DEFAULT_ACTION : v1::FAULT_FORFEIT;
}

void Decision::Open(uint64_t id, std::vector<int> seats, bool simultaneous) {
  id_ = id;
  seats_ = std::move(seats);
  simultaneous_ = simultaneous;
  reveal_phase_ = false;
  progress_.assign(seats_.size(), SeatProgress());
  position_.clear();
  for (size_t i = 0; i < seats_.size(); ++i) {
    const int seat = seats_[i];
    if (seat < 0) continue;  // Never asked for: IndexOf takes no negative.
    if (position_.size() <= static_cast<size_t>(seat)) {
      position_.resize(seat + 1, -1);
    }
    // The first occurrence, as a search from the front finds it.
    if (position_[seat] < 0) position_[seat] = static_cast<int>(i);
  }
}

std::optional<size_t> Decision::IndexOf(int seat) const {
  if (seat < 0 || static_cast<size_t>(seat) >= position_.size() ||
      position_[seat] < 0) {
    return std::nullopt;
  }
  return static_cast<size_t>(position_[seat]);
}

const Decision::SeatProgress* Decision::Find(int seat) const {
  const std::optional<size_t> index = IndexOf(seat);
  return index ? &progress_[*index] : nullptr;
}

Decision::SeatProgress& Decision::At(int seat) {
  return progress_[*IndexOf(seat)];
}

absl::Status Decision::CheckCommit(int seat, std::string_view match_id,
                                   std::string_view commitment,
                                   std::string_view signature,
                                   std::string_view seat_key,
                                   bool check_signature) const {
  const SeatProgress& p = *Find(seat);
  if (reveal_phase_) {
    return absl::FailedPreconditionError("the commit phase is over");
  }
  if (p.faulted) {
    return absl::FailedPreconditionError("the seat missed its commit deadline");
  }
  if (p.committed) {
    return absl::AlreadyExistsError("the seat has already committed");
  }
  if (commitment.size() != Digest().size()) {
    return absl::InvalidArgumentError("a commitment is 32 bytes");
  }
  if (seat_key.empty()) {
    if (!signature.empty()) {
      return absl::InvalidArgumentError(
          "the seat has no key: commits must not be signed");
    }
  } else if (check_signature && signature.empty()) {
    return absl::InvalidArgumentError(
        "the seat has a key: its commits must be signed (no signature)");
  } else if (check_signature &&
             !VerifySignature(
                 std::string(seat_key),
                 CommitSignatureMessage(match_id, seat, id_, commitment),
                 signature)) {
    return absl::InvalidArgumentError("the commit signature does not verify");
  }
  return absl::OkStatus();
}

void Decision::RecordCommit(int seat, std::string_view commitment) {
  SeatProgress& p = At(seat);
  p.committed = true;
  std::copy(commitment.begin(), commitment.end(), p.commitment.begin());
}

absl::Status Decision::CheckReveal(int seat, size_t salt_size,
                                   size_t action_size, const Game& game) const {
  const SeatProgress& p = *Find(seat);
  if (!reveal_phase_) {
    return absl::FailedPreconditionError(
        "reveal before every commitment is in");
  }
  if (p.faulted) {
    return absl::FailedPreconditionError(
        "the seat has been faulted in this decision");
  }
  if (p.revealed) {
    return absl::AlreadyExistsError("the seat has already revealed");
  }
  if (salt_size != kSaltSize) {
    return absl::InvalidArgumentError("a salt is 32 bytes");
  }
  // The seed action, with the header's hash, is longer than some games'
  // moves: it has its own bound.
  const size_t limit = id_ == 0 ? kMaxSeedActionBytes : game.max_action_bytes();
  if (action_size > limit) {
    // Refused unread: no legal action is this long, and the log stays
    // bounded (docs/protocol.md, "Action size").
    return absl::InvalidArgumentError(
        id_ == 0
            ? absl::StrCat("the action is ", action_size,
                           " bytes; seed actions are at most ", limit, " bytes")
            : absl::StrCat("the action is ", action_size, " bytes; ",
                           std::string(game.id()), " actions are at most ",
                           limit, " bytes"));
  }
  return absl::OkStatus();
}

void Decision::RecordReveal(int seat) { At(seat).revealed = true; }

Decision::Judgement Decision::JudgeReveal(int seat, std::string_view match_id,
                                          std::string_view header_hash,
                                          std::string_view salt,
                                          std::string_view action_bytes,
                                          const State* state) const {
  Judgement judgement;
  const Digest& commitment = Find(seat)->commitment;
  if (CommitmentHash(match_id, seat, id_, salt, action_bytes) != commitment) {
    judgement.fault = v1::FAULT_REVEAL_MISMATCH;
    judgement.why = "the reveal does not match the commitment";
    judgement.hint = CommitmentMistake(match_id, seat, id_, salt, action_bytes,
                                       AsView(commitment));
    return judgement;
  }
  absl::StatusOr<v1::Action> action = ParseSeatAction(action_bytes);
  absl::Status legal = action.status();
  if (legal.ok() && id_ == 0) {
    if (action->kind_case() != v1::Action::kSeed ||
        action->seed().contribution().size() != kSeedContributionSize) {
      legal = absl::InvalidArgumentError(
          "the seed decision takes a 32-byte seed contribution");
    } else if (!action->seed().header_hash().empty() &&
               action->seed().header_hash() != header_hash) {
      legal = absl::InvalidArgumentError(
          "the seed contribution names another log header than this "
          "match's (header_hash)");
    }
  } else if (legal.ok()) {
    legal = state->ValidateAction(seat, *action);
  }
  if (!legal.ok()) {
    judgement.fault = v1::FAULT_ILLEGAL_ACTION;
    judgement.why = std::string(legal.message());
    return judgement;
  }
  judgement.action = *std::move(action);
  return judgement;
}

void Decision::Accept(int seat, v1::Action action) {
  At(seat).action = std::move(action);
}

bool Decision::OwesCommit(int seat) const {
  const SeatProgress* p = Find(seat);
  return p != nullptr && !reveal_phase_ && !p->committed && !p->faulted;
}

bool Decision::OwesReveal(int seat) const {
  const SeatProgress* p = Find(seat);
  return p != nullptr && reveal_phase_ && p->committed && !p->revealed &&
         !p->faulted;
}

bool Decision::HasCommitted(int seat) const {
  const SeatProgress* p = Find(seat);
  return p != nullptr && p->committed;
}

void Decision::RecordFault(int seat) {
  SeatProgress& p = At(seat);
  p.faulted = true;
  p.action.reset();
}

bool Decision::AllCommittedOrFaulted() const {
  return std::all_of(
      progress_.begin(), progress_.end(),
      [](const SeatProgress& p) { return p.committed || p.faulted; });
}

bool Decision::AllResolved() const {
  return std::all_of(
      progress_.begin(), progress_.end(),
      [](const SeatProgress& p) { return p.faulted || p.action.has_value(); });
}

bool Decision::AnyFaulted() const {
  return std::any_of(progress_.begin(), progress_.end(),
                     [](const SeatProgress& p) { return p.faulted; });
}

Decision::Next Decision::AfterProgress(v1::ForfeitPolicy policy) {
  if (!reveal_phase_) {
    if (!AllCommittedOrFaulted()) return Next::kWait;
    // The commit phase is over. Under the forfeit policy a seat that missed
    // it has already lost: the reveals would change nothing.
    if (Forfeits(policy) || AllResolved()) return Next::kClose;
    reveal_phase_ = true;
    return Next::kOpenRevealPhase;
  }
  return AllResolved() ? Next::kClose : Next::kWait;
}

bool Decision::Forfeits(v1::ForfeitPolicy policy) const {
  return !DefaultsOnFault(policy) && AnyFaulted();
}

std::vector<int> Decision::Forfeited() const {
  std::vector<int> forfeited;
  for (size_t i = 0; i < seats_.size(); ++i) {
    if (progress_[i].faulted) forfeited.push_back(seats_[i]);
  }
  return forfeited;
}

std::vector<std::string> Decision::SeedContributions() const {
  std::vector<std::string> contributions;
  for (const SeatProgress& p : progress_) {
    contributions.push_back(p.faulted ? std::string(kSeedContributionSize, '\0')
                                      : p.action->seed().contribution());
  }
  return contributions;
}

std::vector<v1::Move> Decision::TakeMoves() {
  std::vector<v1::Move> moves;
  moves.reserve(seats_.size());
  for (size_t i = 0; i < seats_.size(); ++i) {
    v1::Move& move = moves.emplace_back();
    move.set_seat(seats_[i]);
    if (progress_[i].faulted) {
      move.set_source(v1::MOVE_DEFAULT);
    } else {
      move.set_source(v1::MOVE_REVEALED);
      *move.mutable_action() = *std::move(progress_[i].action);
    }
  }
  return moves;
}

}  // namespace pyramid

#include "referee/crypto/protocol.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/crypto/sha256.h"

namespace pyramid {

Digest CommitmentHash(std::string_view match_id, uint32_t seat,
                      uint64_t decision_id, std::string_view salt,
                      std::string_view action_bytes) {
  // One contiguous preimage, hashed in one update (the verifier computes
  // one per reveal); the buffer is the thread's, reused.
  thread_local std::string preimage;
  preimage.assign(kCommitDomain);
  preimage.append(match_id);
  AppendU32Be(preimage, seat);
  AppendU64Be(preimage, decision_id);
  preimage.append(salt);
  preimage.append(action_bytes);
  return Sha256(preimage);
}

namespace {

// One layout of a commitment's preimage: the documented one by default,
// or one mistake a hand-written client makes.
struct CommitLayout {
  std::string_view domain = kCommitDomain;
  bool match_id_as_hex = false;
  bool upper_case_hex = false;
  int seat_bytes = 4;
  bool seat_little_endian = false;
  int64_t seat_off_by = 0;
  int decision_bytes = 8;
  bool decision_little_endian = false;
  int64_t decision_off_by = 0;
  bool action_before_salt = false;
};

void AppendUnsigned(std::string& out, uint64_t value, int bytes,
                    bool little_endian) {
  for (int i = 0; i < bytes; ++i) {
    const int shift = 8 * (little_endian ? i : bytes - 1 - i);
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

Digest LaidOutCommitment(const CommitLayout& layout, std::string_view match_id,
                         uint32_t seat, uint64_t decision_id,
                         std::string_view salt, std::string_view action_bytes) {
  std::string preimage(layout.domain);
  if (layout.match_id_as_hex) {
    std::string hex = ToHex(match_id);
    if (layout.upper_case_hex) {
      for (char& c : hex) c = absl::ascii_toupper(c);
    }
    preimage.append(hex);
  } else {
    preimage.append(match_id);
  }
  AppendUnsigned(preimage, seat + layout.seat_off_by, layout.seat_bytes,
                 layout.seat_little_endian);
  AppendUnsigned(preimage, decision_id + layout.decision_off_by,
                 layout.decision_bytes, layout.decision_little_endian);
  if (layout.action_before_salt) {
    preimage.append(action_bytes);
    preimage.append(salt);
  } else {
    preimage.append(salt);
    preimage.append(action_bytes);
  }
  return Sha256(preimage);
}

struct CommitMistake {
  const char* said;
  CommitLayout layout;
};

// Each departs from the documented layout in one way (little-endian
// numbers count as one: a client writes all its numbers one way).
const CommitMistake kCommitMistakes[] = {
    {"the domain string's ending zero byte is left out",
     {.domain = kCommitDomain.substr(0, kCommitDomain.size() - 1)}},
    {"the domain string is left out", {.domain = ""}},
    {"the match id is hashed as its hex text, not its 16 bytes",
     {.match_id_as_hex = true}},
    {"the match id is hashed as its upper-case hex text, not its 16 bytes",
     {.match_id_as_hex = true, .upper_case_hex = true}},
    {"the seat is written little-endian, not u32be",
     {.seat_little_endian = true}},
    {"the decision id is written little-endian, not u64be",
     {.decision_little_endian = true}},
    {"the seat and the decision id are written little-endian, not u32be and "
     "u64be",
     {.seat_little_endian = true, .decision_little_endian = true}},
    {"the seat is written in 8 bytes, not 4", {.seat_bytes = 8}},
    {"the decision id is written in 4 bytes, not 8", {.decision_bytes = 4}},
    {"it names the seat one above this one (seats count from 0)",
     {.seat_off_by = 1}},
    {"it names the seat one below this one (seats count from 0)",
     {.seat_off_by = -1}},
    {"it names the decision before this one", {.decision_off_by = -1}},
    {"it names the decision after this one", {.decision_off_by = 1}},
    {"the action is hashed before the salt, not after it",
     {.action_before_salt = true}},
};

}  // namespace

std::string CommitmentMistake(std::string_view match_id, uint32_t seat,
                              uint64_t decision_id, std::string_view salt,
                              std::string_view action_bytes,
                              std::string_view commitment) {
  for (const CommitMistake& mistake : kCommitMistakes) {
    const Digest guess = LaidOutCommitment(mistake.layout, match_id, seat,
                                           decision_id, salt, action_bytes);
    if (AsView(guess) == commitment) {
      return absl::StrCat(
          "the commitment is this reveal's hash laid out otherwise: ",
          mistake.said,
          " (the preimage is D_c || match_id || u32be(seat) || "
          "u64be(decision_id) || salt || action_bytes; docs/protocol.md, "
          "\"1. Commit\")");
    }
  }
  return "";
}

std::string CommitSignatureMessage(std::string_view match_id, uint32_t seat,
                                   uint64_t decision_id,
                                   std::string_view commitment) {
  std::string message(kCommitSigDomain);
  message.append(match_id);
  AppendU32Be(message, seat);
  AppendU64Be(message, decision_id);
  message.append(commitment);
  return message;
}

Digest RefereeCommitment(std::string_view match_id,
                         std::string_view referee_contribution) {
  return Sha256({kRefereeSeedDomain, match_id, referee_contribution});
}

Digest DeriveSeed(std::string_view match_id,
                  std::string_view referee_contribution,
                  const std::vector<std::string>& seat_contributions) {
  std::string preimage(kSeedDomain);
  preimage.append(match_id);
  preimage.append(referee_contribution);
  for (const std::string& contribution : seat_contributions) {
    preimage.append(contribution);
  }
  return Sha256(preimage);
}

std::string LogSignatureMessage(std::string_view match_id,
                                uint64_t record_count,
                                std::string_view chain_hash) {
  std::string message(kLogDomain);
  message.append(match_id);
  AppendU64Be(message, record_count);
  message.append(chain_hash);
  return message;
}

}  // namespace pyramid

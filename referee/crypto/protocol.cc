#include "referee/crypto/protocol.h"

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

// The protocol's hashes and signed messages, byte for byte as in
// docs/protocol.md. Writer (referee) and reader (verifier) both use these;
// nothing else in the project builds these preimages.
#ifndef PYRAMID_REFEREE_CRYPTO_PROTOCOL_H_
#define PYRAMID_REFEREE_CRYPTO_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "referee/crypto/bytes.h"

namespace pyramid {

inline constexpr size_t kMatchIdSize = 16;
inline constexpr size_t kSaltSize = 32;
inline constexpr size_t kSeedContributionSize = 32;
// The bound on the seed decision's action in every game (docs/protocol.md,
// "Action size"): an Action whose seed holds the contribution and the log
// header's hash is 70 bytes.
inline constexpr size_t kMaxSeedActionBytes = 96;

// Domain separators: ASCII, each followed by one zero byte.
inline constexpr std::string_view kCommitDomain{"pyramid-referee/commit/v1\0",
                                                26};
inline constexpr std::string_view kCommitSigDomain{
    "pyramid-referee/commit-sig/v1\0", 30};
inline constexpr std::string_view kRefereeSeedDomain{
    "pyramid-referee/referee-seed/v1\0", 32};
inline constexpr std::string_view kSeedDomain{"pyramid-referee/seed/v1\0", 24};
inline constexpr std::string_view kLogDomain{"pyramid-referee/log/v1\0", 23};

// c = SHA-256(D_c || match_id || u32be(seat) || u64be(decision_id) || salt ||
// action_bytes).
Digest CommitmentHash(std::string_view match_id, uint32_t seat,
                      uint64_t decision_id, std::string_view salt,
                      std::string_view action_bytes);

// For a reveal whose commitment hash is not `commitment`: the mistake of a
// hand-written client that does give `commitment` from this reveal's salt
// and action, one departure from the preimage above at a time (the domain's
// zero byte left out or the domain left out, the match id hashed as its hex
// text, a number little-endian or of the other width, the seat or the
// decision one off, salt and action swapped), said in a sentence that ends
// with where the preimage is specified; "" when none of them gives it. For
// the seat's own error message only: the log's fault detail names no guess.
std::string CommitmentMistake(std::string_view match_id, uint32_t seat,
                              uint64_t decision_id, std::string_view salt,
                              std::string_view action_bytes,
                              std::string_view commitment);

// The exact bytes a seat key signs for a commitment:
// D_s || match_id || u32be(seat) || u64be(decision_id) || c.
std::string CommitSignatureMessage(std::string_view match_id, uint32_t seat,
                                   uint64_t decision_id,
                                   std::string_view commitment);

// SHA-256(D_rc || match_id || referee_contribution).
Digest RefereeCommitment(std::string_view match_id,
                         std::string_view referee_contribution);

// SHA-256(D_r || match_id || referee_contribution || seat_0 || ... || seat_n).
Digest DeriveSeed(std::string_view match_id,
                  std::string_view referee_contribution,
                  const std::vector<std::string>& seat_contributions);

// The exact bytes the referee key signs in a checkpoint or the seal:
// D_l || match_id || u64be(record_count) || chain_hash.
std::string LogSignatureMessage(std::string_view match_id,
                                uint64_t record_count,
                                std::string_view chain_hash);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CRYPTO_PROTOCOL_H_

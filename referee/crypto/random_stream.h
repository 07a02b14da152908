// The match's random stream (docs/test-vectors.md, "Random stream"): the
// ChaCha20 keystream (IETF, RFC 8439) under key = seed, nonce = 0, block
// counter from 0, read as little-endian u64 words. Every random draw of every
// game comes from here and nowhere else.
#ifndef PYRAMID_REFEREE_CRYPTO_RANDOM_STREAM_H_
#define PYRAMID_REFEREE_CRYPTO_RANDOM_STREAM_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "referee/crypto/bytes.h"

namespace pyramid {

class RandomStream {
 public:
  // A stream keyed by `seed` (32 bytes).
  explicit RandomStream(const Digest& seed);

  RandomStream(const RandomStream&) = default;
  RandomStream& operator=(const RandomStream&) = default;

  // The next keystream word, little-endian.
  uint64_t NextWord();

  // Uniform in [0, n), n >= 1: draws words until one is below
  // 2^64 - (2^64 mod n) and returns it mod n. Always draws at least one word.
  uint64_t Uniform(uint64_t n);

  // Fisher-Yates: for i = n-1 down to 1, j = Uniform(i+1), swap items i, j.
  template <typename T>
  void Shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i-- > 1;) {
      size_t j = static_cast<size_t>(Uniform(i + 1));
      std::swap(items[i], items[j]);
    }
  }

 private:
  void Refill();

  static constexpr int kBlocksPerRefill = 4;
  static constexpr int kWordsPerRefill = kBlocksPerRefill * 8;

  Digest key_;
  uint32_t next_block_ = 0;
  int next_word_ = kWordsPerRefill;
  std::array<uint64_t, kWordsPerRefill> words_{};
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CRYPTO_RANDOM_STREAM_H_

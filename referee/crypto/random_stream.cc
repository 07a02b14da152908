#include "referee/crypto/random_stream.h"

#include <sodium.h>

#include <cstdlib>

namespace pyramid {

RandomStream::RandomStream(const Digest& seed) : key_(seed) {}

void RandomStream::Refill() {
  static_assert(crypto_stream_chacha20_ietf_KEYBYTES == 32);
  unsigned char bytes[kWordsPerRefill * 8] = {};
  const unsigned char nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
  // XOR of zeros with the keystream is the keystream, starting at block
  // `next_block_` of the RFC 8439 block counter.
  crypto_stream_chacha20_ietf_xor_ic(bytes, bytes, sizeof(bytes), nonce,
                                     next_block_, key_.data());
  next_block_ += kBlocksPerRefill;
  for (int i = 0; i < kWordsPerRefill; ++i) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = (word << 8) | bytes[i * 8 + b];
    words_[i] = word;
  }
  next_word_ = 0;
}

uint64_t RandomStream::NextWord() {
  if (next_word_ == kWordsPerRefill) Refill();
  return words_[next_word_++];
}

uint64_t RandomStream::Uniform(uint64_t n) {
  if (n == 0) std::abort();  // A caller bug: there is nothing to choose.
  // 2^64 mod n, computed without 128-bit arithmetic.
  const uint64_t remainder = (0 - n) % n;
  const uint64_t limit = 0 - remainder;  // 2^64 - remainder (0 means 2^64).
  while (true) {
    uint64_t word = NextWord();
    if (limit == 0 || word < limit) return word % n;
  }
}

}  // namespace pyramid

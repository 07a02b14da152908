// Small helpers for fixed-size byte strings and hex.
#ifndef PYRAMID_REFEREE_CRYPTO_BYTES_H_
#define PYRAMID_REFEREE_CRYPTO_BYTES_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pyramid {

// A SHA-256 digest.
using Digest = std::array<uint8_t, 32>;

// Views any contiguous byte array as a string_view (no copy).
template <size_t N>
std::string_view AsView(const std::array<uint8_t, N>& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), N);
}

// Copies `bytes` into `out` when it is exactly a digest long; false (and
// `out` unchanged) otherwise.
bool DigestFromBytes(std::string_view bytes, Digest* out);

// Lower-case hex of `bytes`.
std::string ToHex(std::string_view bytes);

// Parses hex (either case, even length, no prefix or separators).
absl::StatusOr<std::string> FromHex(std::string_view hex);

// `n` bytes from the operating system's cryptographic randomness.
std::string SystemRandomBytes(size_t n);

// Appends big-endian encodings (the protocol's u32be / u64be).
void AppendU32Be(std::string& out, uint32_t value);
void AppendU64Be(std::string& out, uint64_t value);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CRYPTO_BYTES_H_

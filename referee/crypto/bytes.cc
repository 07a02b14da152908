#include "referee/crypto/bytes.h"

#include <sodium.h>

#include <cstdlib>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"

namespace pyramid {

bool DigestFromBytes(std::string_view bytes, Digest* out) {
  if (bytes.size() != out->size()) return false;
  std::memcpy(out->data(), bytes.data(), out->size());
  return true;
}

std::string ToHex(std::string_view bytes) {
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

absl::StatusOr<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) {
    return absl::InvalidArgumentError("hex string has an odd length");
  }
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError("hex string has a non-hex character");
    }
  }
  return absl::HexStringToBytes(absl::string_view(hex.data(), hex.size()));
}

std::string SystemRandomBytes(size_t n) {
  if (sodium_init() < 0) std::abort();
  std::string bytes(n, '\0');
  randombytes_buf(bytes.data(), n);
  return bytes;
}

void AppendU32Be(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void AppendU64Be(std::string& out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

}  // namespace pyramid

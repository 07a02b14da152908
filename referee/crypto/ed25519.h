// Ed25519 (RFC 8032, pure) through libsodium, and the key-file format.
//
// Key files hold lower-case hex and one trailing newline: a secret key file
// holds the 32-byte seed (64 hex digits), a public key file the 32-byte
// public key. Both formats are documented in docs/protocol.md.
#ifndef PYRAMID_REFEREE_CRYPTO_ED25519_H_
#define PYRAMID_REFEREE_CRYPTO_ED25519_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pyramid {

inline constexpr size_t kPublicKeySize = 32;
inline constexpr size_t kSignatureSize = 64;
inline constexpr size_t kKeySeedSize = 32;

// An Ed25519 key pair. Copyable; the secret never leaves the object except
// through seed() (for writing a key file).
class SigningKey {
 public:
  // A fresh key from the operating system's randomness.
  static SigningKey Generate();
  // The key whose RFC 8032 seed is `seed` (32 bytes).
  static absl::StatusOr<SigningKey> FromSeed(std::string_view seed);

  // Raw 32-byte public key.
  std::string public_key() const;
  std::string seed() const;

  // 64-byte detached signature over `message`.
  std::string Sign(std::string_view message) const;

 private:
  SigningKey() = default;
  std::array<uint8_t, 64> secret_{};  // libsodium layout: seed || public key.
};

// True iff `signature` is a valid Ed25519 signature of `message` by
// `public_key`. Wrong sizes are simply invalid.
bool VerifySignature(std::string_view public_key, std::string_view message,
                     std::string_view signature);

// True iff `public_key` is one VerifySignature can ever accept a signature
// by: 32 bytes, the canonical encoding of a point, not of small order
// (libsodium's crypto_sign_verify_detached refuses any other key before
// looking at the signature; docs/log-format.md, "Ed25519"), and in the
// prime-order subgroup, as every key made from a seed is
// (crypto_core_ed25519_is_valid_point). A key refused here can sign nothing
// a verifier takes.
bool IsValidPublicKey(std::string_view public_key);

// Writes `key`'s seed to `path` (mode 0600, refuses to overwrite) and the
// public key to `path` + ".pub" (mode 0644).
absl::Status WriteKeyFiles(const std::string& path, const SigningKey& key);
// Reads a secret key file written by WriteKeyFiles. A key file is read as
// referee/files/bounded_read.h says: a regular file or a pipe or FIFO
// (`--key_file=<(pass show bot-key)`, read to its end however long its
// writer takes), at most 4 KiB; a FIFO nobody writes reads as empty (and
// is refused as holding no key); a device is refused. A path ending in
// ".pub" is refused (a public key file holds 64 hex digits too), and so is
// a key whose PATH.pub, a regular file beside it holding a valid public
// key, holds another key than its public half (a mismatched pair).
absl::StatusOr<SigningKey> ReadSigningKey(const std::string& path);
// Parses a public key given as 64 hex digits or as the path of a file
// holding them (read as ReadSigningKey reads its file).
absl::StatusOr<std::string> ParsePublicKey(std::string_view hex_or_path);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CRYPTO_ED25519_H_

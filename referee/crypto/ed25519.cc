#include "referee/crypto/ed25519.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/crypto/bytes.h"
#include "referee/files/bounded_read.h"

namespace pyramid {
namespace {

void EnsureSodium() {
  static const bool ok = sodium_init() >= 0;
  if (!ok) std::abort();
}

absl::Status WriteNewFile(const std::string& path, std::string_view contents,
                          mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  fchmod(fd, mode);  // Not subject to the umask.
  ssize_t written = write(fd, contents.data(), contents.size());
  bool ok = written == static_cast<ssize_t>(contents.size()) && fsync(fd) == 0;
  close(fd);
  if (!ok) {
    unlink(path.c_str());  // Ours (O_EXCL): leave no partial key file.
    return absl::InternalError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

// Whether `text` is exactly `bytes` bytes in hex (what FromHex then takes).
// Checked before FromHex, whose result is then returned as it is: moving a
// StatusOr<std::string> out of a local makes GCC 12 warn at -O3
// (-Warray-bounds, wrongly).
bool AllHexDigits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isxdigit(static_cast<unsigned char>(c));
  });
}

bool IsHexOf(std::string_view text, size_t bytes) {
  return text.size() == 2 * bytes && AllHexDigits(text);
}

// What a key's text holds instead of the hex digits expected: said so that
// a mistake (a truncated copy, a "0x", a binary file) is plain to see.
std::string Described(std::string_view text) {
  if (text.empty()) return "nothing";
  if (AllHexDigits(text)) return absl::StrCat(text.size(), " of them");
  return absl::StrCat(text.size(), " characters, not all hex digits");
}

absl::StatusOr<std::string> ReadHexFile(const std::string& path,
                                        size_t expected_bytes) {
  // A key file is a line of hex digits: anything much larger is not one,
  // and is refused unread (a hostile path must not make the reader hold
  // gigabytes). A regular file, or a pipe or FIFO (`--key_file=<(pass show
  // bot-key)`) read to its end however long its writer takes (a passphrase
  // typed), at most the bound; a FIFO nobody writes reads as empty instead
  // of being waited on. A device or socket is refused.
  constexpr size_t kMaxBytes = 4096;
  absl::StatusOr<std::string> buffer = ReadBoundedFile(
      path, BoundedRead{.max_bytes = kMaxBytes,
                        .pipes = true,
                        .no_writer = BoundedRead::NoWriter::kEmpty,
                        .over_size = absl::StrCat(
                            "the ", kMaxBytes, " a key file holds (not read)"),
                        .over_stream = absl::StrCat(
                            "the ", kMaxBytes, " bytes a key file holds")});
  if (!buffer.ok()) return buffer.status();
  std::string text(absl::StripAsciiWhitespace(*buffer));
  if (!IsHexOf(text, expected_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected ", expected_bytes * 2,
                     " hex digits, found ", Described(text)));
  }
  return FromHex(text);
}

}  // namespace

SigningKey SigningKey::Generate() {
  EnsureSodium();
  std::string seed(kKeySeedSize, '\0');
  randombytes_buf(seed.data(), seed.size());
  SigningKey key = *FromSeed(seed);
  sodium_memzero(seed.data(), seed.size());
  return key;
}

absl::StatusOr<SigningKey> SigningKey::FromSeed(std::string_view seed) {
  EnsureSodium();
  if (seed.size() != kKeySeedSize) {
    return absl::InvalidArgumentError("an Ed25519 seed is 32 bytes");
  }
  SigningKey key;
  unsigned char public_key[kPublicKeySize];
  crypto_sign_seed_keypair(public_key, key.secret_.data(),
                           reinterpret_cast<const unsigned char*>(seed.data()));
  return key;
}

std::string SigningKey::public_key() const {
  return std::string(reinterpret_cast<const char*>(secret_.data()) + 32, 32);
}

std::string SigningKey::seed() const {
  return std::string(reinterpret_cast<const char*>(secret_.data()), 32);
}

std::string SigningKey::Sign(std::string_view message) const {
  std::string signature(kSignatureSize, '\0');
  crypto_sign_detached(reinterpret_cast<unsigned char*>(signature.data()),
                       nullptr,
                       reinterpret_cast<const unsigned char*>(message.data()),
                       message.size(), secret_.data());
  return signature;
}

bool VerifySignature(std::string_view public_key, std::string_view message,
                     std::string_view signature) {
  EnsureSodium();
  if (public_key.size() != kPublicKeySize ||
      signature.size() != kSignatureSize) {
    return false;
  }
  return crypto_sign_verify_detached(
             reinterpret_cast<const unsigned char*>(signature.data()),
             reinterpret_cast<const unsigned char*>(message.data()),
             message.size(),
             reinterpret_cast<const unsigned char*>(public_key.data())) == 0;
}

bool IsValidPublicKey(std::string_view public_key) {
  EnsureSodium();
  return public_key.size() == kPublicKeySize &&
         crypto_core_ed25519_is_valid_point(
             reinterpret_cast<const unsigned char*>(public_key.data())) == 1;
}

absl::Status WriteKeyFiles(const std::string& path, const SigningKey& key) {
  absl::Status status =
      WriteNewFile(path, absl::StrCat(ToHex(key.seed()), "\n"), 0600);
  if (!status.ok()) return status;
  status = WriteNewFile(path + ".pub",
                        absl::StrCat(ToHex(key.public_key()), "\n"), 0644);
  // No secret key without its public key file: a retry must not find a
  // stray secret (which it would refuse to overwrite).
  if (!status.ok()) unlink(path.c_str());
  return status;
}

absl::StatusOr<SigningKey> ReadSigningKey(const std::string& path) {
  // A public key file holds 64 hex digits too: read as a seed it would
  // sign with a "secret" anyone has (keygen and the tournament runner
  // publish it).
  if (path.ends_with(".pub")) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     " is a public key file (.pub): give the secret key file "
                     "(keygen writes it without .pub)"));
  }
  absl::StatusOr<std::string> seed = ReadHexFile(path, kKeySeedSize);
  if (!seed.ok()) return seed.status();
  absl::StatusOr<SigningKey> key = SigningKey::FromSeed(*seed);
  if (!key.ok()) return key.status();
  // PATH.pub beside it (as WriteKeyFiles writes it) must be its public
  // half: another key there is a mismatched pair, or PATH itself a copy of
  // a public key. Only a regular file is looked at (a FIFO would be waited
  // on); one that is not a well-formed key is not this check's business.
  const std::string sibling = path + ".pub";
  std::error_code error;
  if (std::filesystem::is_regular_file(sibling, error)) {
    absl::StatusOr<std::string> published =
        ReadHexFile(sibling, kPublicKeySize);
    if (published.ok() && IsValidPublicKey(*published) &&
        *published != key->public_key()) {
      if (*published == *seed) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, " holds the public key that ", sibling,
            " holds, not a secret key: give the secret key file (the one "
            "keygen wrote beside ",
            sibling, ")"));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          sibling, ", next to it, holds another public key than ", path,
          "'s: the key in ", path,
          " is not its secret half; give the secret key that matches ", sibling,
          ", or remove or replace ", sibling,
          " (keygen writes a matching pair)"));
    }
  }
  return key;
}

absl::StatusOr<std::string> ParsePublicKey(std::string_view hex_or_path) {
  if (IsHexOf(hex_or_path, kPublicKeySize)) return FromHex(hex_or_path);
  // Hex digits alone (at least half a key's), of another length, and no
  // such file: a key given inline and cut short or run on, not a path.
  std::error_code error;
  if (hex_or_path.size() >= kPublicKeySize && AllHexDigits(hex_or_path) &&
      !std::filesystem::exists(std::string(hex_or_path), error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a public key is ", 2 * kPublicKeySize,
        " hex digits (or the path of a file holding them); this one has ",
        hex_or_path.size()));
  }
  return ReadHexFile(std::string(hex_or_path), kPublicKeySize);
}

}  // namespace pyramid

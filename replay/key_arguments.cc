#include "replay/key_arguments.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/files/bounded_read.h"
#include "referee/tlog/note.h"
#include "referee/tlog/text.h"
#include "replay/seat_roster.h"

namespace pyramid {
namespace {

// A key file's text (the header's contract): a regular file or a pipe,
// as crypto reads a key file.
absl::StatusOr<std::string> ReadKeyFile(const std::string& path) {
  return ReadBoundedFile(path,
                         BoundedRead{.max_bytes = kMaxKeyArgumentFileBytes,
                                     .pipes = true,
                                     .idle_ms = SeatRoster::kPipeIdleMs});
}

// Whether `status`, of ReadKeyFile, says that there is no file to read
// (none, a directory, a device, a FIFO with no writer, or a name no file
// can have): the value may be a key then.
bool NoFileToRead(const absl::Status& status) {
  return absl::IsNotFound(status) || absl::IsFailedPrecondition(status);
}

// A key given as text, or as the path of a file holding it (the header's
// contract); `parse` parses the text of a key. `from_file`: whether it was
// read from a file.
absl::StatusOr<std::string> ParseKeyArgument(
    std::string_view value,
    absl::StatusOr<std::string> (*parse)(std::string_view),
    bool* from_file = nullptr) {
  if (from_file != nullptr) *from_file = false;
  // A key is the key, whatever file bears its name: a file named after the
  // key an auditor pins, planted where the logs are checked, would
  // otherwise pin the key it holds.
  absl::StatusOr<std::string> key = parse(value);
  if (key.ok()) return key;
  const std::string path(value);
  const absl::StatusOr<std::string> text = ReadKeyFile(path);
  if (text.ok()) {
    if (from_file != nullptr) *from_file = true;
    const absl::string_view stripped = absl::StripAsciiWhitespace(*text);
    absl::StatusOr<std::string> read =
        parse(std::string_view(stripped.data(), stripped.size()));
    if (!read.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", read.status().message()));
    }
    return read;
  }
  // A file that is there but cannot be read whole (too large, not ours).
  if (!NoFileToRead(text.status())) return text.status();
  // A verifier key holds '+' (and its origin often '/'); a hex key neither.
  const bool looks_like_path = value.ends_with(".vkey") ||
                               value.ends_with(".pub") ||
                               (value.find('/') != std::string_view::npos &&
                                value.find('+') == std::string_view::npos);
  if (!looks_like_path) {
    return absl::InvalidArgumentError(
        absl::StrCat(key.status().message(), " (and no file has that name)"));
  }
  return absl::NotFoundError(text.status().message());
}

// Checked before FromHex, whose result is then returned as it is: moving a
// StatusOr<std::string> out of a local makes GCC 12 warn at -O3
// (-Warray-bounds, wrongly; as in referee/crypto/ed25519.cc).
absl::StatusOr<std::string> ParseRawKey(std::string_view text) {
  if (text.size() != 2 * kPublicKeySize ||
      !std::all_of(text.begin(), text.end(), [](char c) {
        return absl::ascii_isxdigit(static_cast<unsigned char>(c));
      })) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad referee key \"", tlog::ToAbsl(text),
                     "\": want 64 hex digits (its Ed25519 public key)"));
  }
  return FromHex(text);
}

absl::StatusOr<std::string> ParseVerifierKeyText(std::string_view text) {
  absl::Status status = tlog::ParseVerifierKey(text).status();
  if (!status.ok()) return status;
  return std::string(text);
}

}  // namespace

absl::StatusOr<std::string> ParseRefereeKeyArgument(std::string_view value) {
  bool from_file = false;
  absl::StatusOr<std::string> key =
      ParseKeyArgument(value, ParseRawKey, &from_file);
  if (!key.ok() || !from_file) return key;
  // A secret key file holds its seed as 64 hex digits too, beside
  // FILE.pub (keygen, the referee's DATA_DIR/referee.key): taken for a
  // public key it would pin a key no log has, and be printed as one.
  const std::string path(value);
  if (const absl::StatusOr<std::string> text = ReadKeyFile(path + ".pub");
      text.ok()) {
    const absl::string_view stripped = absl::StripAsciiWhitespace(*text);
    absl::StatusOr<std::string> pub =
        ParseRawKey(std::string_view(stripped.data(), stripped.size()));
    absl::StatusOr<SigningKey> secret = SigningKey::FromSeed(*key);
    if (pub.ok() && secret.ok() && secret->public_key() == *pub) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " holds a secret key; give the public key (", path, ".pub)"));
    }
  }
  return key;
}

absl::StatusOr<std::string> ParseVerifierKeyArgument(std::string_view value) {
  return ParseKeyArgument(value, ParseVerifierKeyText);
}

}  // namespace pyramid

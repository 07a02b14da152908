#include "replay/key_arguments.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/tlog/note.h"
#include "referee/tlog/text.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

// A key given as text, or as the path of a file holding it (the header's
// contract); `parse` parses the text of a key.
absl::StatusOr<std::string> ParseKeyArgument(
    std::string_view value,
    absl::StatusOr<std::string> (*parse)(std::string_view)) {
  const std::string path(value);
  std::error_code error;
  if (fs::is_regular_file(path, error)) {
    absl::StatusOr<std::string> text = ReadFileToString(path);
    if (!text.ok()) return text.status();
    const absl::string_view stripped = absl::StripAsciiWhitespace(*text);
    absl::StatusOr<std::string> key =
        parse(std::string_view(stripped.data(), stripped.size()));
    if (!key.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", key.status().message()));
    }
    return key;
  }
  absl::StatusOr<std::string> key = parse(value);
  if (key.ok()) return key;
  // A verifier key holds '+' (and its origin often '/'); a hex key neither.
  const bool looks_like_path = value.ends_with(".vkey") ||
                               value.ends_with(".pub") ||
                               (value.find('/') != std::string_view::npos &&
                                value.find('+') == std::string_view::npos);
  if (!looks_like_path) {
    return absl::InvalidArgumentError(
        absl::StrCat(key.status().message(), " (and no file has that name)"));
  }
  std::string why = "not a regular file";
  const fs::file_status status = fs::status(path, error);
  if (error) {
    why = error.message();
  } else if (fs::is_directory(status)) {
    why = "it is a directory";
  }
  return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", why));
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
  absl::StatusOr<std::string> key = ParseKeyArgument(value, ParseRawKey);
  if (!key.ok()) return key;
  // A secret key file holds its seed as 64 hex digits too, beside
  // FILE.pub (keygen, the referee's DATA_DIR/referee.key): taken for a
  // public key it would pin a key no log has, and be printed as one.
  const std::string path(value);
  std::error_code error;
  if (fs::is_regular_file(path, error) &&
      fs::is_regular_file(path + ".pub", error)) {
    absl::StatusOr<std::string> pub = ParsePublicKey(path + ".pub");
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

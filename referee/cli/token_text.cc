#include "referee/cli/token_text.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"

namespace pyramid {

absl::StatusOr<std::string> TokenFromText(absl::string_view text,
                                          absl::string_view source) {
  const absl::string_view token = absl::StripAsciiWhitespace(text);
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, " holds no token"));
  }
  for (const char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          source,
          " does not hold a token: a token is printable ASCII without spaces "
          "(a referee's look like 0123456789abcdef.<64 hex digits>)"));
    }
  }
  return std::string(token);
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return TokenFromText(*text, path);
}

absl::StatusOr<FoundAdminToken> FindAdminToken(
    const std::string& named_file, absl::string_view named_label,
    const std::string& default_file) {
  FoundAdminToken found;
  if (!named_file.empty()) {
    absl::StatusOr<std::string> token = ReadTokenFile(named_file);
    if (!token.ok()) {
      return absl::Status(
          token.status().code(),
          absl::StrCat(named_label, ": ", token.status().message()));
    }
    found.from = FoundAdminToken::From::kNamedFile;
    found.token = *std::move(token);
    found.source = named_file;
    return found;
  }
  const std::string variable = absl::StrCat("$", kAdminTokenVariable);
  if (const char* env = std::getenv(kAdminTokenVariable);
      env != nullptr && *env != '\0') {
    absl::StatusOr<std::string> token = TokenFromText(env, variable);
    if (!token.ok()) return token.status();
    found.from = FoundAdminToken::From::kEnvironment;
    found.token = *std::move(token);
    found.source = variable;
    return found;
  }
  // A file that is there but cannot be read is an error (ReadTokenFile's),
  // not "none": only its absence is.
  std::error_code error;
  if (default_file.empty() ||
      !std::filesystem::exists(
          std::filesystem::symlink_status(default_file, error))) {
    return found;
  }
  absl::StatusOr<std::string> token = ReadTokenFile(default_file);
  if (!token.ok()) return token.status();
  found.from = FoundAdminToken::From::kDefaultFile;
  found.token = *std::move(token);
  found.source = default_file;
  return found;
}

}  // namespace pyramid

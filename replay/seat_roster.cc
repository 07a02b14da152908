#include "replay/seat_roster.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/files/bounded_read.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kNone = "none";

bool AllHexDigits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isxdigit(static_cast<unsigned char>(c));
  });
}

// A key as the roster (and `replay show`) writes it: 64 hex digits, or
// "none".
std::string KeyText(const std::string& key) {
  return key.empty() ? std::string(kNone) : ToHex(key);
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// The fields of one roster line (without its newline), a quoted one
// unescaped, up to a comment; INVALID_ARGUMENT for a quoted field cut
// short or with a bad escape.
absl::StatusOr<std::vector<std::string>> SplitFields(absl::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') break;
    if (line[i] != '"') {
      const size_t start = i;
      while (i < line.size() && !IsBlank(line[i])) ++i;
      fields.emplace_back(line.substr(start, i - start));
      continue;
    }
    const size_t open = i;
    size_t close = open + 1;
    while (close < line.size() && line[close] != '"') {
      close += line[close] == '\\' ? 2 : 1;
    }
    if (close >= line.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the quoted field at column ", open + 1, " has no closing quote"));
    }
    std::string field;
    std::string why;
    if (!absl::CUnescape(line.substr(open + 1, close - open - 1), &field,
                         &why)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the quoted field at column ", open + 1, ": ", why));
    }
    i = close + 1;
    if (i < line.size() && !IsBlank(line[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "want a blank after the quoted field at column ", open + 1, ", not '",
          absl::CHexEscape(line.substr(i, 1)), "'"));
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

// A key file the roster names: a regular file of a few bytes.
absl::StatusOr<std::string> ReadKeyFile(const std::string& path) {
  return ReadBoundedFile(
      path, BoundedRead{.max_bytes = SeatRoster::kMaxKeyFileBytes});
}

// The public key in the text of the key file `path`: 64 hex digits, with
// whitespace around them.
absl::StatusOr<std::string> PublicKeyIn(const std::string& path,
                                        std::string_view text) {
  const std::string hex(
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size())));
  if (hex.size() != 2 * kPublicKeySize || !AllHexDigits(hex)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": expected ", 2 * kPublicKeySize, " hex digits, found ",
        hex.empty() ? std::string("nothing")
        : AllHexDigits(hex)
            ? absl::StrCat(hex.size(), " of them")
            : absl::StrCat(hex.size(), " characters, not all hex digits")));
  }
  return FromHex(hex);
}

// The public key in the file `field` names (relative to `directory`), read
// through ReadKeyFile (a regular file, at most kMaxKeyFileBytes); a
// secret key file beside its FILE.pub (both keygen's) is refused, naming
// the public one, as `replay --key` does.
absl::StatusOr<std::string> KeyFromFile(std::string_view field,
                                        std::string_view directory) {
  fs::path path{std::string(field)};
  if (path.is_relative() && !directory.empty()) {
    path = fs::path(std::string(directory)) / path;
  }
  absl::StatusOr<std::string> text = ReadKeyFile(path.string());
  if (absl::IsNotFound(text.status()) ||
      absl::IsFailedPrecondition(text.status())) {
    // Perhaps meant as a key: say what a key is.
    return absl::InvalidArgumentError(absl::StrCat(
        "bad key \"", absl::Utf8SafeCHexEscape(std::string(field)),
        "\": want 64 hex digits (the bot's Ed25519 public key), none, or "
        "the path of a file holding them (",
        absl::IsNotFound(text.status())
            ? absl::StrCat("no file ", path.string())
            : std::string(text.status().message()),
        ")"));
  }
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> key = PublicKeyIn(path.string(), *text);
  if (!key.ok()) return key;
  const std::string pub = path.string() + ".pub";
  if (absl::StatusOr<std::string> beside_text = ReadKeyFile(pub);
      beside_text.ok()) {
    absl::StatusOr<std::string> beside = PublicKeyIn(pub, *beside_text);
    absl::StatusOr<SigningKey> secret = SigningKey::FromSeed(*key);
    if (beside.ok() && secret.ok() && secret->public_key() == *beside) {
      return absl::InvalidArgumentError(
          absl::StrCat(path.string(),
                       " holds a secret key; give the public "
                       "key (",
                       pub, ")"));
    }
  }
  return key;
}

// The key a roster line gives in `field` (raw 32 bytes, or "" for none).
absl::StatusOr<std::string> ParseKeyField(std::string_view field,
                                          std::string_view directory) {
  if (field == kNone) return std::string();
  if (field.size() == 2 * kPublicKeySize && AllHexDigits(field)) {
    return FromHex(field);
  }
  if (AllHexDigits(field) && field.size() >= kPublicKeySize) {
    // Hex digits alone, of another length: a key cut short or run on.
    return absl::InvalidArgumentError(absl::StrCat(
        "bad key: ", field.size(),
        " hex digits; a public key is 64 (the bot's Ed25519 public key)"));
  }
  return KeyFromFile(field, directory);
}

}  // namespace

absl::StatusOr<SeatRoster> SeatRoster::Parse(std::string_view text,
                                             std::string_view directory) {
  SeatRoster roster;
  std::map<std::string, size_t> line_of;  // Where each name was listed.
  size_t number = 0;
  for (const absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    auto error = [number](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": ", why));
    };
    absl::StatusOr<std::vector<std::string>> split = SplitFields(line);
    if (!split.ok()) return error(std::string(split.status().message()));
    const std::vector<std::string>& fields = *split;
    if (fields.empty()) continue;
    if (fields.size() != 2) {
      return error(absl::StrCat(
          "want NAME KEY (KEY: 64 hex digits, a file holding them, or none), "
          "not ",
          fields.size(), " fields"));
    }
    const std::string& name = fields[0];
    absl::StatusOr<std::string> key = ParseKeyField(fields[1], directory);
    if (!key.ok()) {
      return error(absl::StrCat(absl::Utf8SafeCHexEscape(name), ": ",
                                key.status().message()));
    }
    if (const auto [it, added] = line_of.emplace(name, number); !added) {
      return error(absl::StrCat(absl::Utf8SafeCHexEscape(name),
                                " is listed twice (first on line ", it->second,
                                ")"));
    }
    roster.keys_.emplace(name, *std::move(key));
  }
  if (roster.keys_.empty()) {
    return absl::InvalidArgumentError(
        "names no bot (want a line NAME KEY per bot)");
  }
  return roster;
}

absl::StatusOr<SeatRoster> SeatRoster::ReadFile(const std::string& path) {
  absl::StatusOr<std::string> text =
      ReadBoundedFile(path, BoundedRead{.max_bytes = kMaxFileBytes,
                                        .pipes = true,
                                        .idle_ms = kPipeIdleMs});
  if (!text.ok()) return text.status();
  absl::StatusOr<SeatRoster> roster =
      Parse(*text, fs::path(path).parent_path().string());
  if (!roster.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " ", roster.status().message()));
  }
  return roster;
}

std::string SeatRoster::SeatsDiffer(const referee::v1::Header& header) const {
  for (int i = 0; i < header.seats_size(); ++i) {
    const referee::v1::Seat& seat = header.seats(i);
    const std::string seat_name = absl::StrCat(
        "seat ", i, " \"", absl::Utf8SafeCHexEscape(seat.name()), "\"");
    const auto it = keys_.find(seat.name());
    if (it == keys_.end()) {
      return absl::StrCat(seat_name, " (key ", KeyText(seat.public_key()),
                          " in the header) is not in the roster");
    }
    if (it->second != seat.public_key()) {
      return absl::StrCat(seat_name, " has key ", KeyText(seat.public_key()),
                          " in the header; the roster's is ",
                          KeyText(it->second));
    }
  }
  return "";
}

bool JudgeSeats(const SeatRoster& roster, Verdict& verdict) {
  if (verdict.kind == Verdict::Kind::kNotGenuine) return false;
  std::string differs = roster.SeatsDiffer(verdict.header);
  if (differs.empty()) return true;
  verdict.kind = Verdict::Kind::kNotGenuine;
  verdict.bad_record = 0;
  verdict.signature_failed = false;
  verdict.reason = std::move(differs);
  return false;
}

}  // namespace pyramid

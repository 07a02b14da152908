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
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"

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

// The public key in the file `field` names (relative to `directory`): as
// ParsePublicKey reads it, but a secret key file beside its FILE.pub (both
// keygen's) is refused, naming the public one, as `replay --key` does.
absl::StatusOr<std::string> KeyFromFile(std::string_view field,
                                        std::string_view directory) {
  fs::path path{std::string(field)};
  if (path.is_relative() && !directory.empty()) {
    path = fs::path(std::string(directory)) / path;
  }
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    const bool there = fs::exists(path, error) || error;
    return absl::InvalidArgumentError(absl::StrCat(
        "bad key \"", absl::Utf8SafeCHexEscape(std::string(field)),
        "\": want 64 hex digits (the bot's Ed25519 public key), none, or "
        "the path of a file holding them (",
        there ? absl::StrCat(path.string(), " is not a regular file")
              : absl::StrCat("no file ", path.string()),
        ")"));
  }
  absl::StatusOr<std::string> key = ParsePublicKey(path.string());
  if (!key.ok()) return key;
  const std::string pub = path.string() + ".pub";
  if (fs::is_regular_file(pub, error)) {
    absl::StatusOr<std::string> beside = ParsePublicKey(pub);
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
    std::vector<std::string_view> fields;
    for (const absl::string_view field : absl::StrSplit(
             line, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty())) {
      if (field.front() == '#') break;  // A comment to the end of the line.
      fields.emplace_back(field.data(), field.size());
    }
    if (fields.empty()) continue;
    auto error = [number](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": ", why));
    };
    if (fields.size() != 2) {
      return error(absl::StrCat(
          "want NAME KEY (KEY: 64 hex digits, a file holding them, or none), "
          "not ",
          fields.size(), " fields"));
    }
    const std::string name(fields[0]);
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
  std::error_code error;
  if (fs::is_directory(path, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", path, ": it is a directory"));
  }
  absl::StatusOr<std::string> text = ReadFileToString(path, kMaxFileBytes);
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

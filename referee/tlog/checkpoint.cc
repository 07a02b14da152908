#include "referee/tlog/checkpoint.h"

#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "referee/tlog/text.h"

namespace pyramid::tlog {

namespace {
constexpr std::string_view kRefereeOriginPrefix = "pyramid-referee/";
}  // namespace

std::string RefereeOrigin(std::string_view public_key) {
  return std::string(kRefereeOriginPrefix) + ToHex(public_key).substr(0, 16);
}

std::string_view RefereeKeyPrefixOf(std::string_view origin) {
  if (!origin.starts_with(kRefereeOriginPrefix) ||
      origin.size() != kRefereeOriginPrefix.size() + 16) {
    return {};
  }
  const std::string_view hex = origin.substr(kRefereeOriginPrefix.size());
  for (const char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
  }
  return hex;
}

bool NamesAnotherRefereeKey(std::string_view origin,
                            std::string_view public_key) {
  return origin.starts_with(kRefereeOriginPrefix) &&
         origin != RefereeOrigin(public_key);
}

namespace {

constexpr std::string_view kProofHeader = "c2sp.org/tlog-proof@v1";
constexpr std::string_view kConsistencyHeader =
    "pyramid-referee/tlog-consistency@v1";

absl::StatusOr<Digest> ParseHash(std::string_view line) {
  absl::StatusOr<std::string> bytes = DecodeBase64Strict(line);
  Digest hash{};
  if (!bytes.ok() || bytes->size() != hash.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", ToAbsl(line),
                     "\" is not the canonical base64 of a 32-byte hash"));
  }
  std::memcpy(hash.data(), bytes->data(), hash.size());
  return hash;
}

std::string EncodeHash(const Digest& hash) {
  return absl::Base64Escape(ToAbsl(AsView(hash)));
}

// Splits text that must end in a newline into its lines.
absl::StatusOr<std::vector<std::string_view>> Lines(std::string_view text,
                                                    std::string_view what) {
  if (std::string cr = CarriageReturnProblem(text); !cr.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(ToAbsl(what), ": ", cr));
  }
  if (text.empty() || text.back() != '\n') {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(what), ": does not end in a newline"));
  }
  return Split(text.substr(0, text.size() - 1), '\n');
}

std::optional<uint64_t> KeyedNumber(std::string_view line,
                                    std::string_view key) {
  if (!line.starts_with(key) || line.substr(key.size(), 1) != " ") {
    return std::nullopt;
  }
  return ParseDecimal(line.substr(key.size() + 1));
}

}  // namespace

std::string FormatCheckpoint(const Checkpoint& checkpoint) {
  return absl::StrCat(checkpoint.origin, "\n", checkpoint.size, "\n",
                      EncodeHash(checkpoint.root), "\n");
}

absl::StatusOr<Checkpoint> ParseCheckpoint(std::string_view text) {
  auto bad = [](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad checkpoint: ", ToAbsl(why)));
  };
  absl::StatusOr<std::vector<std::string_view>> lines =
      Lines(text, "bad checkpoint");
  if (!lines.ok()) return lines.status();
  if (lines->size() < 3) return bad("fewer than three lines");
  for (std::string_view line : *lines) {
    if (line.empty()) return bad("an empty line");
  }
  Checkpoint checkpoint;
  checkpoint.origin = std::string((*lines)[0]);
  std::optional<uint64_t> size = ParseDecimal((*lines)[1]);
  if (!size.has_value()) return bad("the size is not a decimal number");
  checkpoint.size = *size;
  absl::StatusOr<Digest> root = ParseHash((*lines)[2]);
  if (!root.ok()) return bad(absl::StrCat("root: ", root.status().message()));
  checkpoint.root = *root;
  return checkpoint;
}

absl::StatusOr<Checkpoint> OpenCheckpoint(std::string_view note,
                                          const NoteVerifier& verifier) {
  absl::StatusOr<std::string> text = OpenNote(note, verifier);
  if (!text.ok()) return text.status();
  absl::StatusOr<Checkpoint> checkpoint = ParseCheckpoint(*text);
  if (checkpoint.ok() && checkpoint->origin != verifier.name) {
    return absl::InvalidArgumentError(
        absl::StrCat("the checkpoint's origin \"", checkpoint->origin,
                     "\" is not its signer's name \"", verifier.name, "\""));
  }
  return checkpoint;
}

std::string FormatTlogProof(const TlogProof& proof) {
  std::string out = absl::StrCat(ToAbsl(kProofHeader), "\n");
  if (!proof.extra.empty()) {
    absl::StrAppend(&out, "extra ", absl::Base64Escape(proof.extra), "\n");
  }
  absl::StrAppend(&out, "index ", proof.index, "\n");
  for (const Digest& hash : proof.hashes) {
    absl::StrAppend(&out, EncodeHash(hash), "\n");
  }
  absl::StrAppend(&out, "\n", proof.checkpoint);
  return out;
}

absl::StatusOr<TlogProof> ParseTlogProof(std::string_view text) {
  auto bad = [](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad tlog-proof: ", ToAbsl(why)));
  };
  if (std::string cr = CarriageReturnProblem(text); !cr.empty()) return bad(cr);
  // The proof lines end at the first blank line; the checkpoint follows.
  const size_t blank = text.find("\n\n");
  if (blank == std::string_view::npos) return bad("no checkpoint");
  TlogProof proof;
  proof.checkpoint = std::string(text.substr(blank + 2));
  if (proof.checkpoint.empty()) return bad("no checkpoint");
  const std::vector<std::string_view> lines =
      Split(text.substr(0, blank), '\n');
  size_t at = 0;
  if (lines[at] != kProofHeader) {
    return bad(absl::StrCat("the first line is not ", ToAbsl(kProofHeader)));
  }
  ++at;
  if (at < lines.size() && lines[at].starts_with("extra ")) {
    absl::StatusOr<std::string> extra = DecodeBase64Strict(lines[at].substr(6));
    if (!extra.ok() || extra->empty()) return bad("the extra data");
    proof.extra = *extra;
    ++at;
  }
  std::optional<uint64_t> index =
      at < lines.size() ? KeyedNumber(lines[at], "index") : std::nullopt;
  if (!index.has_value()) return bad("no \"index N\" line");
  proof.index = *index;
  for (++at; at < lines.size(); ++at) {
    absl::StatusOr<Digest> hash = ParseHash(lines[at]);
    if (!hash.ok()) return bad(ToStd(hash.status().message()));
    proof.hashes.push_back(*hash);
  }
  if (proof.hashes.size() > 64) return bad("more than 64 proof hashes");
  return proof;
}

std::string FormatConsistencyProof(const ConsistencyProofFile& proof) {
  std::string out =
      absl::StrCat(ToAbsl(kConsistencyHeader), "\nold ", proof.old_size,
                   "\nnew ", proof.new_size, "\n");
  for (const Digest& hash : proof.hashes) {
    absl::StrAppend(&out, EncodeHash(hash), "\n");
  }
  return out;
}

absl::StatusOr<ConsistencyProofFile> ParseConsistencyProof(
    std::string_view text) {
  auto bad = [](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad consistency proof: ", ToAbsl(why)));
  };
  absl::StatusOr<std::vector<std::string_view>> lines =
      Lines(text, "bad consistency proof");
  if (!lines.ok()) return lines.status();
  if (lines->size() < 3 || (*lines)[0] != kConsistencyHeader) {
    return bad(
        absl::StrCat("the first line is not ", ToAbsl(kConsistencyHeader)));
  }
  std::optional<uint64_t> old_size = KeyedNumber((*lines)[1], "old");
  std::optional<uint64_t> new_size = KeyedNumber((*lines)[2], "new");
  if (!old_size.has_value() || !new_size.has_value()) {
    return bad("want \"old N\" and \"new N\" lines");
  }
  ConsistencyProofFile proof{*old_size, *new_size, {}};
  for (size_t i = 3; i < lines->size(); ++i) {
    absl::StatusOr<Digest> hash = ParseHash((*lines)[i]);
    if (!hash.ok()) return bad(ToStd(hash.status().message()));
    proof.hashes.push_back(*hash);
  }
  if (proof.hashes.size() > 128) return bad("more than 128 hashes");
  return proof;
}

}  // namespace pyramid::tlog

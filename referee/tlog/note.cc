#include "referee/tlog/note.h"

#include <atomic>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "referee/crypto/sha256.h"
#include "referee/tlog/text.h"

namespace pyramid::tlog {
namespace {

constexpr std::string_view kDash = "\xe2\x80\x94 ";  // U+2014 and a space.
constexpr char kEd25519Type = 0x01;
constexpr size_t kMaxSignatures = 100;

absl::Status Malformed(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed note: ", ToAbsl(why)));
}

std::atomic<uint64_t> signature_checks{0};

// The notes that opened lately (OpenNote), each with the name and key of
// the verifier that opened it and the length of its text: at most
// kKeptNotes, the oldest replaced first, of at most kMaxKeptNoteBytes
// each (a checkpoint is about 200 bytes).
class OpenedNotes {
 public:
  static OpenedNotes& Get() {
    static OpenedNotes* const notes = new OpenedNotes;
    return *notes;
  }

  // The length of `note`'s text when `verifier` opened it before.
  std::optional<size_t> Find(std::string_view note,
                             const NoteVerifier& verifier) const {
    absl::MutexLock lock(&mu_);
    for (const Opened& opened : kept_) {
      if (opened.note == note && opened.name == verifier.name &&
          opened.public_key == verifier.public_key) {
        return opened.text_size;
      }
    }
    return std::nullopt;
  }

  void Keep(std::string_view note, const NoteVerifier& verifier,
            size_t text_size) {
    if (note.size() > kMaxKeptNoteBytes) return;
    Opened opened{std::string(note), verifier.name, verifier.public_key,
                  text_size};
    absl::MutexLock lock(&mu_);
    if (kept_.size() < kKeptNotes) {
      kept_.push_back(std::move(opened));
    } else {
      kept_[next_] = std::move(opened);
      next_ = (next_ + 1) % kKeptNotes;
    }
  }

 private:
  static constexpr size_t kKeptNotes = 8;
  static constexpr size_t kMaxKeptNoteBytes = 16 * 1024;
  struct Opened {
    std::string note;
    std::string name;
    std::string public_key;
    size_t text_size = 0;
  };
  mutable absl::Mutex mu_;
  std::vector<Opened> kept_ ABSL_GUARDED_BY(mu_);
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;  // The oldest, once full.
};

}  // namespace

bool IsValidKeyName(std::string_view name) {
  const std::optional<std::vector<char32_t>> code_points = DecodeUtf8(name);
  if (name.empty() || !code_points.has_value()) return false;
  for (char32_t c : *code_points) {
    if (c < 0x20 || c == 0x7f || c == '+' || IsUnicodeSpace(c)) return false;
  }
  return true;
}

uint32_t Ed25519KeyId(std::string_view name, std::string_view public_key) {
  const Digest h = Sha256({name, std::string_view("\n\x01", 2), public_key});
  return (uint32_t{h[0]} << 24) | (uint32_t{h[1]} << 16) |
         (uint32_t{h[2]} << 8) | uint32_t{h[3]};
}

std::string FormatVerifierKey(const NoteVerifier& key) {
  return absl::StrFormat("%s+%08x+%s", key.name,
                         Ed25519KeyId(key.name, key.public_key),
                         absl::Base64Escape(absl::StrCat(
                             std::string(1, kEd25519Type), key.public_key)));
}

absl::StatusOr<NoteVerifier> ParseVerifierKey(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad verifier key \"", ToAbsl(text), "\": ", ToAbsl(why)));
  };
  // The base64 key may itself hold '+': split at the first two only.
  const size_t first = text.find('+');
  const size_t second =
      first == std::string_view::npos ? first : text.find('+', first + 1);
  if (second == std::string_view::npos) return bad("want NAME+KEYID+KEY");
  const std::string_view parts[] = {text.substr(0, first),
                                    text.substr(first + 1, second - first - 1),
                                    text.substr(second + 1)};
  if (!IsValidKeyName(parts[0])) return bad("bad key name");
  absl::StatusOr<std::string> key = DecodeBase64Strict(parts[2]);
  if (!key.ok() || key->size() != 1 + kPublicKeySize ||
      (*key)[0] != kEd25519Type) {
    return bad("the key is not base64 of 0x01 and 32 bytes (Ed25519)");
  }
  NoteVerifier verifier{std::string(parts[0]), key->substr(1)};
  if (std::string(parts[1]) !=
      absl::StrFormat("%08x",
                      Ed25519KeyId(verifier.name, verifier.public_key))) {
    return bad("the key id does not match the name and key");
  }
  return verifier;
}

absl::StatusOr<std::string> SignNote(std::string_view text,
                                     std::string_view name,
                                     const SigningKey& key) {
  if (!IsValidKeyName(name)) return Malformed("bad key name");
  if (text.empty() || text.back() != '\n' || text.ends_with("\n\n") ||
      !IsNoteText(text)) {
    return Malformed("the text must be lines ending in newlines");
  }
  std::string signature;
  AppendU32Be(signature, Ed25519KeyId(name, key.public_key()));
  absl::StrAppend(&signature, key.Sign(text));
  return absl::StrCat(ToAbsl(text), "\n", ToAbsl(kDash), ToAbsl(name), " ",
                      absl::Base64Escape(signature), "\n");
}

absl::StatusOr<ParsedNote> ParseNote(std::string_view note) {
  if (std::string cr = CarriageReturnProblem(note); !cr.empty()) {
    return Malformed(cr);
  }
  if (!IsValidUtf8(note) || !IsNoteText(note)) {
    return Malformed("not UTF-8 text without control characters");
  }
  if (note.empty() || note.back() != '\n') {
    return Malformed("does not end in a newline");
  }
  // The text ends at the last blank line.
  const size_t split = note.rfind("\n\n");
  if (split == std::string_view::npos) return Malformed("no signatures");
  ParsedNote parsed;
  parsed.text = note.substr(0, split + 1);
  std::string_view signatures = note.substr(split + 2);
  while (!signatures.empty()) {
    const size_t end = signatures.find('\n');
    std::string_view line = signatures.substr(0, end);
    signatures.remove_prefix(end + 1);
    if (parsed.signatures.size() >= kMaxSignatures) {
      return Malformed("too many signatures");
    }
    if (!line.starts_with(kDash)) {
      return Malformed("a signature line does not start with an em dash");
    }
    line.remove_prefix(kDash.size());
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos) return Malformed("bad signature line");
    const std::string_view name = line.substr(0, space);
    absl::StatusOr<std::string> blob =
        DecodeBase64Strict(line.substr(space + 1));
    if (!IsValidKeyName(name) || !blob.ok() || blob->size() < 5) {
      return Malformed("bad signature line");
    }
    const uint32_t id = (uint32_t{static_cast<uint8_t>((*blob)[0])} << 24) |
                        (uint32_t{static_cast<uint8_t>((*blob)[1])} << 16) |
                        (uint32_t{static_cast<uint8_t>((*blob)[2])} << 8) |
                        uint32_t{static_cast<uint8_t>((*blob)[3])};
    parsed.signatures.push_back(
        NoteSignature{std::string(name), id, blob->substr(4)});
  }
  if (parsed.signatures.empty()) return Malformed("no signatures");
  return parsed;
}

absl::StatusOr<std::string> OpenNote(std::string_view note,
                                     const NoteVerifier& verifier) {
  OpenedNotes& opened = OpenedNotes::Get();
  if (const std::optional<size_t> text_size = opened.Find(note, verifier)) {
    return std::string(note.substr(0, *text_size));
  }
  absl::StatusOr<ParsedNote> parsed = ParseNote(note);
  if (!parsed.ok()) return parsed.status();
  const uint32_t want_id = Ed25519KeyId(verifier.name, verifier.public_key);
  bool verified = false;
  for (const NoteSignature& line : parsed->signatures) {
    if (line.name != verifier.name || line.key_id != want_id) continue;
    signature_checks.fetch_add(1, std::memory_order_relaxed);
    if (!VerifySignature(verifier.public_key, parsed->text, line.signature)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the signature by ", verifier.name, " does not verify"));
    }
    verified = true;
  }
  if (!verified) {
    return absl::InvalidArgumentError(
        absl::StrCat("not signed by ", FormatVerifierKey(verifier)));
  }
  opened.Keep(note, verifier, parsed->text.size());
  return std::string(parsed->text);
}

uint64_t NoteSignatureChecks() {
  return signature_checks.load(std::memory_order_relaxed);
}

}  // namespace pyramid::tlog

#include "referee/core/log_journal_format.h"

#include <filesystem>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"
#include "referee/crypto/sha256.h"

namespace pyramid {
namespace {

constexpr size_t kLengthSize = 4;
constexpr size_t kOffsetSize = 8;
constexpr size_t kPathLengthSize = 2;
constexpr size_t kHashSize = std::tuple_size_v<Digest>;
constexpr size_t kMaxPath = 4096;
// An entry holds the bytes a log wrote between two checkpoints; anything
// larger is damage, not an entry.
constexpr uint32_t kMaxBody = uint32_t{1} << 30;
// The digits of a journal file's name.
constexpr size_t kNameDigits = 16;

void PutLittleEndian(uint64_t value, size_t size, std::string& out) {
  for (size_t i = 0; i < size; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint64_t GetLittleEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

}  // namespace

std::string JournalLogPath(std::string_view name, const std::string& log_dir) {
  const std::string_view file = log_format::LogFileName(name);
  if (file.empty()) return "";
  return (std::filesystem::path(log_dir) / file).string();
}

bool IsJournalFileName(const std::string& name, uint64_t& generation) {
  if (name.size() != kNameDigits + 8 ||
      name.substr(kNameDigits) != ".journal") {
    return false;
  }
  generation = 0;
  for (size_t i = 0; i < kNameDigits; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    generation = generation * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return true;
}

std::string JournalFileName(const std::string& dir, uint64_t generation) {
  std::string digits = std::to_string(generation);
  return absl::StrCat(dir, "/", std::string(kNameDigits - digits.size(), '0'),
                      digits, ".journal");
}

std::string JournalEntryHead(uint64_t offset, std::string_view path,
                             size_t bytes_size) {
  std::string head;
  head.reserve(kLengthSize + kOffsetSize + kPathLengthSize + path.size());
  PutLittleEndian(kOffsetSize + kPathLengthSize + path.size() + bytes_size,
                  kLengthSize, head);
  PutLittleEndian(offset, kOffsetSize, head);
  PutLittleEndian(path.size(), kPathLengthSize, head);
  head.append(path);
  return head;
}

Digest JournalEntryHash(std::string_view head, std::string_view bytes) {
  return Sha256({head.substr(kLengthSize), bytes});
}

std::string EncodeJournalEntry(uint64_t offset, std::string_view path,
                               std::string_view bytes) {
  std::string out = JournalEntryHead(offset, path, bytes.size());
  const Digest hash = JournalEntryHash(out, bytes);
  out.append(bytes);
  out.append(AsView(hash));
  return out;
}

ParsedJournal ParseJournal(std::string_view file) {
  ParsedJournal parsed;
  auto stop = [&](size_t at, std::string why) {
    parsed.stopped = std::move(why);
    parsed.stopped_at = at;
    return parsed;
  };
  if (file.size() < kJournalMagic.size()) {
    // A file whose creation was cut short holds a prefix of the magic.
    if (kJournalMagic.substr(0, file.size()) == file) return parsed;
    return stop(0, "not a journal file");
  }
  if (file.substr(0, kJournalMagic.size()) != kJournalMagic) {
    return stop(0, "not a journal file");
  }
  size_t at = kJournalMagic.size();
  while (at < file.size()) {
    const std::string_view rest = file.substr(at);
    if (rest.find_first_not_of('\0') == std::string_view::npos) {
      return parsed;  // The zeros after the last entry.
    }
    if (rest.size() < kLengthSize) return stop(at, "a torn entry");
    const uint64_t body = GetLittleEndian(rest.substr(0, kLengthSize));
    if (body < kOffsetSize + kPathLengthSize || body > kMaxBody) {
      return stop(at, "a damaged entry (its length)");
    }
    if (rest.size() < kLengthSize + body + kHashSize) {
      return stop(at, "a torn entry");
    }
    const std::string_view bytes = rest.substr(kLengthSize, body);
    if (AsView(Sha256(bytes)) != rest.substr(kLengthSize + body, kHashSize)) {
      return stop(at, "a damaged entry (its hash)");
    }
    const uint64_t path_length =
        GetLittleEndian(bytes.substr(kOffsetSize, kPathLengthSize));
    if (path_length == 0 || path_length > kMaxPath ||
        kOffsetSize + kPathLengthSize + path_length > body) {
      return stop(at, "a damaged entry (its path)");
    }
    JournalEntry& entry = parsed.entries.emplace_back();
    entry.offset = GetLittleEndian(bytes.substr(0, kOffsetSize));
    entry.path = bytes.substr(kOffsetSize + kPathLengthSize, path_length);
    entry.bytes = bytes.substr(kOffsetSize + kPathLengthSize + path_length);
    at += kLengthSize + body + kHashSize;
  }
  return parsed;
}

}  // namespace pyramid

#include "tools/bot/state_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// `what` failed with errno `error`, in strerror's words.
absl::Status Failed(const std::string& what, int error) {
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat(what, ": ", std::strerror(error)));
}

bool IsMatchId(const std::string& match_id) {
  return match_id.size() == 32 &&
         std::all_of(match_id.begin(), match_id.end(), absl::ascii_isxdigit);
}

// Writes all of `text` to `fd`.
bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Fsyncs the directory `path`.
absl::Status FsyncDir(const std::string& path) {
  const int dir = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Failed(absl::StrCat("cannot open ", path), errno);
  const bool synced = fsync(dir) == 0;
  const int error = errno;
  close(dir);
  if (!synced) return Failed(absl::StrCat("cannot fsync ", path), error);
  return absl::OkStatus();
}

// A file name of DIR that is a record's, <match_id>-<seat>-<decision_id>.json,
// or a temporary file's, that followed by .<anything>.tmp (.<random>.tmp
// here and in Python, .<pid>.tmp in Node): the kits' pattern
// ([0-9a-fA-F]{32})-([0-9]+)-([0-9]+)\.json(\..+\.tmp)?
struct RecordName {
  std::string match_id;
  uint32_t seat = 0;
  uint64_t decision_id = 0;
  bool temporary = false;
};

std::optional<RecordName> ParseRecordName(const std::string& name) {
  if (name.size() < 33 || name[32] != '-') return std::nullopt;
  RecordName out;
  out.match_id = name.substr(0, 32);
  if (!IsMatchId(out.match_id)) return std::nullopt;
  const size_t seat_end = name.find('-', 33);
  if (seat_end == std::string::npos) return std::nullopt;
  const size_t json = name.find(".json", seat_end + 1);
  if (json == std::string::npos) return std::nullopt;
  const std::string seat = name.substr(33, seat_end - 33);
  const std::string decision = name.substr(seat_end + 1, json - seat_end - 1);
  const auto digits = [](const std::string& text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), absl::ascii_isdigit);
  };
  if (!digits(seat) || !digits(decision) ||
      !absl::SimpleAtoi(seat, &out.seat) ||
      !absl::SimpleAtoi(decision, &out.decision_id)) {
    return std::nullopt;
  }
  const std::string rest = name.substr(json + 5);
  if (rest.empty()) return out;
  if (rest.size() < 6 || rest[0] != '.' || !absl::EndsWith(rest, ".tmp")) {
    return std::nullopt;
  }
  out.temporary = true;
  return out;
}

// The flat JSON object parser: a cursor over the text.
class FlatJson {
 public:
  explicit FlatJson(const std::string& text) : text_(text) {}

  absl::StatusOr<std::map<std::string, FlatJsonValue>> Parse() {
    std::map<std::string, FlatJsonValue> out;
    SkipSpace();
    if (!Eat('{')) return Error("not a JSON object");
    SkipSpace();
    if (!Eat('}')) {
      while (true) {
        SkipSpace();
        std::string key;
        if (!String(key)) return Error("a key is not a string");
        SkipSpace();
        if (!Eat(':')) return Error("no ':' after a key");
        SkipSpace();
        FlatJsonValue value;
        if (Peek() == '"') {
          value.is_string = true;
          if (!String(value.text)) return Error("a bad string");
        } else {
          const size_t start = at_;
          while (at_ < text_.size() &&
                 (absl::ascii_isalnum(text_[at_]) || text_[at_] == '-' ||
                  text_[at_] == '+' || text_[at_] == '.')) {
            ++at_;
          }
          value.text = text_.substr(start, at_ - start);
          if (value.text.empty()) return Error("a value is not flat");
        }
        if (!out.emplace(std::move(key), std::move(value)).second) {
          return Error("a key twice");
        }
        SkipSpace();
        if (Eat('}')) break;
        if (!Eat(',')) return Error("no ',' between members");
      }
    }
    SkipSpace();
    if (at_ != text_.size()) return Error("text after the object");
    return out;
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " (at byte ", at_, ")"));
  }
  char Peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }
  void SkipSpace() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                  text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }
  // A JSON string, its escapes undone (\uXXXX as UTF-8, surrogate pairs
  // joined).
  bool String(std::string& out) {
    if (!Eat('"')) return false;
    while (at_ < text_.size()) {
      const char c = text_[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_ >= text_.size()) return false;
      const char e = text_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t code = 0;
          if (!Hex4(code)) return false;
          if (code >= 0xD800 && code < 0xDC00) {
            uint32_t low = 0;
            if (!Eat('\\') || !Eat('u') || !Hex4(low) || low < 0xDC00 ||
                low >= 0xE000) {
              return false;
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(code, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }
  bool Hex4(uint32_t& code) {
    if (at_ + 4 > text_.size()) return false;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      if (!absl::ascii_isxdigit(h)) return false;
      code = code * 16 + (absl::ascii_isdigit(h)
                              ? h - '0'
                              : absl::ascii_tolower(h) - 'a' + 10);
    }
    return true;
  }
  static void AppendUtf8(uint32_t code, std::string& out) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  const std::string& text_;
  size_t at_ = 0;
};

// Why `fields` is not the record of the decision (empty: it is), filling
// `record`.
std::string Check(const std::map<std::string, FlatJsonValue>& fields,
                  const std::string& match_id, uint32_t seat,
                  uint64_t decision_id, CommitmentRecord& record) {
  const auto field = [&](const char* name) -> const FlatJsonValue* {
    const auto it = fields.find(name);
    return it == fields.end() ? nullptr : &it->second;
  };
  for (const char* name :
       {"match_id", "seat", "decision_id", "action", "salt"}) {
    if (field(name) == nullptr) return absl::StrCat("it has no ", name);
  }
  uint32_t record_seat = 0;
  uint64_t record_decision = 0;
  if (!field("match_id")->is_string ||
      !absl::EqualsIgnoreCase(field("match_id")->text, match_id) ||
      field("seat")->is_string ||
      !absl::SimpleAtoi(field("seat")->text, &record_seat) ||
      record_seat != seat || field("decision_id")->is_string ||
      !absl::SimpleAtoi(field("decision_id")->text, &record_decision) ||
      record_decision != decision_id) {
    return "it names another decision";
  }
  if (!field("salt")->is_string || !field("action")->is_string ||
      !absl::Base64Unescape(field("salt")->text, &record.salt) ||
      !absl::Base64Unescape(field("action")->text, &record.action)) {
    return "its salt or action is not base64";
  }
  if (record.salt.size() != 32) return "its salt is not 32 bytes";
  return "";
}

}  // namespace

absl::StatusOr<std::map<std::string, FlatJsonValue>> ParseFlatJsonObject(
    const std::string& text) {
  return FlatJson(text).Parse();
}

std::string StateDir::File(const std::string& match_id, uint32_t seat,
                           uint64_t decision_id) const {
  if (!IsMatchId(match_id)) return "";
  return absl::StrCat(path_, "/", match_id, "-", seat, "-", decision_id,
                      ".json");
}

absl::Status StateDir::Save(const std::string& match_id, uint32_t seat,
                            uint64_t decision_id,
                            const CommitmentRecord& record) {
  const std::string file = File(match_id, seat, decision_id);
  if (file.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no record can be named after match \"",
                     absl::CHexEscape(match_id), "\""));
  }
  // Written as the Python kit writes it (json.dumps).
  const std::string text =
      absl::StrCat("{\"match_id\": \"", match_id, "\", \"seat\": ", seat,
                   ", \"decision_id\": ", decision_id, ", \"action\": \"",
                   absl::Base64Escape(record.action), "\", \"salt\": \"",
                   absl::Base64Escape(record.salt), "\"}\n");
  // Named after the record, so that its match's end removes one a crash
  // left behind (as the kits name theirs).
  std::string temp = file + ".XXXXXX.tmp";
  const int fd = mkstemps(temp.data(), 4);
  if (fd < 0) return Failed(absl::StrCat("cannot create ", temp), errno);
  bool written = WriteAll(fd, text);
  int error = errno;
  if (written && fsync(fd) != 0) {
    written = false;
    error = errno;
  }
  if (close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (written && rename(temp.c_str(), file.c_str()) != 0) {
    written = false;
    error = errno;
  }
  if (!written) {
    unlink(temp.c_str());
    return Failed(absl::StrCat("cannot write ", file), error);
  }
  return FsyncDir(path_);
}

std::optional<CommitmentRecord> StateDir::Load(const std::string& match_id,
                                               uint32_t seat,
                                               uint64_t decision_id) {
  const std::string file = File(match_id, seat, decision_id);
  if (file.empty()) return std::nullopt;
  const std::string said = absl::StrCat("bot: match ", match_id, " seat ", seat,
                                        " decision ", decision_id, ": ");
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) {
      std::cerr << said << "cannot read " << file << ": "
                << std::strerror(errno) << "; ignoring it\n";
    }
    return std::nullopt;
  }
  std::string text;
  char buffer[4096];
  ssize_t n;
  // A record is a few hundred bytes; more than a megabyte is none.
  while ((n = read(fd, buffer, sizeof buffer)) != 0 &&
         text.size() < (1 << 20)) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::cerr << said << "cannot read " << file << ": "
                << std::strerror(errno) << "; ignoring it\n";
      close(fd);
      return std::nullopt;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  absl::StatusOr<std::map<std::string, FlatJsonValue>> fields =
      ParseFlatJsonObject(text);
  CommitmentRecord record;
  const std::string why =
      fields.ok() ? Check(*fields, match_id, seat, decision_id, record)
                  : std::string(fields.status().message());
  if (!why.empty()) {
    std::cerr << said << file << " is not a commitment record of it (" << why
              << "); ignoring it\n";
    return std::nullopt;
  }
  return record;
}

std::optional<uint64_t> StateDir::Newest(const std::string& match_id,
                                         uint32_t seat) const {
  std::error_code error;
  std::optional<uint64_t> newest;
  for (std::filesystem::directory_iterator it(path_, error), end;
       !error && it != end; it.increment(error)) {
    const std::optional<RecordName> name =
        ParseRecordName(it->path().filename().string());
    if (name && !name->temporary && name->seat == seat &&
        absl::EqualsIgnoreCase(name->match_id, match_id)) {
      newest = std::max(newest.value_or(0), name->decision_id);
    }
  }
  if (error) {
    std::cerr << "bot: cannot list " << path_ << ": " << error.message()
              << "\n";
    return std::nullopt;
  }
  return newest;
}

void StateDir::DropMatch(const std::string& match_id) {
  if (!IsMatchId(match_id)) return;
  std::error_code error;
  std::vector<std::string> doomed;
  for (std::filesystem::directory_iterator it(path_, error), end;
       !error && it != end; it.increment(error)) {
    const std::optional<RecordName> name =
        ParseRecordName(it->path().filename().string());
    if (name && name->match_id == match_id) {
      doomed.push_back(it->path().string());
    }
  }
  if (error) {
    std::cerr << "bot: cannot list " << path_ << ": " << error.message()
              << "\n";
  }
  for (const std::string& file : doomed) {
    if (unlink(file.c_str()) != 0 && errno != ENOENT) {
      std::cerr << "bot: cannot remove " << file << ": " << std::strerror(errno)
                << "\n";
    }
  }
}

absl::Status MakeStateDir(const std::string& path) {
  const auto failed = [](int error) {
    return absl::Status(absl::ErrnoToStatusCode(error), std::strerror(error));
  };
  std::error_code error;
  // Absolute and normalized, as the kits make it (os.path.abspath).
  std::filesystem::path full =
      std::filesystem::absolute(path, error).lexically_normal();
  if (error) return absl::InternalError(error.message());
  if (!full.has_filename() && full != full.root_path()) {
    full = full.parent_path();  // "DIR/": DIR.
  }
  // The missing directories, deepest first.
  std::vector<std::filesystem::path> missing;
  struct stat st;
  for (std::filesystem::path here = full;
       stat(here.c_str(), &st) != 0 && errno == ENOENT;) {
    missing.push_back(here);
    std::filesystem::path parent = here.parent_path();
    if (parent == here || parent.empty()) break;
    here = std::move(parent);
  }
  for (auto made = missing.rbegin(); made != missing.rend(); ++made) {
    // EEXIST: made meanwhile by another process.
    if (mkdir(made->c_str(), 0777) != 0 && errno != EEXIST) {
      return failed(errno);
    }
    if (const absl::Status synced = FsyncDir(made->parent_path().string());
        !synced.ok()) {
      return synced;
    }
  }
  if (stat(full.c_str(), &st) != 0) return failed(errno);
  if (!S_ISDIR(st.st_mode)) return failed(ENOTDIR);
  if (access(full.c_str(), W_OK | X_OK) != 0) return failed(errno);
  return absl::OkStatus();
}

}  // namespace pyramid

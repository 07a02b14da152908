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
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "referee/files/bounded_read.h"

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

// Why `fields` is not the record of the decision (empty: it is), filling
// `record`. Numbers are JSON's (doubles): a seat and a decision id are
// exact below 2^53, far beyond any match's.
std::string Check(const google::protobuf::Struct& fields,
                  const std::string& match_id, uint32_t seat,
                  uint64_t decision_id, CommitmentRecord& record) {
  const auto field = [&](const char* name) -> const google::protobuf::Value* {
    const auto it = fields.fields().find(name);
    return it == fields.fields().end() ? nullptr : &it->second;
  };
  for (const char* name :
       {"match_id", "seat", "decision_id", "action", "salt"}) {
    if (field(name) == nullptr) return absl::StrCat("it has no ", name);
  }
  const auto is_number = [](const google::protobuf::Value* value,
                            uint64_t want) {
    return value->has_number_value() &&
           value->number_value() == static_cast<double>(want);
  };
  if (!field("match_id")->has_string_value() ||
      !absl::EqualsIgnoreCase(field("match_id")->string_value(), match_id) ||
      !is_number(field("seat"), seat) ||
      !is_number(field("decision_id"), decision_id)) {
    return "it names another decision";
  }
  if (!field("salt")->has_string_value() ||
      !field("action")->has_string_value() ||
      !absl::Base64Unescape(field("salt")->string_value(), &record.salt) ||
      !absl::Base64Unescape(field("action")->string_value(), &record.action)) {
    return "its salt or action is not base64";
  }
  if (record.salt.size() != 32) return "its salt is not 32 bytes";
  return "";
}

}  // namespace

absl::StatusOr<google::protobuf::Struct> ParseRecordJson(
    const std::string& text) {
  google::protobuf::Struct fields;
  if (const auto parsed =
          google::protobuf::util::JsonStringToMessage(text, &fields);
      !parsed.ok()) {
    // Its first line (protobuf puts a caret line under the text after it).
    const std::string why(parsed.message());
    return absl::InvalidArgumentError(
        absl::StrCat("not a JSON object: ", why.substr(0, why.find('\n'))));
  }
  return fields;
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
  // A record is a few hundred bytes; more than a kibibyte is none.
  BoundedRead options;
  options.max_bytes = 1 << 10;
  absl::StatusOr<std::string> text = ReadBoundedFile(file, options);
  if (!text.ok()) {
    if (!absl::IsNotFound(text.status())) {
      std::cerr << said << "cannot read " << file << ": "
                << text.status().message() << "; ignoring it\n";
    }
    return std::nullopt;
  }
  absl::StatusOr<google::protobuf::Struct> fields = ParseRecordJson(*text);
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

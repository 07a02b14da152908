#include "tools/tournament/match_journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "referee/core/log_sink.h"

namespace pyramid {

absl::StatusOr<std::string> MatchJournal::ReadText(const std::string& path) {
  std::error_code missing;
  if (!std::filesystem::exists(path, missing) && !missing) return "";
  return ReadFileToString(path);
}

absl::Status MatchJournal::ParseInto(
    std::string_view text, std::string_view name, std::string_view what,
    const std::function<google::protobuf::Message*()>& add) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  // A crash can cut the last line short; it has no newline then.
  const std::vector<absl::string_view> lines =
      absl::StrSplit(absl::string_view(text.data(), text.size()), '\n');
  const size_t whole = lines.size() - 1;  // The last piece has no newline.
  for (size_t i = 0; i < whole; ++i) {
    if (lines[i].empty()) continue;
    if (!google::protobuf::util::JsonStringToMessage(
             google::protobuf::StringPiece(lines[i].data(), lines[i].size()),
             add(), options)
             .ok()) {
      return absl::DataLossError(absl::StrCat(
          std::string(name), " line ", i + 1, " is not a ", std::string(what)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MatchJournal>> MatchJournal::OpenForAppend(
    const std::string& path, bool sync) {
  // "e": O_CLOEXEC, so no bot started later inherits the journal (under
  // --bot_uids, as another uid that could then truncate or forge it).
  std::FILE* file = std::fopen(path.c_str(), "a+e");
  if (file == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  // Unbuffered: each line goes to write(2) as Append writes it, so that a
  // failed append leaves nothing in a buffer for a later flush (fclose's)
  // to write after the cut line.
  std::setvbuf(file, nullptr, _IONBF, 0);
  auto journal =
      std::unique_ptr<MatchJournal>(new MatchJournal(file, path, sync));
  // Cut off a last line torn by a crash: it ends after the last newline.
  absl::StatusOr<std::string> bytes_read = ReadFileToString(path);
  if (!bytes_read.ok()) return bytes_read.status();
  const std::string& bytes = *bytes_read;
  const size_t end = bytes.rfind('\n');
  const size_t whole = end == std::string::npos ? 0 : end + 1;
  if (whole != bytes.size() &&
      (ftruncate(fileno(file), static_cast<off_t>(whole)) != 0 ||
       fsync(fileno(file)) != 0)) {
    return absl::InternalError(
        absl::StrCat("cannot cut the torn last line off ", path, ": ",
                     std::strerror(errno)));
  }
  return journal;
}

MatchJournal::~MatchJournal() { std::fclose(file_); }

absl::StatusOr<std::string> MatchJournal::Line(
    const google::protobuf::Message& result) {
  std::string line;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(result, &line, options)
           .ok()) {
    return absl::InternalError("cannot encode a journal line");
  }
  line += '\n';
  return line;
}

absl::Status MatchJournal::Append(const google::protobuf::Message& result) {
  absl::StatusOr<std::string> encoded = Line(result);
  if (!encoded.ok()) return encoded.status();
  if (!failed_.ok()) return failed_;
  const std::string& line = *encoded;
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fflush(file_) != 0 || (sync_ && fsync(fileno(file_)) != 0)) {
    const int error = errno;
    const std::string message =
        absl::StrCat("cannot append to ", path_, ": ", std::strerror(error));
    failed_ = error == ENOSPC || error == EDQUOT
                  ? absl::ResourceExhaustedError(message)
                  : absl::InternalError(message);
    return failed_;
  }
  return absl::OkStatus();
}

}  // namespace pyramid

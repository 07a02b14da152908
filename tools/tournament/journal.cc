#include "tools/tournament/journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

absl::StatusOr<std::vector<v1::TournamentMatchResult>> Journal::Read(
    const std::string& path) {
  std::vector<v1::TournamentMatchResult> entries;
  std::ifstream in(path);
  if (!in) return entries;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  // A crash can cut the last line short; it has no newline then.
  in.clear();
  in.seekg(0, std::ios::end);
  const bool ends_with_newline = [&] {
    if (in.tellg() <= 0) return true;
    in.seekg(-1, std::ios::end);
    return in.get() == '\n';
  }();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    v1::TournamentMatchResult entry;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    if (!google::protobuf::util::JsonStringToMessage(lines[i], &entry, options)
             .ok()) {
      if (i + 1 == lines.size() && !ends_with_newline) break;
      return absl::DataLossError(
          absl::StrCat(path, " line ", i + 1, " is not a match result"));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

absl::StatusOr<std::unique_ptr<Journal>> Journal::OpenForAppend(
    const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<Journal>(new Journal(file, path));
}

Journal::~Journal() { std::fclose(file_); }

absl::Status Journal::Append(const v1::TournamentMatchResult& result) {
  std::string line;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(result, &line, options)
           .ok()) {
    return absl::InternalError("cannot encode a match result");
  }
  line += '\n';
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fflush(file_) != 0 || fsync(fileno(file_)) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot append to ", path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace pyramid

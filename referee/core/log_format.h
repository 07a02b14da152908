// Constants of the log file format (docs/log-format.md), shared by the
// writer and every reader.
#ifndef PYRAMID_REFEREE_CORE_LOG_FORMAT_H_
#define PYRAMID_REFEREE_CORE_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pyramid::log_format {

// Every log file starts with these 8 bytes: "PYRLOG", 0x00, 0x01.
inline constexpr std::string_view kMagic{"PYRLOG\0\x01", 8};

// The version written in Header.format_version.
inline constexpr uint32_t kFormatVersion = 1;

// A record longer than this is a framing error (a corrupt length prefix
// must not make a reader allocate gigabytes).
inline constexpr uint64_t kMaxRecordSize = 16 << 20;

// A varint length prefix is at most this long for kMaxRecordSize.
inline constexpr size_t kMaxLengthPrefix = 4;

// A log file's extension, and the name the referee gives the log of match
// `match_id` (its hex) of `game` (a game id): "GAME-MATCH_ID.pyrlog", in
// its log directory; the tournament runner keeps the name.
inline constexpr std::string_view kFileExtension = ".pyrlog";
inline std::string FileName(std::string_view game, std::string_view match_id) {
  std::string name(game);
  name += '-';
  name += match_id;
  name += kFileExtension;
  return name;
}

// The file name of a log from what is stored of it (a registry entry's
// log_name, a journal entry's name): its last path component, what follows
// its last '/', so that a path an older referee stored is its file name in
// the current log directory and nothing stored names a file outside it.
// Empty when `stored` names no file in a directory ("", a path ending in
// '/', ".", ".."): the caller has no log to open.
inline std::string_view LogFileName(std::string_view stored) {
  const size_t slash = stored.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? stored : stored.substr(slash + 1);
  return name == "." || name == ".." ? std::string_view() : name;
}

}  // namespace pyramid::log_format

#endif  // PYRAMID_REFEREE_CORE_LOG_FORMAT_H_

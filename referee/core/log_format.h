// Constants of the log file format (docs/log-format.md), shared by the
// writer and every reader.
#ifndef PYRAMID_REFEREE_CORE_LOG_FORMAT_H_
#define PYRAMID_REFEREE_CORE_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
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

}  // namespace pyramid::log_format

#endif  // PYRAMID_REFEREE_CORE_LOG_FORMAT_H_

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

// The most `replay` reads of one file it is given (a log, a proof, a
// checkpoint, a key; each entry of a tournament directory): 1 GiB. A
// longer file is refused unread, naming the limit, so that a sparse file of
// a terabyte in someone's tarball cannot make the verifier allocate it. A
// log is far shorter: a Pyramid Scheme turn of 4 seats writes about 750
// bytes, under 100 MB at the longest turn limit a game takes (100,000).
inline constexpr uint64_t kMaxInputFileSize = uint64_t{1} << 30;

}  // namespace pyramid::log_format

#endif  // PYRAMID_REFEREE_CORE_LOG_FORMAT_H_

// Where ReadLog (replay/log_file.h) may stop reading a log: SealWatch
// frames a log's bytes as they come, by the splitter's own rules (FrameAt,
// referee/core/log_reader.h; docs/log-format.md, "Framing rules"), and
// finds the end of what the splitter frames after a seal record: the next
// record whole, or a length prefix it refuses. No reader of the log looks
// further: the verifier stops there ("record after the seal", or the bad
// prefix), and its verdict on the bytes up to there (told the file's size)
// is its verdict on the whole file, however the file goes on. A tail after
// the seal shorter than a record ("bytes after the seal") is no cut: it is
// the file's end, read whole.
//
// The cut does not depend on how the bytes come: given a log's bytes in any
// number of parts, it is found once the bytes through it have come, and it
// is the cut of the bytes given in one piece (tests/fuzz/
// seal_watch_fuzzer.cc checks this and the verdict).
#ifndef PYRAMID_REPLAY_SEAL_WATCH_H_
#define PYRAMID_REPLAY_SEAL_WATCH_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "referee/core/log_format.h"

namespace pyramid {

class SealWatch {
 public:
  // Judges the records of `bytes` not judged yet: `bytes` are a file's
  // first bytes (its first 8 taken as the magic, unjudged), each call's a
  // prefix of the next call's (those given before unchanged). Returns the
  // size the file's bytes may be cut to once it is known (at most
  // bytes.size()), and the same on every later call; nullopt until then,
  // and always for a file without a seal or whose framing fails before one
  // (a file read to its end).
  std::optional<uint64_t> CutAt(std::string_view bytes);

 private:
  uint64_t next_ = log_format::kMagic.size();  // The next record's prefix.
  bool sealed_ = false;                        // The last record judged.
  bool unframed_ = false;  // A corrupt prefix before any seal.
};

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_SEAL_WATCH_H_

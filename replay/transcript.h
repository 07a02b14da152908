// Readable transcripts of match logs (`replay show`). Reads records as they
// are; it does not judge them (that is VerifyLog's job).
#ifndef PYRAMID_REPLAY_TRANSCRIPT_H_
#define PYRAMID_REPLAY_TRANSCRIPT_H_

#include <ostream>
#include <string_view>

#include "absl/status/status.h"

namespace pyramid {

// Writes a transcript of the log in `file` to `out`: the match, each
// decision with its commits and reveals, faults, the game's own account of
// every applied move, and the outcome. DATA_LOSS when the framing or a
// record is unreadable (what came before is still printed).
absl::Status WriteTranscript(std::string_view file, std::ostream& out);

// Writes every record in protobuf's JSON mapping, one JSON object per line.
absl::Status WriteJsonLines(std::string_view file, std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_TRANSCRIPT_H_

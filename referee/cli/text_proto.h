// Protocol buffers in text format as people type them: a tool's --options
// flag ('rock_paper_pyramid { red: true }'), a tournament file. The
// parser's first error is returned, with its line and column, instead of
// being logged by protobuf ("[libprotobuf ERROR ...]") before the tool's
// own message.
#ifndef PYRAMID_REFEREE_CLI_TEXT_PROTO_H_
#define PYRAMID_REFEREE_CLI_TEXT_PROTO_H_

#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace pyramid {

// Merges `text` into `message` (fields it sets replace or, when repeated,
// add to those already set; TextFormat::Merge). INVALID_ARGUMENT "line L
// column C: WHAT" (both from 1) for the first error, `message` then
// partly merged; nothing is logged.
absl::Status MergeTextProto(std::string_view text,
                            google::protobuf::Message& message);

// As MergeTextProto into a cleared `message`, except that a non-repeated
// field set twice is an error (TextFormat::Parse).
absl::Status ParseTextProto(std::string_view text,
                            google::protobuf::Message& message);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_TEXT_PROTO_H_

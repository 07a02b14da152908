// Credentials as clients send them: gRPC metadata "authorization: Bearer
// TOKEN". gRPC aborts the whole process on a metadata value holding a byte
// it does not allow, so a token read from a file or the environment is
// checked before it is used, and a wrong file gets a message instead.
#ifndef PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_
#define PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pyramid {

// The token `text` holds (a token file's contents, an environment
// variable's value), surrounding whitespace removed: non-empty visible ASCII
// (0x21 to 0x7e), as every token the referee mints is and an operator's
// admin token must be. Otherwise INVALID_ARGUMENT naming `source` (the file
// or variable), never the text itself.
absl::StatusOr<std::string> TokenFromText(absl::string_view text,
                                          absl::string_view source);

// The token in the file at `path`: ReadFileToString's error, or
// TokenFromText's with the path as its source.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_

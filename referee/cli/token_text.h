// Credentials as clients send them: gRPC metadata "authorization: Bearer
// TOKEN". gRPC aborts the whole process on a metadata value holding a byte
// it does not allow, so a token read from a file or the environment is
// checked before it is used, and a wrong file gets a message instead.
#ifndef PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_
#define PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pyramid {

// OK when `token` is non-empty visible ASCII (0x21 to 0x7e), as every token
// the referee mints is and an operator's admin token must be. Otherwise
// INVALID_ARGUMENT naming `source` (a file, an environment variable), never
// the token itself.
absl::Status CheckTokenText(absl::string_view token, absl::string_view source);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_

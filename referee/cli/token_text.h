// Credentials as clients send them: gRPC metadata "authorization: Bearer
// TOKEN". gRPC aborts the whole process on a metadata value holding a byte
// it does not allow, so a token read from a file or the environment is
// checked before it is used, and a wrong file gets a message instead. The
// admin token is found the same way by every program that takes one (the
// referee, refctl, the tournament runner): FindAdminToken.
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

// The environment variable that holds the admin token itself.
inline constexpr char kAdminTokenVariable[] = "PYRAMID_ADMIN_TOKEN";

// An admin token, and where it was found.
struct FoundAdminToken {
  enum class From {
    kNone,         // Nowhere: no file named, no variable, no default file.
    kNamedFile,    // The file a flag named.
    kEnvironment,  // $PYRAMID_ADMIN_TOKEN.
    kDefaultFile,  // The program's default file.
  };
  From from = From::kNone;
  std::string token;  // Empty for kNone.
  // Where it came from, for messages (never the token itself): the file's
  // path, or "$PYRAMID_ADMIN_TOKEN"; empty for kNone.
  std::string source;
};

// The admin token as every program takes it (docs/protocol.md): the file
// `named_file` when it is not empty; else the value of $PYRAMID_ADMIN_TOKEN
// when that is set and not empty (an empty variable counts as unset, as
// `PYRAMID_ADMIN_TOKEN= program` means); else the file `default_file` when
// it is not empty and exists. From::kNone when none of them applies (a
// missing default file is no error: the caller decides, a read going
// without a token, the referee making the file).
//
// The token is checked as TokenFromText checks it. A named file that cannot
// be read or holds no token is an error whose message begins with
// `named_label` (how the program names its flag, e.g.
// "--admin_token_file"), then ": ", then ReadTokenFile's; a variable's or
// the default file's error is TokenFromText's or ReadTokenFile's as is.
absl::StatusOr<FoundAdminToken> FindAdminToken(const std::string& named_file,
                                               absl::string_view named_label,
                                               const std::string& default_file);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_TOKEN_TEXT_H_

// A server's TLS certificate and key files, checked before the server
// touches the disk: gRPC refuses files it cannot use only when the server
// starts, in its own log, without naming them.
#ifndef PYRAMID_REFEREE_CLI_TLS_FILES_H_
#define PYRAMID_REFEREE_CLI_TLS_FILES_H_

#include <string>

#include "absl/status/status.h"

namespace pyramid {

// OK when the file `cert` (given as --tls_cert) holds a PEM certificate
// chain and the file `key` (--tls_key) a PEM private key, the key of the
// chain's first certificate. Otherwise an error naming the flag, the file
// and what is wrong (it cannot be read, holds no PEM certificate or key,
// or the two do not go together).
absl::Status CheckTlsFiles(const std::string& cert, const std::string& key);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_TLS_FILES_H_

// SHA-256 through OpenSSL's libcrypto (which uses the CPU's SHA extensions
// where it has them). Hashing allocates nothing: the context is on the
// stack. Thread-safe.
#ifndef PYRAMID_REFEREE_CRYPTO_SHA256_H_
#define PYRAMID_REFEREE_CRYPTO_SHA256_H_

#include <initializer_list>
#include <string_view>

#include "referee/crypto/bytes.h"

namespace pyramid {

// SHA-256 of `data`.
Digest Sha256(std::string_view data);

// SHA-256 of the concatenation of `parts` (no copy of the parts is made).
Digest Sha256(std::initializer_list<std::string_view> parts);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CRYPTO_SHA256_H_

// OpenSSL 3 deprecates the SHA256_* functions in favour of EVP_Digest*, but
// OpenSSL 3.0's EVP_DigestInit_ex2 frees and allocates the digest's context
// on every call, even on a reused EVP_MD_CTX: with the ~100-byte inputs the
// log is made of (a record, a commitment), that cost a fifth more than the
// hashing itself (bench_verify's hash floor: 51 ms against 42 ms for 1,000
// Rock, Paper, Pyramid! logs). SHA256_Init/Update/Final run the same
// compression code (OpenSSL picks SHA extensions, AVX2 or SSSE3 for the
// CPU at startup) on a context on the stack.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "referee/crypto/sha256.h"

#include <openssl/sha.h>

#include <cstdlib>

namespace pyramid {

Digest Sha256(std::initializer_list<std::string_view> parts) {
  SHA256_CTX ctx;
  if (SHA256_Init(&ctx) != 1) std::abort();
  for (std::string_view part : parts) {
    if (SHA256_Update(&ctx, part.data(), part.size()) != 1) std::abort();
  }
  Digest digest;
  if (SHA256_Final(digest.data(), &ctx) != 1) std::abort();
  return digest;
}

Digest Sha256(std::string_view data) { return Sha256({data}); }

}  // namespace pyramid

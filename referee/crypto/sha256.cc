#include "referee/crypto/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace pyramid {
namespace {

const EVP_MD* Sha256Md() {
  static const EVP_MD* const md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) std::abort();  // libcrypto without SHA-256.
    return fetched;
  }();
  return md;
}

struct ContextDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

EVP_MD_CTX* ThreadContext() {
  thread_local std::unique_ptr<EVP_MD_CTX, ContextDeleter> ctx(
      EVP_MD_CTX_new());
  return ctx.get();
}

}  // namespace

Digest Sha256(std::initializer_list<std::string_view> parts) {
  EVP_MD_CTX* ctx = ThreadContext();
  Digest digest;
  unsigned int size = 0;
  if (EVP_DigestInit_ex2(ctx, Sha256Md(), nullptr) != 1) std::abort();
  for (std::string_view part : parts) {
    if (EVP_DigestUpdate(ctx, part.data(), part.size()) != 1) std::abort();
  }
  if (EVP_DigestFinal_ex(ctx, digest.data(), &size) != 1 ||
      size != digest.size()) {
    std::abort();
  }
  return digest;
}

Digest Sha256(std::string_view data) { return Sha256({data}); }

}  // namespace pyramid

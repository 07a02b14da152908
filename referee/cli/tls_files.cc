#include "referee/cli/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"

namespace pyramid {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* x509) const { X509_free(x509); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* pkey) const { EVP_PKEY_free(pkey); }
};

// The contents of `path`, or an error naming `flag`.
absl::StatusOr<std::string> ReadFlagFile(const char* flag,
                                         const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(flag, ": ", text.status().message()));
  }
  return text;
}

std::unique_ptr<BIO, BioFree> MemoryBio(const std::string& text) {
  return std::unique_ptr<BIO, BioFree>(
      BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

}  // namespace

absl::Status CheckTlsFiles(const std::string& cert, const std::string& key) {
  absl::StatusOr<std::string> cert_pem = ReadFlagFile("--tls_cert", cert);
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ReadFlagFile("--tls_key", key);
  if (!key_pem.ok()) return key_pem.status();
  std::unique_ptr<X509, X509Free> x509(
      PEM_read_bio_X509(MemoryBio(*cert_pem).get(), nullptr, nullptr, nullptr));
  std::unique_ptr<EVP_PKEY, PkeyFree> pkey(PEM_read_bio_PrivateKey(
      MemoryBio(*key_pem).get(), nullptr, nullptr, nullptr));
  ERR_clear_error();  // What OpenSSL queued: said below, in our words.
  if (x509 == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls_cert: ", cert,
        " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"));
  }
  if (pkey == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls_key: ", key,
        " holds no PEM private key (unencrypted: -----BEGIN PRIVATE KEY----- "
        "or -----BEGIN RSA PRIVATE KEY-----, ...)"));
  }
  if (X509_check_private_key(x509.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_key: ", key, " is not the key of the certificate ",
                     "in --tls_cert ", cert));
  }
  return absl::OkStatus();
}

}  // namespace pyramid

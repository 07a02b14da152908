#include "referee/service/token.h"

#include <sodium.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "referee/crypto/sha256.h"

namespace pyramid {
namespace {

constexpr size_t kIdBytes = 8;
constexpr size_t kSecretBytes = 32;

// Splits "<id>.<secret>"; nullopt when malformed.
std::optional<std::pair<std::string_view, std::string_view>> Split(
    std::string_view token) {
  const size_t dot = token.find('.');
  if (dot != kIdBytes * 2 || token.size() != dot + 1 + kSecretBytes * 2) {
    return std::nullopt;
  }
  return std::make_pair(token.substr(0, dot), token.substr(dot + 1));
}

}  // namespace

std::optional<std::string_view> TokenId(std::string_view token) {
  if (std::optional<std::pair<std::string_view, std::string_view>> parts =
          Split(token)) {
    return parts->first;
  }
  return std::nullopt;
}

bool SecretMatches(std::string_view token, const Digest& secret_hash) {
  std::optional<std::pair<std::string_view, std::string_view>> parts =
      Split(token);
  if (!parts) return false;
  const Digest hash = Sha256(parts->second);
  return sodium_memcmp(hash.data(), secret_hash.data(), hash.size()) == 0;
}

MintedToken MintToken() {
  if (sodium_init() < 0) std::abort();
  std::string id(kIdBytes, '\0');
  std::string secret(kSecretBytes, '\0');
  randombytes_buf(id.data(), id.size());
  randombytes_buf(secret.data(), secret.size());
  MintedToken minted;
  minted.id = ToHex(id);
  const std::string secret_hex = ToHex(secret);
  minted.token = minted.id + "." + secret_hex;
  minted.secret_hash = Sha256(secret_hex);
  sodium_memzero(secret.data(), secret.size());
  return minted;
}

std::optional<std::string> BearerToken(std::string_view authorization) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (authorization.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  return std::string(authorization.substr(kPrefix.size()));
}

void TokenTable::Add(const MintedToken& minted, Principal principal) {
  absl::MutexLock lock(&mu_);
  by_id_[minted.id] = Entry{minted.secret_hash, std::move(principal)};
}

void TokenTable::AddRaw(std::string_view token, Principal principal) {
  // Tokens given from outside need not have our shape: key them by a hash
  // of the whole token under a reserved id.
  absl::MutexLock lock(&mu_);
  by_id_[absl::StrCat("raw:", ToHex(AsView(Sha256(token))))] =
      Entry{Sha256(token), std::move(principal)};
}

void TokenTable::Remove(const std::vector<std::string>& ids) {
  absl::MutexLock lock(&mu_);
  for (const std::string& id : ids) by_id_.erase(id);
}

size_t TokenTable::size() const {
  absl::MutexLock lock(&mu_);
  return by_id_.size();
}

std::optional<Principal> TokenTable::Find(std::string_view token) const {
  absl::MutexLock lock(&mu_);
  if (std::optional<std::string_view> id = TokenId(token)) {
    auto it = by_id_.find(*id);
    if (it != by_id_.end()) {
      if (SecretMatches(token, it->second.secret_hash)) {
        return it->second.principal;
      }
      return std::nullopt;
    }
  }
  auto it = by_id_.find(absl::StrCat("raw:", ToHex(AsView(Sha256(token)))));
  if (it == by_id_.end()) return std::nullopt;
  const Digest hash = Sha256(token);
  if (sodium_memcmp(hash.data(), it->second.secret_hash.data(), hash.size()) !=
      0) {
    return std::nullopt;
  }
  return it->second.principal;
}

}  // namespace pyramid

// Credentials of the referee service (proto/.../referee_service.proto).
//
// A token is "<id>.<secret>": an 8-byte id and a 32-byte secret (256 random
// bits), both lower-case hex. The server stores only SHA-256(secret) under the
// id and compares digests in constant time, so neither the secret nor its
// comparison leaks. Tokens never appear in logs or output.
#ifndef PYRAMID_REFEREE_SERVICE_TOKEN_H_
#define PYRAMID_REFEREE_SERVICE_TOKEN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "referee/crypto/bytes.h"

namespace pyramid {

// Who a token speaks for. A default-constructed one speaks for nobody
// (kNone), which every check refuses: rights are given only by naming them.
struct Principal {
  enum class Kind { kNone, kAdmin, kSeat, kBot };
  Kind kind = Kind::kNone;
  std::string match_id;  // kSeat: hex match id.
  int seat = -1;         // kSeat.
  std::string bot_id;    // kBot.
  // kSeat, kBot: names the principal's Play stream (Connections). Unique
  // among the principals of a Lobby and never 0; a bot keeps its route in
  // every match it plays.
  uint64_t route = 0;
};

// A freshly minted token and what the server keeps of it.
struct MintedToken {
  std::string token;  // Give to the client; never store or print.
  std::string id;
  Digest secret_hash;
};

// Mints a token from the operating system's randomness.
MintedToken MintToken();

// The token in an "authorization: Bearer <token>" metadata value; nullopt
// when the value is not of that form.
std::optional<std::string> BearerToken(std::string_view authorization);

// The id part of `token` ("<id>.<secret>"); nullopt when malformed.
std::optional<std::string_view> TokenId(std::string_view token);

// Whether `token`'s secret part hashes to `secret_hash` (compared in
// constant time); false when the token is malformed.
bool SecretMatches(std::string_view token, const Digest& secret_hash);

// Thread-safe table of issued tokens.
class TokenTable {
 public:
  // Remembers `minted` as a credential for `principal`.
  void Add(const MintedToken& minted, Principal principal);
  // Adds a token given from outside (the admin token), stored hashed.
  void AddRaw(std::string_view token, Principal principal);
  // The principal of `token`, or nullopt when unknown or malformed.
  std::optional<Principal> Find(std::string_view token) const;
  // Forgets the tokens with these ids (MintedToken::id).
  void Remove(const std::vector<std::string>& ids);
  // How many tokens the table holds.
  size_t size() const;

 private:
  struct Entry {
    Digest secret_hash;
    Principal principal;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Entry, std::less<>> by_id_ ABSL_GUARDED_BY(mu_);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_TOKEN_H_

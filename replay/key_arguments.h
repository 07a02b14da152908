// The referee's keys that evidence is checked with (CheckpointKey), and
// each key as given on replay's command line (--key, --tlog_key): the key
// itself or the path of a file that holds it.
//
// Contract of the Parse*KeyArgument functions: a value that parses as a
// key is that key, whatever file bears its name (a file named after the
// key an auditor pins, planted beside the logs, must not pin another);
// else a value naming a regular file or a pipe (`--key=<(curl ...)`, a
// named FIFO with a writer; crypto reads a key file so, the bot's
// `--key_file=<(pass show ...)`) is read (referee/files/bounded_read.h:
// opened without blocking, at most kMaxKeyArgumentFileBytes, a larger file
// refused unread, a pipe once it gave more or was silent for
// SeatRoster::kPipeIdleMs) and its content (surrounding whitespace
// dropped) parsed; else a value that looks like a path (it holds '/' but
// no '+', or ends in .vkey or .pub) fails as "cannot read PATH: reason" (a
// FIFO with no writer and nothing in it, a device: not read); else the
// parse error says what form a key takes.
#ifndef PYRAMID_REPLAY_KEY_ARGUMENTS_H_
#define PYRAMID_REPLAY_KEY_ARGUMENTS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace pyramid {

// The largest key file read: a key is 64 hex digits, a verifier key a
// name and some 50 characters.
inline constexpr uint64_t kMaxKeyArgumentFileBytes = 4096;

// Whose signature a checkpoint must carry: a note verifier key
// ("ORIGIN+KEYID+BASE64", which also fixes the origin), or else the
// referee's raw 32-byte Ed25519 key, signing under the origin the
// checkpoint names.
struct CheckpointKey {
  std::string verifier_key;
  std::string public_key;
  // Empty when whoever checks pinned the key (--key, --tlog_key). Else
  // where `public_key` was read from, as what is checked offers it (`replay
  // verify-tournament DIR` without a key: "the directory's referee.pub"):
  // messages about the checkpoint then name the key so, never "pinned".
  std::string taken_from = {};
};

// The referee's Ed25519 public key, 64 hex digits: its raw 32 bytes. A
// secret key file (keygen's, beside its FILE.pub) is refused, naming the
// public one.
absl::StatusOr<std::string> ParseRefereeKeyArgument(std::string_view value);
// A note verifier key NAME+KEYID+BASE64 (the referee's DATA_DIR/tlog.vkey),
// checked and returned as text.
absl::StatusOr<std::string> ParseVerifierKeyArgument(std::string_view value);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_KEY_ARGUMENTS_H_

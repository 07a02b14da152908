// C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 signatures:
// signing, opening (verifying against a trusted key) and the verifier key
// strings of golang.org/x/mod/sumdb/note ("NAME+KEYID+BASE64(0x01 ‖ key)").
//
// A note is its text (one or more lines, each ending in a newline), a blank
// line, then signature lines "— NAME BASE64(key id ‖ signature)". The key id
// is the first four bytes, big-endian, of SHA-256(NAME ‖ 0x0A ‖ 0x01 ‖ the
// 32-byte public key). docs/transparency-log.md has an example.
#ifndef PYRAMID_REFEREE_TLOG_NOTE_H_
#define PYRAMID_REFEREE_TLOG_NOTE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/crypto/ed25519.h"

namespace pyramid::tlog {

// A key that may sign notes: its name and Ed25519 public key.
struct NoteVerifier {
  std::string name;
  std::string public_key;  // 32 bytes.
};

// True iff `name` may name a note key: non-empty, valid UTF-8 without
// spaces, '+' or control characters.
bool IsValidKeyName(std::string_view name);

// SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public_key)[:4], big-endian.
uint32_t Ed25519KeyId(std::string_view name, std::string_view public_key);

// "NAME+KEYID+BASE64(0x01 ‖ public key)", KEYID as 8 lower-case hex digits.
std::string FormatVerifierKey(const NoteVerifier& key);
// Parses the string above; the key id must match the name and key.
absl::StatusOr<NoteVerifier> ParseVerifierKey(std::string_view text);

// `text` (which must end in a newline and hold no blank line at its end)
// followed by the blank line and one signature line by `key` as `name`.
absl::StatusOr<std::string> SignNote(std::string_view text,
                                     std::string_view name,
                                     const SigningKey& key);

// One signature line of a note, as written (nothing verified).
struct NoteSignature {
  std::string name;
  uint32_t key_id = 0;
  std::string signature;  // The bytes after the key id.
};

// A well-formed note split into its text (through its last newline before
// the blank line) and its signature lines; INVALID_ARGUMENT "malformed
// note: ..." otherwise (the form OpenNote requires). Verifies nothing.
struct ParsedNote {
  std::string_view text;
  std::vector<NoteSignature> signatures;
};
absl::StatusOr<ParsedNote> ParseNote(std::string_view note);

// Checks `note` and returns its text. Fails unless the note is well formed
// (valid UTF-8, no control characters but newlines, text, blank line, at
// least one and at most 100 signature lines) and a signature line by
// `verifier` (same name and key id) verifies; a failing signature by it
// fails the note. Lines by other keys are ignored, as the spec requires.
// A note that opened is kept (the last few, whole, with the verifier's
// name and key): the same bytes opened again by the same verifier give its
// text without checking the signature again, since the check would give
// the same answer; a note differing in any byte is checked in full. (A
// referee answers every inclusion proof with its one latest checkpoint,
// and all of a tournament directory's proofs carry that one.)
absl::StatusOr<std::string> OpenNote(std::string_view note,
                                     const NoteVerifier& verifier);

// How many signatures OpenNote has checked in this process (tests: a note
// opened again is not checked again).
uint64_t NoteSignatureChecks();

}  // namespace pyramid::tlog

#endif  // PYRAMID_REFEREE_TLOG_NOTE_H_

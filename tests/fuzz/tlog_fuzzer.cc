// Fuzz target: the transparency-log texts a verifier takes from anyone
// (docs/transparency-log.md): signed notes and checkpoints, verifier keys,
// C2SP tlog-proof files and consistency proof files, and the offline checks
// built on them. The first byte picks the parser; the rest is its input.
// Whatever parses must format back to an input that parses to the same
// value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "referee/crypto/ed25519.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/note.h"
#include "replay/evidence.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

namespace tlog = ::pyramid::tlog;

// A fixed key: a fuzzed note signed by it cannot be produced, but every
// parse step before the signature check can.
const pyramid::SigningKey& Key() {
  static const pyramid::SigningKey* key = new pyramid::SigningKey(
      *pyramid::SigningKey::FromSeed(std::string(32, 'f')));
  return *key;
}

using ::pyramid::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1,
                              size - 1);
  const tlog::NoteVerifier verifier{"pyramid-referee/fuzz", Key().public_key()};
  const pyramid::CheckpointKey key{"", Key().public_key()};
  switch (data[0] % 6) {
    case 0: {
      (void)tlog::OpenNote(text, verifier);
      (void)tlog::OpenCheckpoint(text, verifier);
      (void)pyramid::OpenCheckpointWith(text, key);
      break;
    }
    case 1: {
      auto checkpoint = tlog::ParseCheckpoint(text);
      if (checkpoint.ok()) {
        auto again = tlog::ParseCheckpoint(tlog::FormatCheckpoint(*checkpoint));
        Check(again.ok() && again->origin == checkpoint->origin &&
              again->size == checkpoint->size &&
              again->root == checkpoint->root);
      }
      break;
    }
    case 2: {
      auto parsed = tlog::ParseVerifierKey(text);
      if (parsed.ok()) {
        auto again = tlog::ParseVerifierKey(tlog::FormatVerifierKey(*parsed));
        Check(again.ok() && again->name == parsed->name &&
              again->public_key == parsed->public_key);
      }
      break;
    }
    case 3: {
      auto proof = tlog::ParseTlogProof(text);
      if (proof.ok()) {
        auto again = tlog::ParseTlogProof(tlog::FormatTlogProof(*proof));
        Check(again.ok() && again->index == proof->index &&
              again->hashes == proof->hashes && again->extra == proof->extra &&
              again->checkpoint == proof->checkpoint);
      }
      break;
    }
    case 4: {
      auto proof = tlog::ParseConsistencyProof(text);
      if (proof.ok()) {
        auto again =
            tlog::ParseConsistencyProof(tlog::FormatConsistencyProof(*proof));
        Check(again.ok() && again->old_size == proof->old_size &&
              again->new_size == proof->new_size &&
              again->hashes == proof->hashes);
      }
      break;
    }
    case 5: {
      // A proof file against a log: the first half is the log, the rest
      // the proof.
      const std::string_view log = text.substr(0, text.size() / 2);
      const std::string_view proof = text.substr(text.size() / 2);
      (void)pyramid::CheckInclusion(log, "00000000000000000000000000000000",
                                    proof, key);
      (void)pyramid::CheckConsistency(proof, proof, log, key);
      break;
    }
  }
  return 0;
}

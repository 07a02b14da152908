// The standalone verifier: judges a match log without trusting the referee
// that wrote it. Checks framing, the hash chain, checkpoint and seal
// signatures, seat commit signatures, the referee's seed commitment and the
// seed, every commitment against its reveal, the decision protocol, and
// replays the rules from scratch comparing every recorded result and the
// outcome with the recomputed ones (docs/log-format.md, "Verification").
#ifndef PYRAMID_REPLAY_VERIFIER_H_
#define PYRAMID_REPLAY_VERIFIER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

class State;  // referee/games/game.h

struct VerifyOptions {
  // Raw 32-byte referee public key to require. Empty: use the key in the
  // log's header (the verdict then only proves the log is self-consistent
  // and signed by whoever holds that key).
  std::string pinned_key;
  // Benchmarks only: skip Ed25519 verification (checkpoints, seal, seat
  // signatures) to time everything else.
  bool check_signatures = true;
  // How much is checked (docs/log-format.md, "Verification levels").
  //   kFull:  everything: the log is replayed under the game's rules.
  //   kChain: the framing, canonical encoding, hash chain, the header's
  //           game-independent fields (format version, sizes, pinned key),
  //           checkpoint placement, the last signature, at most one
  //           outcome, and a seal after it; no rule, commitment or seed is
  //           checked, so the outcome is the one the log states, vouched for
  //           by the referee's signature but not recomputed. For tools that
  //           lack a game's rules; never the verdict on a result.
  enum class Level { kFull, kChain };
  Level level = Level::kFull;
};

struct Verdict {
  enum class Kind {
    kGenuine,         // Sealed, and every check passed.
    kUnsealedPrefix,  // No seal, but every record up to the last checkpoint
                      // verifies (a match cut short, e.g. by a crash).
    kNotGenuine,      // Some check failed: see bad_record and reason.
  };
  Kind kind = Kind::kNotGenuine;
  // kNotGenuine: index of the first bad record (the record count when the
  // problem is in the framing after the last complete record).
  uint64_t bad_record = 0;
  // kNotGenuine: the failure is the referee signature at bad_record (the
  // seal's, or an unsealed log's last checkpoint's), which is what vouches
  // for every record before it: none of them is the referee's either.
  bool signature_failed = false;
  // Why the log is not genuine, or what the unsealed prefix covers
  // ("records 0..N verify (...)"; callers name the kind before it).
  std::string reason;
  uint64_t records = 0;  // Complete records read.
  // Records covered by the last signature record read (a checkpoint or seal
  // at index N covers records 0..N-1): by a valid signature when the
  // verdict is genuine or an unsealed prefix; signature_failed when that
  // signature does not verify; for a log not genuine for another reason,
  // a signature not checked.
  uint64_t signed_records = 0;
  uint64_t moves = 0;  // Actions applied to the game (all seats).
  // Seats whose seed contribution names this log's header (its hash), and
  // those of them with a key: each of these signed a commitment binding the
  // header, so the referee fixed its seed contribution, the game, options
  // and seats before that seat's contribution (docs/log-format.md, "What a
  // log proves"). A seat without a key proves nothing by it: the referee
  // could have written its commitment, naming the header or not.
  uint32_t seats_naming_header = 0;
  uint32_t keyed_seats_naming_header = 0;
  bool key_from_header = true;   // No key was pinned.
  referee::v1::Header header;    // As read (when record 0 parsed).
  referee::v1::Outcome outcome;  // The verified outcome (kGenuine only;
                                 // at Level::kChain the logged one).
};

// "genuine", "unsealed prefix" or "not genuine".
const char* VerdictKindName(Verdict::Kind kind);

// Sees the positions a full verification reaches as it replays the rules,
// for a caller that shows them (the match viewer, replay/match_steps.h) and
// need not replay the rules again. Positions come in log order: the deal
// after the seed, then the position after each Applied record the replay
// expects (a decision's moves, then each automatic move after them). Each
// is seen when the verifier computes it, which can be before it reads the
// record that logs it, and none after verification stops: only when every
// record verifies does each Applied record have its position.
class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  // The rules reached `state` (valid during the call); `header` is the
  // log's.
  virtual void OnPosition(const referee::v1::Header& header,
                          const State& state) = 0;
};

// Verifies the log file held in `file`. At the full level, `observer` (when
// not null) sees every position the replay reaches; the verdict is the same
// with or without one.
Verdict VerifyLog(std::string_view file, const VerifyOptions& options,
                  ReplayObserver* observer = nullptr);
// The same, `file` being the first bytes of a file of `file_size` bytes
// (ReadLog's, which reads no further than the record after a seal:
// LogFile::file_size(), replay/log_file.h), or all of it; 0 when its size
// is not known. A record or bytes after the seal are then said with how
// many bytes follow the seal ("record after the seal (4294957099 bytes
// follow it, from byte 10197 to the end of the file)"); the verdict is
// otherwise the same.
Verdict VerifyLog(std::string_view file, uint64_t file_size,
                  const VerifyOptions& options,
                  ReplayObserver* observer = nullptr);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_VERIFIER_H_

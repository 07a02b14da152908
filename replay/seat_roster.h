// An auditor's roster of seat keys (`replay verify --seat_keys=FILE`,
// `replay verify-tournament --seat_keys=FILE`): the bots the auditor knows,
// each with its Ed25519 public key or none. A log's header names each seat
// and its key, and that is only the header's word: a referee holds its own
// key and could give a seat a key of its own choosing (or none), and then
// write that seat's moves (docs/log-format.md, "What a log proves against
// its referee"). With a roster, every seat of a log must be a bot of the
// roster with the roster's key.
//
// The roster's text, one bot per line:
//
//   NAME KEY
//
// NAME is the seat's name as the log's header gives it (any bytes but
// whitespace). KEY is the bot's public key as 64 hex digits (keygen's
// FILE.pub, `replay show`'s "signs its commits with key ..."; upper or
// lower case), the path of a file that holds them (a keygen FILE.pub; a
// relative path is taken from the roster's directory; a secret key file
// beside its .pub is refused), or `none` for a bot that plays without a
// key. Fields are separated by blanks; a field that starts with `#`
// starts a comment to the end of the line; blank lines are ignored. A
// roster names at least one bot, and each bot once.
#ifndef PYRAMID_REPLAY_SEAT_ROSTER_H_
#define PYRAMID_REPLAY_SEAT_ROSTER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "pyramid/referee/v1/log.pb.h"
#include "replay/verifier.h"

namespace pyramid {

class SeatRoster {
 public:
  // The largest roster file read: a larger one is refused unread.
  static constexpr uint64_t kMaxFileBytes = 1 << 20;

  // Parses the roster `text` (the format above). A key given as a path is
  // read relative to `directory` (the roster file's; "" for the working
  // directory). INVALID_ARGUMENT naming the line ("line 3: ...") for a
  // line that is not NAME KEY, a key that is none of the three forms (or a
  // file that cannot be read or holds no public key), a name listed twice,
  // or a roster that names no bot.
  static absl::StatusOr<SeatRoster> Parse(std::string_view text,
                                          std::string_view directory = "");

  // Reads and parses the roster file at `path`; the error names the file
  // ("PATH line 3: ...", or why it cannot be read: not there, a directory,
  // larger than kMaxFileBytes).
  static absl::StatusOr<SeatRoster> ReadFile(const std::string& path);

  // How many bots the roster names.
  size_t size() const { return keys_.size(); }
  // Whether the roster names `name`, and its key then (raw 32 bytes, or
  // empty for none).
  bool Has(const std::string& name) const { return keys_.contains(name); }
  const std::string& KeyOf(const std::string& name) const {
    return keys_.at(name);
  }

  // Why the seats of `header` are not the roster's: for the first seat (in
  // seat order) whose name the roster lacks, or whose key (or none) is not
  // the roster's, its number, its name (escaped) and both keys, whole;
  // "" when every seat is a bot of the roster with its key.
  std::string SeatsDiffer(const referee::v1::Header& header) const;

 private:
  std::map<std::string, std::string> keys_;  // Name -> raw key, or "".
};

// Judges `verdict` against `roster`: a genuine log or an unsealed prefix
// (whose header, record 0, its referee's signature vouches for) whose
// seats are not the roster's (SeatRoster::SeatsDiffer) becomes not genuine
// at record 0, the header, with that as its reason. A verdict of not
// genuine is left as it is (its header is not vouched for). Returns
// whether the seats were found to match (the verdict not genuine: false).
bool JudgeSeats(const SeatRoster& roster, Verdict& verdict);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_SEAT_ROSTER_H_

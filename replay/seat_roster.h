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
// NAME is the seat's name as the log's header gives it. KEY is the bot's
// public key as 64 hex digits (keygen's FILE.pub, `replay show`'s "signs
// its commits with key ..."; upper or lower case), the path of a file that
// holds them (a keygen FILE.pub, at most kMaxKeyFileBytes; a relative path
// is taken from the roster's directory; a secret key file beside its .pub
// is refused), or `none` for a bot that plays without a key. Fields are
// separated by blanks (space, tab, CR, FF, VT); a field that starts with
// `#` starts a comment to the end of the line; blank lines are ignored. A
// field that starts with `"` is quoted: it ends at the next `"` not
// escaped, and C escapes inside it stand for their bytes (\" \\ \n \t
// \xHH ..., as absl::CUnescape reads them; a name quoted this way is the
// form the verifier's messages print). Any name the referee seats (1 to 64
// of any bytes) can be listed so: one that starts with `#` or `"`, or holds
// a blank or a newline, must be quoted (`"#x"`, `"seat 0"`, `"a\"b"`);
// any name may be. A quoted key is read as the same key bare. A roster names
// at least one bot, and each bot once.
//
// The roster file itself is read through its descriptor, never waiting
// long (referee/files/bounded_read.h): a regular file up to kMaxFileBytes;
// or a pipe or FIFO (`--seat_keys=<(grep ...)`, a named FIFO with a
// writer), read to its end when it has a writer or data the moment it is
// opened, else refused at once (a FIFO with no writer, which would
// otherwise wait for one), and refused when nothing comes from it for
// kPipeIdleMs. Anything else (a terminal, a device, a socket) is refused.
// A key file must be a regular file, of at most kMaxKeyFileBytes.
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
  // The largest key file a roster names: 64 hex digits and whitespace fit
  // many times over; a larger file is refused unread.
  static constexpr uint64_t kMaxKeyFileBytes = 4096;
  // How long a roster that is a pipe may stay silent before it is refused.
  static constexpr int kPipeIdleMs = 60'000;

  // Parses the roster `text` (the format above). A key given as a path is
  // read relative to `directory` (the roster file's; "" for the working
  // directory). INVALID_ARGUMENT naming the line ("line 3: ...") for a
  // line that is not NAME KEY, a key that is none of the three forms (or a
  // file that cannot be read or holds no public key), a name listed twice,
  // or a roster that names no bot.
  static absl::StatusOr<SeatRoster> Parse(std::string_view text,
                                          std::string_view directory = "");

  // Reads and parses the roster file at `path` (a regular file or a pipe,
  // as said above); the error names the file ("PATH line 3: ...", or why
  // it cannot be read: not there, a directory, larger than kMaxFileBytes,
  // a FIFO with no writer, a device).
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

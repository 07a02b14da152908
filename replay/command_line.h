// replay's command line (replay/main.cc): its flags, each declared once in
// a table with the commands that take it, from which the parser, its
// errors and the usage are made. A flag's value follows it ("--key HEX")
// or an = ("--key=HEX"); a flag without a value refuses one
// ("--allow_unsealed=true"). A dash and an underscore in a flag's name are
// one: --allow-unsealed is --allow_unsealed (underscores are the
// documented spelling). Errors name a flag as it was given.
#ifndef PYRAMID_REPLAY_COMMAND_LINE_H_
#define PYRAMID_REPLAY_COMMAND_LINE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "replay/seat_roster.h"
#include "replay/verifier.h"

namespace pyramid {

// The flags and operands given to one command.
struct Flags {
  std::string key;        // --key, raw 32 bytes.
  std::string tlog_key;   // --tlog_key: a note verifier key.
  std::string inclusion;  // --inclusion: a tlog-proof file.
  std::string out;        // --out: the page `replay html` writes.
  VerifyOptions::Level level = VerifyOptions::Level::kFull;  // --level.
  bool allow_unsealed = false;  // --allow_unsealed.
  bool json = false;            // --json.
  bool markdown = false;        // --markdown.
  // --referee: "embedded" or "running" (verify-tournament), "" when not
  // given (read from the directory).
  std::string referee;
  // --seat_keys: the auditor's roster of seat keys.
  std::optional<SeatRoster> seat_keys;
  std::vector<std::string> operands;

  const SeatRoster* roster() const {
    return seat_keys.has_value() ? &*seat_keys : nullptr;
  }
};

// Parses `args`, the words after `command` ("--flag value", "--flag=value"
// or an operand); an error (INVALID_ARGUMENT) says what is wrong, naming a
// flag as given: an unknown flag; one `command` does not take (refused,
// not ignored: it would change nothing, yet look applied); a value missing,
// given to a flag that takes none, or given twice; a value its flag
// refuses (a key, a roster that cannot be read); --key and --tlog_key
// naming different referee keys.
absl::StatusOr<Flags> ParseArgs(absl::string_view command,
                                const std::vector<std::string>& args);

// One command as the usage shows it.
struct CommandUsage {
  absl::string_view name;
  absl::string_view operands;  // After its flags in the usage.
  absl::string_view about;     // The usage's lines below it, or empty.
  // Its exit statuses, one sentence ("0 genuine; 1 ...; 2 ..."), wrapped
  // in the usage's "exit status:" section.
  absl::string_view exits = "";
};

// The usage of `commands`: each with the flags it takes (in brackets,
// unless it cannot run without one), then every flag with its help, then
// what files are taken, then each command's exit statuses.
std::string UsageText(absl::Span<const CommandUsage> commands);

// The one line a usage error prints after saying what is wrong (as
// refctl's): "usage: replay verify [flags] LOG... (see replay --help)",
// the flags `command` cannot do without named ("replay export --json
// LOG"), "[flags]" standing for the others.
std::string ShortUsage(const CommandUsage& command);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_COMMAND_LINE_H_

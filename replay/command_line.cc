#include "replay/command_line.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/note.h"
#include "replay/key_arguments.h"

namespace pyramid {
namespace {

// One flag: everything the parser, its errors and the usage know of it.
struct FlagSpec {
  absl::string_view name;  // As documented, underscores: "--seat_keys".
  // What its value is, as the usage names it ("ROSTER"); empty for a flag
  // that takes no value.
  absl::string_view value;
  absl::string_view commands;  // The commands that take it, blank-separated.
  absl::string_view help;      // Its line in the usage.
  // Stores `value` (empty for a flag without one) in `flags`; else says
  // what is wrong with it (the parser puts the flag's name first).
  absl::Status (*set)(const std::string& value, Flags& flags);
  // The commands that cannot run without it, blank-separated: the usage
  // shows it there without brackets.
  absl::string_view required_by = "";
};

// The setters of a flag without a value, and of one whose value is kept
// as given.
template <bool Flags::*kField>
absl::Status SetTrue(const std::string&, Flags& flags) {
  flags.*kField = true;
  return absl::OkStatus();
}
template <std::string Flags::*kField>
absl::Status SetString(const std::string& value, Flags& flags) {
  flags.*kField = value;
  return absl::OkStatus();
}

// Stores a key argument's `key` in `to`, or returns why there is none.
absl::Status SetKey(absl::StatusOr<std::string> key, std::string& to) {
  if (key.ok()) to = *std::move(key);
  return key.status();
}

// In the order the usage lists them.
constexpr FlagSpec kFlags[] = {
    {"--key", "HEX|FILE", "verify consistency verify-tournament html",
     "the referee's public key (default: the log's)",
     [](const std::string& value, Flags& flags) {
       // HEX, or a file holding it (the referee's DATA_DIR/referee.key.pub).
       return SetKey(ParseRefereeKeyArgument(value), flags.key);
     }},
    {"--allow_unsealed", "", "verify html",
     "an unsealed prefix (a log cut short) exits 0",
     SetTrue<&Flags::allow_unsealed>},
    {"--level", "full|chain", "verify",
     "chain: no rules replayed (default: full)",
     [](const std::string& value, Flags& flags) {
       if (value == "full") {
         flags.level = VerifyOptions::Level::kFull;
       } else if (value == "chain") {
         flags.level = VerifyOptions::Level::kChain;
       } else {
         return absl::InvalidArgumentError(
             absl::StrCat("full or chain, not \"", value, "\""));
       }
       return absl::OkStatus();
     }},
    {"--seat_keys", "ROSTER", "verify verify-tournament",
     "every seat a bot of ROSTER, with its key",
     [](const std::string& value, Flags& flags) {
       absl::StatusOr<SeatRoster> roster = SeatRoster::ReadFile(value);
       if (roster.ok()) flags.seat_keys = *std::move(roster);
       return roster.status();
     }},
    {"--inclusion", "FILE.tlog-proof", "verify",
     "one LOG, in the proof's checkpoint", SetString<&Flags::inclusion>},
    {"--tlog_key", "VKEY|FILE", "verify consistency verify-tournament",
     "the transparency log's verifier key",
     [](const std::string& value, Flags& flags) {
       // VKEY, or a file holding it (the referee's DATA_DIR/tlog.vkey).
       return SetKey(ParseVerifierKeyArgument(value), flags.tlog_key);
     }},
    {"--referee", "embedded|running", "verify-tournament",
     "which referee played (default: DIR's key files)",
     [](const std::string& value, Flags& flags) {
       if (value != "embedded" && value != "running") {
         return absl::InvalidArgumentError(
             absl::StrCat("embedded or running, not \"", value, "\""));
       }
       flags.referee = value;
       return absl::OkStatus();
     }},
    {"--out", "FILE", "html", "the page's file (default: LOG with .html)",
     SetString<&Flags::out>},
    {"--json", "", "verify consistency verify-tournament export",
     "JSON, an object a line (see each command)", SetTrue<&Flags::json>,
     "export"},
    {"--markdown", "", "games", "the games as a Markdown table",
     SetTrue<&Flags::markdown>},
};

// The flag `given` ("--seat-keys", "--seat_keys") names, or null: a dash
// and an underscore in a name are one.
const FlagSpec* FindFlag(std::string given) {
  std::replace(given.begin() + 2, given.end(), '-', '_');
  for (const FlagSpec& flag : kFlags) {
    if (flag.name == given) return &flag;
  }
  return nullptr;
}

// Whether `command` is one of `commands` (blank-separated).
bool Among(absl::string_view commands, absl::string_view command) {
  for (absl::string_view one : absl::StrSplit(commands, ' ')) {
    if (one == command) return true;
  }
  return false;
}

bool Takes(const FlagSpec& flag, absl::string_view command) {
  return Among(flag.commands, command);
}

// The flags `command` takes, as an error says them.
std::string FlagsOf(absl::string_view command) {
  std::vector<absl::string_view> names;
  for (const FlagSpec& flag : kFlags) {
    if (Takes(flag, command)) names.push_back(flag.name);
  }
  if (names.empty()) return "no flag";
  if (names.size() == 1) return absl::StrCat(names[0], " only");
  return absl::StrJoin(names, ", ");
}

// `words` joined by blanks into lines of at most 80 columns (a longer word
// alone), each line after the first starting with `indent`.
std::string Wrap(const std::vector<std::string>& words,
                 absl::string_view indent) {
  std::string text, line = words.front();
  for (size_t i = 1; i < words.size(); ++i) {
    if (line.size() + 1 + words[i].size() > 80) {
      absl::StrAppend(&text, line, "\n");
      line = absl::StrCat(indent, words[i]);
    } else {
      absl::StrAppend(&line, " ", words[i]);
    }
  }
  return absl::StrCat(text, line, "\n");
}

}  // namespace

absl::StatusOr<Flags> ParseArgs(absl::string_view command,
                                const std::vector<std::string>& args) {
  Flags flags;
  std::vector<const FlagSpec*> given;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!absl::StartsWith(arg, "--")) {
      flags.operands.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const FlagSpec* flag = FindFlag(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", name));
    }
    if (!Takes(*flag, command)) {
      return absl::InvalidArgumentError(
          absl::StrCat("replay ", command, " does not take ", name,
                       " (it takes ", FlagsOf(command), ")"));
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      if (flag->value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, " takes no value (got \"", value, "\"); give it alone"));
      }
    } else if (!flag->value.empty()) {
      if (++i == args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      }
      value = args[i];
    }
    // A value given twice: the last would win silently (a second roster
    // or referee key the user may think both apply).
    if (!flag->value.empty() &&
        std::find(given.begin(), given.end(), flag) != given.end()) {
      return absl::InvalidArgumentError(absl::StrCat(name, " given twice"));
    }
    if (absl::Status status = flag->set(value, flags); !status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag->name, ": ", status.message()));
    }
    given.push_back(flag);
  }
  // Given together, --key and --tlog_key must name one referee key (a
  // verifier key holds the key it checks with): else the checkpoint would
  // be opened with one key and the logs judged with another, or --key
  // silently ignored (consistency opens checkpoints only).
  if (!flags.key.empty() && !flags.tlog_key.empty()) {
    const absl::StatusOr<tlog::NoteVerifier> verifier =
        tlog::ParseVerifierKey(flags.tlog_key);
    if (!verifier.ok() || verifier->public_key != flags.key) {
      return absl::InvalidArgumentError(
          absl::StrCat("--key and --tlog_key name different referee keys (",
                       ToHex(flags.key), " and ",
                       verifier.ok() ? ToHex(verifier->public_key) : "none",
                       "); give one of them, or both of the same referee"));
    }
  }
  return flags;
}

std::string UsageText(absl::Span<const CommandUsage> commands) {
  std::ostringstream out;
  out << "usage:\n";
  for (const CommandUsage& command : commands) {
    std::vector<std::string> words = {absl::StrCat("  replay ", command.name)};
    for (const FlagSpec& flag : kFlags) {
      if (!Takes(flag, command.name)) continue;
      const std::string word =
          absl::StrCat(flag.name, flag.value.empty() ? "" : " ", flag.value);
      words.push_back(Among(flag.required_by, command.name)
                          ? word
                          : absl::StrCat("[", word, "]"));
    }
    if (!command.operands.empty()) words.emplace_back(command.operands);
    out << Wrap(words, "      ") << command.about;
  }
  out << "  replay --help\n"
         "  replay --version\n"
         "flags: --NAME VALUE or --NAME=VALUE; a - and an _ in NAME are "
         "one\n"
         "(--allow-unsealed is --allow_unsealed, --seat-keys is --seat_keys)"
         "\n";
  for (const FlagSpec& flag : kFlags) {
    out << absl::StrFormat(
        "  %-28s %s\n",
        absl::StrCat(flag.name, flag.value.empty() ? "" : " ", flag.value),
        flag.help);
  }
  out << "files: a regular file or a pipe (LOG: <(curl URL)), not a "
         "device or directory;\n"
         "  several LOGs are verified at once within half this machine's "
         "memory\n"
         "  (a larger LOG alone); a proof or checkpoint is at most 1 MiB\n"
         "  --key, --tlog_key FILE: a regular file or a pipe\n"
         "    (--key=<(ssh host cat referee.key.pub)), at most 4 KiB\n"
         "  --seat_keys ROSTER: a line NAME KEY per bot, KEY 64 hex digits "
         "(its\n"
         "    public key), a file holding them, or none; # starts a comment; "
         "a NAME\n"
         "    with a blank or starting with # or \" in double quotes, C "
         "escapes inside\n"
         "    (\"seat 0\", \"#x\", \"a\\\"b\")\n";
  out << "exit status (--help, --version: 0):\n";
  for (const CommandUsage& command : commands) {
    if (command.exits.empty()) continue;
    std::vector<std::string> words = {absl::StrCat("  ", command.name, ":")};
    // A status stays on the line of the word after it ("1 a record").
    std::string status;
    for (absl::string_view word :
         absl::StrSplit(command.exits, ' ', absl::SkipEmpty())) {
      if (word.size() == 1 && absl::ascii_isdigit(word[0])) {
        status = absl::StrCat(word, " ");
        continue;
      }
      words.push_back(absl::StrCat(status, word));
      status.clear();
    }
    if (!status.empty()) words.push_back(status.substr(0, 1));
    out << Wrap(words, "    ");
  }
  return out.str();
}

std::string ShortUsage(const CommandUsage& command) {
  std::string line = absl::StrCat("usage: replay ", command.name);
  bool optional = false;
  for (const FlagSpec& flag : kFlags) {
    if (!Takes(flag, command.name)) continue;
    if (Among(flag.required_by, command.name)) {
      absl::StrAppend(&line, " ", flag.name, flag.value.empty() ? "" : " ",
                      flag.value);
    } else {
      optional = true;
    }
  }
  if (optional) absl::StrAppend(&line, " [flags]");
  if (!command.operands.empty()) absl::StrAppend(&line, " ", command.operands);
  return absl::StrCat(line, " (see replay --help)");
}

}  // namespace pyramid

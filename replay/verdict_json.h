// replay's verdicts as JSON, for auditors' scripts: `replay verify --json`
// (one object per LOG, docs/log-format.md, "Several logs"), `replay
// verify-tournament --json` (one object, docs/transparency-log.md,
// "Tournaments") and `replay consistency --json`. Every field the text
// line carries is a field here; the documents list them.
//
// The text written is ASCII and always valid JSON (RFC 8259), whatever
// bytes a log or a directory holds: names, labels and reasons are the
// host's or a bot's text (JsonString).
#ifndef PYRAMID_REPLAY_VERDICT_JSON_H_
#define PYRAMID_REPLAY_VERDICT_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "replay/evidence.h"
#include "replay/tournament_check.h"
#include "replay/verifier.h"

namespace pyramid {

// `text` as a JSON string, between double quotes. Valid UTF-8 is kept
// character for character; the output is ASCII: `"` and `\` as \" and \\,
// \b \f \n \r \t as such, every other character below U+0020, DEL and every
// character above it as \uXXXX (lower-case hex; above U+FFFF a surrogate
// pair), so that the text is safe to show on a terminal as it is (a C1
// control, a bidirectional override or U+2028 is escaped, not written).
// Each byte that does not start a valid UTF-8 sequence (a stray
// continuation byte, a truncated, overlong or surrogate sequence, a code
// point above U+10FFFF) is U+FFFD, the replacement character, as Go's
// encoding/json and Python's errors="replace" have it: JSON strings hold
// characters, not bytes (the text line shows such a byte as \xNN).
std::string JsonString(absl::string_view text);

// A JSON object written field by field, in the order given; keys are
// ours (snake_case), values JsonString's or another JSON value.
class JsonObject {
 public:
  JsonObject& String(absl::string_view key, absl::string_view value);
  JsonObject& Number(absl::string_view key, uint64_t value);
  JsonObject& Bool(absl::string_view key, bool value);
  JsonObject& Null(absl::string_view key);
  // `json`: a JSON value written already (an object, an array).
  JsonObject& Value(absl::string_view key, absl::string_view json);
  // The object: "{...}".
  std::string Text() const { return "{" + fields_ + "}"; }

 private:
  JsonObject& Field(absl::string_view key, absl::string_view json);
  std::string fields_;
};

// `strings` as a JSON array of strings.
std::string JsonStrings(const std::vector<std::string>& strings);

// What `replay verify` learnt of one LOG, for its JSON line.
struct LogReport {
  std::string file;  // The LOG as given.
  // Set when the file could not be read: why (the verdict is then unused).
  std::optional<std::string> unreadable;
  Verdict verdict;
  VerifyOptions::Level level = VerifyOptions::Level::kFull;
  bool roster = false;              // --seat_keys was given,
  bool seats_match_roster = false;  // and the seats are its (JudgeSeats).
  bool ok = false;                  // The LOG alone would exit 0.
  // With --inclusion: the proof's file, and what came of it.
  struct Proof {
    // Declared, so that clang takes a Proof as default-constructible inside
    // LogReport (std::optional's emplace()); the members' initializers
    // below are its values.
    Proof() {}
    std::string file;
    // The log did not pass, and the proof was not checked.
    bool checked = false;
    // The checkpoint's key was pinned (--key or --tlog_key), not the one
    // the log names.
    bool key_pinned = false;
    // Checked: the inclusion, or why the proof fails.
    std::optional<Inclusion> inclusion;
    std::string failure;
  };
  std::optional<Proof> proof;
};

// The JSON object of `report`, one line without its newline
// (docs/log-format.md, "Several logs", lists the fields).
std::string LogReportJson(const LogReport& report);

// The JSON object of `verify-tournament DIR`'s `verdict`, one line without
// its newline (docs/transparency-log.md lists the fields). `roster`:
// --seat_keys was given.
std::string TournamentVerdictJson(const std::string& dir,
                                  const TournamentVerdict& verdict,
                                  bool roster);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_VERDICT_JSON_H_

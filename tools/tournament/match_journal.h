// The tournament runner's match journal: one line per match, appended as
// the match happens. OUTPUT/journal.jsonl holds a line per finished match,
// appended and flushed to disk as soon as the match's log has been
// verified, so that an interrupted tournament (SIGINT, a crash, SIGKILL)
// resumes from its output directory without replaying any match it already
// finished; OUTPUT/created.jsonl a line per match created on a running
// referee; OUTPUT/pairings.jsonl, written whole by Line, a line per match of
// each Swiss round paired (docs/tournament.md). Not the referee's write-ahead
// journal of its match logs' bytes (LogJournal, referee/core/log_journal.h).
//
// OUTPUT/bots.jsonl holds a line per end and restart of a bot's program
// (TournamentBotEvent), so that the restarts and how each ended add up over
// the runs of a tournament.
//
// Format: JSON Lines; each line is a TournamentMatchResult (a
// TournamentBotEvent in bots.jsonl) in protobuf's JSON mapping
// (proto/pyramid/referee/v1/tournament.proto). A last line cut
// short by a crash (a line without its newline: Append writes each whole)
// is ignored on reading, and cut off before the next append, which would
// otherwise run on from it into a line no later read could parse.
#ifndef PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_
#define PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

class MatchJournal {
 public:
  // Reads the entries of the journal at `path` (none if the file does not
  // exist), each an `Entry` (`what` in messages). DATA_LOSS names the line
  // of an entry that does not parse, other than a truncated last line.
  template <typename Entry = referee::v1::TournamentMatchResult>
  static absl::StatusOr<std::vector<Entry>> Read(
      const std::string& path, std::string_view what = "match result") {
    absl::StatusOr<std::string> text = ReadText(path);
    if (!text.ok()) return text.status();
    return Parse<Entry>(*text, path, what);
  }

  // The entries of journal text `text` (read from `name`, for messages),
  // as Read.
  template <typename Entry = referee::v1::TournamentMatchResult>
  static absl::StatusOr<std::vector<Entry>> Parse(
      std::string_view text, std::string_view name,
      std::string_view what = "match result") {
    std::vector<Entry> entries;
    if (absl::Status s = ParseInto(
            text, name, what, [&entries] { return &entries.emplace_back(); });
        !s.ok()) {
      return s;
    }
    return entries;
  }

  // Opens `path` for appending, creating it if needed; a last line without
  // its newline is cut off first. With `sync` false, Append writes each
  // line through to the kernel (it survives the runner's SIGKILL) but does
  // not wait for the disk (a power loss may lose the last lines): for a
  // file whose lines only spare a search (created.jsonl).
  static absl::StatusOr<std::unique_ptr<MatchJournal>> OpenForAppend(
      const std::string& path, bool sync = true);

  // `result` as one line of a journal, its newline included; INTERNAL
  // when it cannot be encoded.
  static absl::StatusOr<std::string> Line(
      const google::protobuf::Message& result);

  ~MatchJournal();

  // Appends `result` (any message: a TournamentMatchResult, a
  // TournamentBotEvent) as one line and makes it durable (fsync, unless
  // opened with `sync` false). Not thread-safe: the caller serialises
  // appends. A failed append (RESOURCE_EXHAUSTED for a full disk or quota,
  // INTERNAL otherwise, naming the file and the error) may have left part
  // of its line: every later append fails the same way without writing,
  // so that the cut line stays the last (a later read ignores it, and the
  // next OpenForAppend cuts it off) instead of one before whole lines,
  // which would make the journal unreadable.
  absl::Status Append(const google::protobuf::Message& result);

 private:
  // The text of the file at `path`; "" when it does not exist.
  static absl::StatusOr<std::string> ReadText(const std::string& path);
  // Parses each whole line of `text` into the message `add` gives.
  static absl::Status ParseInto(
      std::string_view text, std::string_view name, std::string_view what,
      const std::function<google::protobuf::Message*()>& add);

  explicit MatchJournal(std::FILE* file, std::string path, bool sync)
      : file_(file), path_(std::move(path)), sync_(sync) {}

  std::FILE* file_;
  const std::string path_;
  const bool sync_;
  absl::Status failed_;  // The first failed append's error; then OK.
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_

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
// Format: JSON Lines; each line is a TournamentMatchResult in protobuf's
// JSON mapping (proto/pyramid/referee/v1/tournament.proto). A last line cut
// short by a crash (a line without its newline: Append writes each whole)
// is ignored on reading, and cut off before the next append, which would
// otherwise run on from it into a line no later read could parse.
#ifndef PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_
#define PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

class MatchJournal {
 public:
  // Reads the entries of the journal at `path` (none if the file does not
  // exist). DATA_LOSS names the line of an entry that does not parse, other
  // than a truncated last line.
  static absl::StatusOr<std::vector<referee::v1::TournamentMatchResult>> Read(
      const std::string& path);

  // The entries of journal text `text` (read from `name`, for messages),
  // as Read.
  static absl::StatusOr<std::vector<referee::v1::TournamentMatchResult>> Parse(
      std::string_view text, std::string_view name);

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
      const referee::v1::TournamentMatchResult& result);

  ~MatchJournal();

  // Appends `result` as one line and makes it durable (fsync, unless
  // opened with `sync` false). Not thread-safe: the caller serialises
  // appends. A failed append (RESOURCE_EXHAUSTED for a full disk or quota,
  // INTERNAL otherwise, naming the file and the error) may have left part
  // of its line: every later append fails the same way without writing,
  // so that the cut line stays the last (a later read ignores it, and the
  // next OpenForAppend cuts it off) instead of one before whole lines,
  // which would make the journal unreadable.
  absl::Status Append(const referee::v1::TournamentMatchResult& result);

 private:
  explicit MatchJournal(std::FILE* file, std::string path, bool sync)
      : file_(file), path_(std::move(path)), sync_(sync) {}

  std::FILE* file_;
  const std::string path_;
  const bool sync_;
  absl::Status failed_;  // The first failed append's error; then OK.
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_MATCH_JOURNAL_H_

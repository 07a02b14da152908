// What LogJournal::Open replays before the journal takes commits: the
// files a previous process left in the journal's directory, copied back
// into the logs they name. Internal to the journal (log_journal.h states
// the contract Open keeps).
#ifndef PYRAMID_REFEREE_CORE_LOG_JOURNAL_RECOVERY_H_
#define PYRAMID_REFEREE_CORE_LOG_JOURNAL_RECOVERY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "referee/core/log_journal.h"

namespace pyramid {

// Replays the journal in `dir` (created if missing): reads every journal
// file, oldest first, before applying any entry (a torn or damaged tail is
// noted in `recovery.notes`); writes each entry's bytes into its log (the
// file of its name in `log_dir`, JournalLogPath: never a file outside it,
// whatever directory an older journal's entry named) where the log does
// not hold them already, each log's entries in the order of
// their offsets; syncs the file systems of every log named; then deletes
// the files and syncs `dir`. Returns the generation of the newest file
// found (0 when there was none), after which the journal numbers its own.
// An entry that cannot be applied, or logs that cannot be synced, are
// DATA_LOSS naming the journal (and the log), and no file is deleted.
absl::StatusOr<uint64_t> ReplayJournal(const std::string& dir,
                                       const std::string& log_dir,
                                       LogJournal::Recovery& recovery);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_JOURNAL_RECOVERY_H_

// The format of the write-ahead journal's files (LogJournal,
// log_journal.h; docs/durability.md, "The journal"): what the journal
// writes and what its recovery and the journal fuzzer parse. Pure
// functions of bytes and names: nothing here touches a file.
//
// The journal is a directory of numbered files (JournalFileName), each
// kJournalMagic, then entries, then zeros to its end:
//
//   entry := body_length (u32, little-endian) body SHA-256(body)
//   body  := offset (u64, little-endian) path_length (u16, little-endian)
//            path bytes
//
// An entry says that `bytes` belong at `offset` in the log `path`: the
// log's file name within the log directory (LogJournal::Options::log_dir).
// A journal of an older referee named every log by its path: only its file
// name counts (JournalLogPath).
#ifndef PYRAMID_REFEREE_CORE_LOG_JOURNAL_FORMAT_H_
#define PYRAMID_REFEREE_CORE_LOG_JOURNAL_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "referee/crypto/bytes.h"

namespace pyramid {

inline constexpr std::string_view kJournalMagic = "pyramid-journal-1\n";

// One entry of a journal file: `bytes` belong at `offset` in the log `path`
// (a file name; a path in an older journal).
struct JournalEntry {
  uint64_t offset = 0;
  std::string_view path;
  std::string_view bytes;
};

// The entries of one journal file's contents, in order, up to the first that
// does not check (a torn or damaged entry: what a crash while writing
// leaves). Views into `file`.
struct ParsedJournal {
  std::vector<JournalEntry> entries;
  // Why reading stopped before the end of the file; empty when it did not.
  std::string stopped;
  uint64_t stopped_at = 0;  // The byte where it stopped.
};
ParsedJournal ParseJournal(std::string_view file);

// Encodes one entry as Commit appends it (for tests and tools).
std::string EncodeJournalEntry(uint64_t offset, std::string_view path,
                               std::string_view bytes);

// An entry's bytes before its log's: body_length, offset, path_length, path
// (for an entry of `bytes_size` bytes).
std::string JournalEntryHead(uint64_t offset, std::string_view path,
                             size_t bytes_size);

// SHA-256 of an entry's body: its `head` (JournalEntryHead) after
// body_length, then the bytes. It ends the entry.
Digest JournalEntryHash(std::string_view head, std::string_view bytes);

// The file an entry naming `name` (JournalEntry::path) is replayed into:
// the entry's file name (log_format::LogFileName) in `log_dir`, so never a
// file outside it, whatever directory an older journal's entry named.
// Empty when the entry names no file.
std::string JournalLogPath(std::string_view name, const std::string& log_dir);

// The path of journal file `generation` in `dir`: 16 decimal digits,
// ".journal".
std::string JournalFileName(const std::string& dir, uint64_t generation);

// Whether `name` (without a directory) is a journal file's name; if so,
// sets `generation` to its number.
bool IsJournalFileName(const std::string& name, uint64_t& generation);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_JOURNAL_FORMAT_H_

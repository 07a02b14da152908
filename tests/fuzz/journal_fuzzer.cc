// Fuzz target: a journal file as a referee finds it on start
// (docs/durability.md, "The journal"), after a crash, a power loss or a
// damaged disk. Whatever ParseJournal accepts must be exactly what
// EncodeJournalEntry writes, entry after entry from the magic on, and
// where it reports no damage only zeros may follow the last entry.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "referee/core/log_journal_format.h"
#include "tests/fuzz/fuzz_target.h"

using ::pyramid::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  const pyramid::ParsedJournal parsed = pyramid::ParseJournal(file);
  const bool magic =
      file.substr(0, pyramid::kJournalMagic.size()) == pyramid::kJournalMagic;
  std::string again(magic ? pyramid::kJournalMagic : std::string_view());
  for (const pyramid::JournalEntry& entry : parsed.entries) {
    Check(!entry.path.empty());
    again += pyramid::EncodeJournalEntry(entry.offset, entry.path, entry.bytes);
  }
  Check(file.substr(0, again.size()) == again);
  if (parsed.stopped.empty()) {
    // The rest is zeros (or a prefix of the magic, for a file whose
    // creation was cut short).
    const std::string_view rest = file.substr(again.size());
    Check(rest.find_first_not_of('\0') == std::string_view::npos ||
          (again.empty() &&
           pyramid::kJournalMagic.substr(0, rest.size()) == rest));
  } else {
    Check(parsed.stopped_at == again.size());
  }
  return 0;
}

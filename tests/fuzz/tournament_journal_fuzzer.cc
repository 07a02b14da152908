// Fuzz target: a tournament's journal as a resumed run finds it
// (tools/tournament/match_journal.h): JSON Lines of match results, after a
// crash, a power loss or a hand edit. MatchJournal::Parse returns the entries
// or names the damaged line; what it accepts, written back one entry per line
// as MatchJournal::Append writes them, parses to the same entries.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_target.h"
#include "tools/tournament/match_journal.h"

using ::pyramid::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pyramid::fuzz::QuietProtobuf();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto entries = pyramid::MatchJournal::Parse(text, "fuzz");
  if (!entries.ok()) return 0;
  std::string again;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  for (const auto& entry : *entries) {
    std::string line;
    Check(google::protobuf::util::MessageToJsonString(entry, &line, options)
              .ok());
    again += line + "\n";
  }
  const auto reread = pyramid::MatchJournal::Parse(again, "again");
  Check(reread.ok());
  Check(reread->size() == entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    Check(google::protobuf::util::MessageDifferencer::Equals((*entries)[i],
                                                             (*reread)[i]));
  }
  return 0;
}

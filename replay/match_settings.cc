#include "replay/match_settings.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "referee/games/printable_text.h"

namespace pyramid {

MatchSettings SettingsOf(const referee::v1::Header& header) {
  referee::v1::Header settings;
  *settings.mutable_game() = header.game();
  *settings.mutable_clocks() = header.clocks();
  // UNSPECIFIED is FORFEIT (log.proto): one setting, written either way.
  settings.set_forfeit_policy(header.forfeit_policy() ==
                                      referee::v1::FORFEIT_POLICY_UNSPECIFIED
                                  ? referee::v1::FORFEIT_POLICY_FORFEIT
                                  : header.forfeit_policy());
  MatchSettings out;
  {
    google::protobuf::io::StringOutputStream stream(&out.key);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    settings.SerializeToCodedStream(&coded);
  }
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(settings, &out.text);
  while (!out.text.empty() && out.text.back() == ' ') out.text.pop_back();
  out.text = PrintableText(out.text);
  return out;
}

std::vector<std::string> SettingsProblems(const std::vector<SettledLog>& logs) {
  std::map<std::string, size_t> count;
  for (const SettledLog& log : logs) ++count[log.settings.key];
  if (count.size() <= 1) return {};
  const SettledLog* common = nullptr;
  for (const SettledLog& log : logs) {
    if (common == nullptr ||
        count[log.settings.key] > count[common->settings.key]) {
      common = &log;
    }
  }
  const size_t sharing = count[common->settings.key];
  std::vector<std::string> problems;
  for (const SettledLog& log : logs) {
    if (log.settings.key == common->settings.key) continue;
    problems.push_back(absl::StrCat(
        "logs/", log.name, ": played under other settings than ", sharing,
        sharing == 1 ? " other log" : " other logs", " of the tournament (",
        "logs/", common->name, sharing == 1 ? "" : " and others",
        "): its header says ",
        log.settings.text.empty() ? "nothing" : log.settings.text,
        "; theirs says ",
        common->settings.text.empty() ? "nothing" : common->settings.text));
  }
  return problems;
}

}  // namespace pyramid

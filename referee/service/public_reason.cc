#include "referee/service/public_reason.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace pyramid {
namespace {

// Whether a path may begin at `text[i]`: at the start or after a space, a
// quote, a parenthesis or an '='.
bool PathStartsAt(std::string_view text, size_t i) {
  return i == 0 || std::string_view(" \t\"'(=").find(text[i - 1]) !=
                       std::string_view::npos;
}

// What a path in a reason ends before, if not at the reason's end: a
// space, a colon (the reasons' own "PATH: why"), a comma, a semicolon, a
// quote or a parenthesis.
constexpr std::string_view kPathEnds = " \t:,;'\")";

}  // namespace

std::string PublicBrokenReason(absl::string_view reason,
                               absl::string_view log_path) {
  std::string text(reason);
  // The log's directory, whatever characters it holds (a space, a colon),
  // as the reason may name it (as given, and absolute: a journal's sync):
  // left out before a name in it, its own name only alone.
  const std::filesystem::path log{std::string(log_path)};
  std::error_code error;
  const std::filesystem::path absolute =
      std::filesystem::absolute(log, error).lexically_normal();
  for (const std::filesystem::path& dir :
       {log.parent_path(), error || log.empty() ? std::filesystem::path()
                                                : absolute.parent_path()}) {
    const std::string name = dir.string();
    if (name.empty() || name == "/") continue;
    std::string left;
    for (size_t i = 0; i < text.size();) {
      const size_t after = i + name.size();
      if (PathStartsAt(text, i) && text.compare(i, name.size(), name) == 0) {
        if (after < text.size() && text[after] == '/') {
          i = after + 1;
          continue;
        }
        if (after == text.size() ||
            kPathEnds.find(text[after]) != std::string_view::npos) {
          left += dir.filename().string();
          i = after;
          continue;
        }
      }
      left += text[i++];
    }
    text = std::move(left);
  }
  // Any other absolute path: its last component.
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '/' || !PathStartsAt(text, i)) {
      out += text[i++];
      continue;
    }
    size_t end = text.find_first_of(kPathEnds, i);
    if (end == std::string::npos) end = text.size();
    std::string_view path = std::string_view(text).substr(i, end - i);
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    out += path.substr(path.size() == 1 ? 0 : path.rfind('/') + 1);
    i = end;
  }
  return out;
}

}  // namespace pyramid

#include "referee/service/public_reason.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

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

// The directories SetPrivateDirectories named.
ABSL_CONST_INIT absl::Mutex private_mu(absl::kConstInit);
std::vector<std::string>* private_dirs ABSL_GUARDED_BY(private_mu) = nullptr;

// `text` with `dir` (whatever characters it holds: a space, a colon) left
// out wherever the text names it: before a name in it, its own name only
// alone.
std::string LeaveOut(const std::filesystem::path& dir, std::string text) {
  const std::string name = dir.string();
  if (name.empty() || name == "/") return text;
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
  return left;
}

// `text` with the directory of `path` left out, as given and absolute (the
// log's directory is "" as given when it is a bare name: its absolute one,
// the working directory, is still left out).
std::string LeaveOutDirectoryOf(const std::filesystem::path& path,
                                std::string text) {
  text = LeaveOut(path.parent_path(), std::move(text));
  std::error_code error;
  const std::filesystem::path absolute =
      std::filesystem::absolute(path, error).lexically_normal();
  if (!error && !path.empty()) {
    text = LeaveOut(absolute.parent_path(), std::move(text));
  }
  return text;
}

}  // namespace

void SetPrivateDirectories(std::vector<std::string> dirs) {
  absl::MutexLock lock(&private_mu);
  delete private_dirs;
  private_dirs = new std::vector<std::string>(std::move(dirs));
}

std::string PublicBrokenReason(absl::string_view reason,
                               absl::string_view log_path) {
  // The log's directory, then the referee's other private ones, as the
  // reason may name them (as given, and absolute: a journal's sync).
  std::string text = LeaveOutDirectoryOf(
      std::filesystem::path(std::string(log_path)), std::string(reason));
  {
    absl::MutexLock lock(&private_mu);
    if (private_dirs != nullptr) {
      for (const std::string& dir : *private_dirs) {
        // As the directory of a name in it.
        text = LeaveOutDirectoryOf(std::filesystem::path(dir) / "x",
                                   std::move(text));
      }
    }
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

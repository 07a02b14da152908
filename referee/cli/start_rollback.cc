#include "referee/cli/start_rollback.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

// The names of the entries of `dir` (none when it cannot be listed).
std::set<std::string> EntriesOf(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error);
       !error && it != fs::directory_iterator(); it.increment(error)) {
    names.insert(it->path().filename().string());
  }
  return names;
}

// Whether `name` is one of `own` or one of them followed by '.' or '-' and
// more.
bool IsOwnName(const std::string& name, const std::vector<std::string>& own) {
  return std::any_of(own.begin(), own.end(), [&](const std::string& base) {
    return name == base ||
           (name.size() > base.size() + 1 && name.starts_with(base) &&
            (name[base.size()] == '.' || name[base.size()] == '-'));
  });
}

}  // namespace

absl::Status StartRollback::CreateDirectories(const fs::path& dir,
                                              const std::string& what) {
  // The missing directories, from `dir` up; made top down.
  std::vector<fs::path> missing;
  std::error_code error;
  fs::path normal = dir.lexically_normal();
  if (!normal.has_filename() && normal.has_relative_path()) {
    normal = normal.parent_path();  // "a/b/": "a/b".
  }
  for (fs::path p = normal; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, error) || error) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  bool made_one = false;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    // false when it exists already (made meanwhile by another process).
    const bool made = fs::create_directory(*it, error);
    if (error) break;
    if (made && !made_one) {
      made_.push_back(*it);
      made_one = true;
    }
  }
  if (!error && !fs::is_directory(dir, error) && !error) {
    // `dir` itself is a file: nothing failed to be made, it is in the way.
    if (fs::exists(dir, error) && !error) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " ", dir.string(), " exists and is not a directory"));
    }
    if (!error) error = std::make_error_code(std::errc::not_a_directory);
  }
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create ", what, " ", dir.string(), ": ", error.message()));
  }
  return absl::OkStatus();
}

void StartRollback::WatchDirectory(const fs::path& dir,
                                   std::vector<std::string> own_names) {
  watched_.push_back({dir, EntriesOf(dir), std::move(own_names)});
}

void StartRollback::Undo() {
  if (kept_) return;
  std::error_code error;
  for (const Watched& watched : watched_) {
    for (const std::string& name : EntriesOf(watched.dir)) {
      if (!watched.before.contains(name) &&
          IsOwnName(name, watched.own_names)) {
        fs::remove_all(watched.dir / name, error);
      }
    }
  }
  for (const fs::path& dir : made_) fs::remove_all(dir, error);
  for (const fs::path& path : made_last_) fs::remove_all(path, error);
  kept_ = true;
}

}  // namespace pyramid

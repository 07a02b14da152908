// A fresh directory for a test's files, removed with everything in it when
// its TempDir is destroyed.
//
// The constructor makes `<tmp>/<prefix>-XXXXXX` with mkdtemp: <tmp> is
// std::filesystem::temp_directory_path() ($TMPDIR if set, else /tmp), the
// X's become a name no other directory has, and only the owner may enter it
// (mode 0700). If that fails, ok() is false, path() is empty, errno says why
// as the constructor returns, and the destructor removes nothing. The
// destructor removes the whole tree and never throws; what it cannot remove
// stays. A TempDir moves but does not copy: the moved-from one holds no
// directory (ok() false) and removes nothing.
//
// It does not use GoogleTest (a tool may use it too): a test checks ok()
// itself, as in `ASSERT_TRUE(dir_.ok())`. Objects that use the directory
// (open files, a referee writing into it) should be gone before it is
// removed: as a fixture member, declare the TempDir before them, so that it
// is destroyed after them. A child forked from a process that holds one ends
// with _exit or exec, never by destroying its copy.
#ifndef PYRAMID_TESTS_TEMP_DIR_H_
#define PYRAMID_TESTS_TEMP_DIR_H_

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace pyramid {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix) {
    std::error_code error;
    const std::filesystem::path tmp =
        std::filesystem::temp_directory_path(error);
    if (error) {
      errno = error.value();
      return;
    }
    std::string pattern = (tmp / prefix).string() + "-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = std::move(pattern);
  }
  ~TempDir() { Remove(); }

  TempDir(TempDir&& other) noexcept
      : path_(std::exchange(other.path_, std::string())) {}
  TempDir& operator=(TempDir&& other) noexcept {
    if (this != &other) {
      Remove();
      path_ = std::exchange(other.path_, std::string());
    }
    return *this;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  // The directory's path, without a final '/' (empty when !ok()).
  const std::string& path() const { return path_; }
  // The path of `name` inside the directory: path() + "/" + name.
  std::string File(std::string_view name) const {
    std::string file = path_;
    file += '/';
    file += name;
    return file;
  }

 private:
  void Remove() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  std::string path_;
};

}  // namespace pyramid

#endif  // PYRAMID_TESTS_TEMP_DIR_H_

// A file written as it comes, to PATH.tmp, and made PATH only once whole:
// synced, renamed over PATH and the directory synced (WriteFileAtomically's
// guarantees, referee/core/log_sink.h). PATH.tmp goes when the IncomingFile
// does, unless Commit renamed it: a download that fails or is given up
// leaves neither file. DownloadLogToFile (log_fetch.h) writes a log fetched
// from a referee with it, one chunk at a time, for refctl get-log and the
// tournament runner.
#ifndef PYRAMID_REFEREE_CLI_INCOMING_FILE_H_
#define PYRAMID_REFEREE_CLI_INCOMING_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace pyramid {

class IncomingFile {
 public:
  // Nothing is made before Restart.
  explicit IncomingFile(std::string path);
  IncomingFile(const IncomingFile&) = delete;
  IncomingFile& operator=(const IncomingFile&) = delete;
  ~IncomingFile();

  // Empties PATH.tmp (creating it, mode 0644, the first time): each
  // attempt of a download starts the file again. INTERNAL, naming PATH.tmp
  // and errno, when it cannot be created or emptied.
  absl::Status Restart();

  // Appends `bytes` to PATH.tmp, after Restart. INTERNAL, naming PATH.tmp
  // and why the write stopped, when not all of them were written.
  absl::Status Append(std::string_view bytes);

  // Syncs PATH.tmp, renames it to PATH and syncs PATH's directory, after
  // Restart. INTERNAL naming the file when a step fails; once the rename is
  // done PATH stays, even when the directory's sync fails.
  absl::Status Commit();

 private:
  static absl::Status Error(const char* what, const std::string& path);

  const std::string path_;
  const std::string tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_INCOMING_FILE_H_

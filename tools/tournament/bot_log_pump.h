// The pipe from a bot's standard output and error to its log, copied by a
// thread of its own: up to a limit into the log, then read and dropped, so
// that the bot is never blocked for what it writes (BotSettings::log_limit).
#ifndef PYRAMID_TOOLS_TOURNAMENT_BOT_LOG_PUMP_H_
#define PYRAMID_TOOLS_TOURNAMENT_BOT_LOG_PUMP_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace pyramid {

class BotLogPump {
 public:
  // Opens `log_path` to append to (creating it) and a pipe whose read end
  // the pump's thread, started here, copies into it: at most `limit` bytes,
  // over every run of bot `name` that writes to write_fd(). INTERNAL when
  // the log or the pipe could not be opened.
  static absl::StatusOr<std::unique_ptr<BotLogPump>> Open(
      const std::string& name, const std::string& log_path, int64_t limit);
  ~BotLogPump() { Close(); }

  // The end the bot's standard output and error are (O_CLOEXEC: a child
  // is given a copy).
  int write_fd() const { return write_fd_; }
  bool closed() const { return closed_; }

  // Closes the write end, copies what the pipe holds now (without waiting
  // for a process that still holds the other end), appends the line saying
  // how many bytes past the limit were dropped, if any, and closes the log.
  // Idempotent.
  void Close();

 private:
  BotLogPump(std::string name, int64_t limit, int log_fd, int read_fd,
             int write_fd, int wake_fd);

  void Run();
  // Reads what the pipe holds (up to a buffer) and keeps or drops it: the
  // bytes read, 0 at the end of the pipe, -1 for nothing to read now.
  ssize_t ReadOnce();
  // A failed write (a full disk) loses the bytes: the pipe must still be
  // read, or the bot blocks.
  void WriteLog(const char* data, size_t size);

  const std::string name_;
  const int64_t limit_;
  const int log_fd_, read_fd_, write_fd_, wake_fd_;
  int64_t kept_ = 0, dropped_ = 0;  // Of the pump thread, then of Close.
  bool ends_line_ = true;           // The log's last byte kept is '\n'.
  bool closed_ = false;
  char buffer_[1 << 16];
  std::thread thread_;  // Last: started once the rest is set.
};

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_BOT_LOG_PUMP_H_

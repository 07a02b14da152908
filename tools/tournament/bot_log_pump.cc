#include "tools/tournament/bot_log_pump.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/files/io_loops.h"

namespace pyramid {

absl::StatusOr<std::unique_ptr<BotLogPump>> BotLogPump::Open(
    const std::string& name, const std::string& log_path, int64_t limit) {
  const int log_fd =
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open ", log_path, ": ", std::strerror(errno)));
  }
  int fds[2];
  const int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0 || pipe2(fds, O_CLOEXEC) != 0) {
    const int error = errno;
    close(log_fd);
    if (wake_fd >= 0) close(wake_fd);
    return absl::InternalError(absl::StrCat("cannot make a pipe for ", name,
                                            ": ", std::strerror(error)));
  }
  // The read end only: the bot's writes block as ever when the pipe is
  // full, which lasts only until the thread reads it.
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<BotLogPump>(
      new BotLogPump(name, limit, log_fd, fds[0], fds[1], wake_fd));
}

void BotLogPump::Close() {
  if (closed_) return;
  closed_ = true;
  close(write_fd_);
  const uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof one) < 0) {
    // Cannot happen for an eventfd far from its maximum.
  }
  thread_.join();
  if (dropped_ > 0) {
    const std::string note = absl::StrCat(
        ends_line_ ? "" : "\n", "tournament: ", dropped_, " more bytes of bot ",
        name_, "'s output were dropped: its log keeps ", limit_,
        " bytes per run\n");
    WriteLog(note.data(), note.size());
  }
  close(read_fd_);
  close(wake_fd_);
  close(log_fd_);
}

BotLogPump::BotLogPump(std::string name, int64_t limit, int log_fd, int read_fd,
                       int write_fd, int wake_fd)
    : name_(std::move(name)),
      limit_(limit),
      log_fd_(log_fd),
      read_fd_(read_fd),
      write_fd_(write_fd),
      wake_fd_(wake_fd),
      thread_([this] { Run(); }) {}

void BotLogPump::Run() {
  for (;;) {
    pollfd fds[2] = {{read_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) {
      // Closing: what is in the pipe now, without waiting for a process
      // that still holds its other end (and bounded, if one still writes).
      for (int i = 0; i < 64 && ReadOnce() > 0; ++i) {
      }
      return;
    }
    if (ReadOnce() == 0) return;
  }
}

ssize_t BotLogPump::ReadOnce() {
  ssize_t n = read(read_fd_, buffer_, sizeof buffer_);
  if (n < 0) return errno == EAGAIN || errno == EINTR ? -1 : 0;
  const int64_t room = std::max<int64_t>(0, limit_ - kept_);
  const size_t keep = static_cast<size_t>(std::min<int64_t>(n, room));
  if (keep > 0) {
    WriteLog(buffer_, keep);
    kept_ += keep;
    ends_line_ = buffer_[keep - 1] == '\n';
  }
  dropped_ += n - keep;
  return n;
}

void BotLogPump::WriteLog(const char* data, size_t size) {
  WriteAll(log_fd_, std::string_view(data, size));
}

}  // namespace pyramid

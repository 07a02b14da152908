// Fuzz target: a whole log file as ReadLog (replay/log_file.h) reads it
// from anyone, framing it as it comes with a SealWatch
// (replay/seal_watch.h), which cuts it after what the splitter frames past
// a seal record. What must hold:
//  - The cut does not depend on how the bytes come: given the file in one
//    piece, a byte at a time, or in parts whose sizes follow from the
//    input, the watch finds the same cut, with the first part that holds
//    the bytes through it and not before, and the same cut again after.
//  - What is kept is judged as the whole file (docs/log-format.md): at the
//    full and chain levels, told the file's size, VerifyLog gives the
//    bytes through the cut the whole file's verdict (its reason included,
//    "record after the seal (N bytes follow it, from byte B to the end of
//    the file)"), and that is NOT GENUINE.
//  - It is cut wherever a seal decides the whole file's verdict: at the end
//    of the record after a seal ("record after the seal"), and after a
//    bad length prefix that follows a genuine log.
//  - ReadLog keeps exactly those bytes, from a regular file (knowing its
//    size, so that its verdict is the whole file's) and from a pipe (read
//    in parts of a size that follows from the input), and gives back all
//    it counted against its budget.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "replay/log_file.h"
#include "replay/seal_watch.h"
#include "replay/verifier.h"
#include "tests/fuzz/fuzz_target.h"

namespace pyramid {
namespace {

using ::pyramid::fuzz::Check;

// Numbers that follow from the input (splitmix64 from its FNV-1a hash): a
// mutation of any byte gives other part sizes.
class Numbers {
 public:
  explicit Numbers(std::string_view input) {
    for (const char c : input) {
      state_ = (state_ ^ static_cast<uint8_t>(c)) * 0x100000001b3;
    }
  }
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }
  // A part's size: 0 to 65535, each power of two as likely as the next
  // (0 now and then: the same bytes given again).
  uint64_t PartSize() {
    const uint64_t n = Next();
    return (n >> 8) % (uint64_t{1} << (n % 17));
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325;
};

// Gives `file` to a SealWatch in parts of the sizes `part_size` returns:
// no cut before the first part that holds the bytes through `cut` (the
// cut of the file in one piece), then that cut, and again after.
template <typename PartSize>
void CheckInParts(std::string_view file, std::optional<uint64_t> cut,
                  PartSize part_size) {
  SealWatch watch;
  uint64_t given = 0;
  while (given < file.size()) {
    given = std::min<uint64_t>(file.size(), given + part_size());
    const std::optional<uint64_t> found = watch.CutAt(file.substr(0, given));
    if (cut.has_value() && given >= *cut) {
      Check(found == cut);
      break;
    }
    Check(!found.has_value());
  }
  Check(watch.CutAt(file) == cut);
}

void CheckSameVerdict(const Verdict& a, const Verdict& b) {
  Check(a.kind == b.kind);
  Check(a.bad_record == b.bad_record);
  Check(a.signature_failed == b.signature_failed);
  Check(a.reason == b.reason);
  Check(a.records == b.records);
  Check(a.signed_records == b.signed_records);
  Check(a.moves == b.moves);
  Check(a.seats_naming_header == b.seats_naming_header);
  Check(a.keyed_seats_naming_header == b.keyed_seats_naming_header);
  Check(a.key_from_header == b.key_from_header);
  Check(a.header.SerializeAsString() == b.header.SerializeAsString());
  Check(a.outcome.SerializeAsString() == b.outcome.SerializeAsString());
}

// The end of the length prefix at `at` that the splitter refuses.
uint64_t BadPrefixEnd(std::string_view file, uint64_t at) {
  uint64_t end = at;
  while (end < file.size() && end - at < log_format::kMaxLengthPrefix) {
    if ((static_cast<uint8_t>(file[end++]) & 0x80) == 0) break;
  }
  return end;
}

// The cut the whole file's verdict `whole` (full level) calls for, when a
// seal decides it: the end of the record after the seal, or of a bad
// length prefix after a genuine log.
std::optional<uint64_t> CutTheVerdictCallsFor(std::string_view file,
                                              const Verdict& whole) {
  if (whole.kind != Verdict::Kind::kNotGenuine) return std::nullopt;
  if (whole.reason.starts_with("record after the seal")) {
    LogSplitter splitter(file);
    RawRecord record;
    for (uint64_t i = 0; i <= whole.bad_record; ++i) {
      Check(splitter.Next(record));
    }
    return static_cast<uint64_t>(record.bytes.data() - file.data()) +
           record.bytes.size();
  }
  // A genuine log and a bad prefix: its seal's signature checked, at the
  // record count, which is one past the seal's index.
  if (whole.signature_failed || whole.bad_record != whole.records ||
      whole.records != whole.signed_records + 1) {
    return std::nullopt;
  }
  LogSplitter splitter(file);
  for (RawRecord record; splitter.Next(record);) {
  }
  const SplitLogResult& split = splitter.end();
  if (split.tail != SplitLogResult::Tail::kCorrupt ||
      split.tail_offset <= log_format::kMagic.size() ||
      VerifyLog(file.substr(0, split.tail_offset), VerifyOptions()).kind !=
          Verdict::Kind::kGenuine) {
    return std::nullopt;
  }
  return BadPrefixEnd(file, split.tail_offset);
}

// The budget of the regular files read: larger than any input.
LogBudget& FileBudget() {
  static LogBudget* const budget = new LogBudget(uint64_t{1} << 30);
  return *budget;
}

// ReadLog's LogFile of `file` as a regular file (a memfd).
void CheckReadAsFile(std::string_view file, std::string_view kept,
                     const Verdict& whole) {
  const int fd = memfd_create("seal_watch_fuzzer", MFD_CLOEXEC);
  Check(fd >= 0);
  for (size_t done = 0; done < file.size();) {
    const ssize_t n = write(fd, file.data() + done, file.size() - done);
    Check(n > 0);
    done += static_cast<size_t>(n);
  }
  {
    absl::StatusOr<LogFile> log =
        ReadLog(absl::StrCat("/proc/self/fd/", fd), FileBudget());
    Check(log.ok());
    Check(log->file_size() == file.size());
    if (file.size() > log_format::kMagic.size() &&
        file.starts_with(log_format::kMagic)) {
      Check(log->bytes() == kept);
    } else {
      // Its first bytes, which are not a log's (or all of a file of no
      // more than the magic): judged as the whole file.
      CheckSameVerdict(
          VerifyLog(log->bytes(), log->file_size(), VerifyOptions()), whole);
    }
  }
  close(fd);
  Check(FileBudget().held() == 0);
}

// ReadLog's LogFile of `file` as a pipe whose writer has written it all and
// gone, read in parts of `part` bytes; `cut` is the SealWatch's.
void CheckReadAsPipe(std::string_view file, std::optional<uint64_t> cut,
                     uint64_t part) {
  if (file.size() <= log_format::kMagic.size() ||
      !file.starts_with(log_format::kMagic)) {
    return;  // The regular file shows how its first bytes are judged.
  }
  int ends[2];
  Check(pipe2(ends, O_CLOEXEC) == 0);
  int capacity = fcntl(ends[1], F_SETPIPE_SZ, 1 << 20);
  if (capacity < 0) capacity = fcntl(ends[1], F_GETPIPE_SZ);
  if (capacity < 0 || file.size() > static_cast<size_t>(capacity)) {
    close(ends[0]);
    close(ends[1]);
    return;
  }
  for (size_t done = 0; done < file.size();) {
    const ssize_t n = write(ends[1], file.data() + done, file.size() - done);
    Check(n > 0);
    done += static_cast<size_t>(n);
  }
  close(ends[1]);
  // A pipe is read a sixteenth of the budget at a time.
  LogBudget budget(16 * part);
  {
    absl::StatusOr<LogFile> log =
        ReadLog(absl::StrCat("/proc/self/fd/", ends[0]), budget);
    Check(log.ok());
    Check(log->bytes() == file.substr(0, cut.value_or(file.size())));
    // Known when it was read to its end; when it was cut, only if its end
    // came with the part that held the cut.
    Check(log->file_size() == file.size() ||
          (log->file_size() == 0 && cut.has_value()));
  }
  close(ends[0]);
  Check(budget.held() == 0);
}

void TestOneInput(std::string_view file) {
  const std::optional<uint64_t> cut = SealWatch().CutAt(file);
  Check(!cut.has_value() || *cut <= file.size());

  Numbers numbers(file);
  CheckInParts(file, cut, [] { return uint64_t{1}; });
  CheckInParts(file, cut, [&] { return numbers.PartSize(); });

  VerifyOptions full;
  VerifyOptions chain;
  chain.level = VerifyOptions::Level::kChain;
  const Verdict whole = VerifyLog(file, file.size(), full);
  const std::string_view kept = file.substr(0, cut.value_or(file.size()));
  if (cut.has_value()) {
    Check(whole.kind == Verdict::Kind::kNotGenuine);
    CheckSameVerdict(VerifyLog(kept, file.size(), full), whole);
    CheckSameVerdict(VerifyLog(kept, file.size(), chain),
                     VerifyLog(file, file.size(), chain));
  }
  if (const std::optional<uint64_t> called_for =
          CutTheVerdictCallsFor(file, whole)) {
    Check(cut == called_for);
  }

  CheckReadAsFile(file, kept, whole);
  CheckReadAsPipe(file, cut, std::max<uint64_t>(1, numbers.PartSize()));
}

}  // namespace
}  // namespace pyramid

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pyramid::fuzz::QuietProtobuf();
  pyramid::TestOneInput(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

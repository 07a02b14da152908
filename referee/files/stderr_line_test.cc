#include "referee/files/stderr_line.h"

#include <unistd.h>

#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "tests/stalled_stderr.h"

namespace pyramid {
namespace {

TEST(StderrLineTest, AFullPipeTakesNothingAndNeverWaits) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        PrepareStderrLines();
        for (StderrWait wait : {StderrWait::kNever, StderrWait::kIfNeeded}) {
          if (WriteStderrLine("not taken\n", wait)) _exit(6);
        }
        drain();
        if (!WriteStderrLine("taken\n", StderrWait::kNever)) _exit(7);
      },
      &said);
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (SIGALRM: a write waited; 6: a line was taken)";
  EXPECT_EQ(said, "taken\n");
}

// A line longer than a pipe takes whole is cut, and still ends a line.
TEST(StderrLineTest, ALongLineIsCutToWhatAPipeTakesWhole) {
  std::string said;
  const ChildEnd end = WithAStalledStderr(
      [](const std::function<void()>& drain) {
        drain();
        std::string line(2 * kMaxStderrLineBytes, 'x');
        line.push_back('\n');
        if (!WriteStderrLine(line, StderrWait::kNever)) _exit(6);
      },
      &said);
  EXPECT_EQ(end.exit_code, 0) << end.ToString();
  std::string cut(kMaxStderrLineBytes - 1, 'x');
  cut.push_back('\n');
  EXPECT_EQ(said, cut);
}

}  // namespace
}  // namespace pyramid

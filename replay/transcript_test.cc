// `replay show`'s transcript: the header's lines.
#include "replay/transcript.h"

#include <memory>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_sink.h"
#include "referee/core/log_writer.h"
#include "referee/crypto/ed25519.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;
using ::testing::Not;

// The transcript of a log that holds `header` alone.
std::string TranscriptOf(const v1::Header& header) {
  std::string file;
  LogWriter writer(std::make_unique<StringLogSink>(&file),
                   SigningKey::Generate(), std::string(16, 'm'), 0,
                   FsyncPolicy::kNever);
  v1::LogRecord record;
  *record.mutable_header() = header;
  EXPECT_TRUE(writer.Append(record).ok());
  EXPECT_TRUE(writer.Sync().ok());
  std::ostringstream out;
  (void)WriteTranscript(file, out);
  return out.str();
}

// Every clock the header sets is shown: the time bank too, which the
// transcript left out.
TEST(TranscriptTest, TheHeaderShowsEveryClock) {
  v1::Header header;
  header.mutable_game()->set_game("rock_paper_pyramid");
  header.add_seats()->set_name("a");
  header.add_seats()->set_name("b");
  v1::ClockSettings* clocks = header.mutable_clocks();
  clocks->set_commit_timeout_ms(1000);
  clocks->set_reveal_timeout_ms(2000);
  clocks->set_seed_timeout_ms(60000);
  EXPECT_THAT(TranscriptOf(header),
              HasSubstr("commit timeout 1000 ms, reveal timeout 2000 ms, "
                        "seed decision 60000 ms\n"));
  EXPECT_THAT(TranscriptOf(header), Not(HasSubstr("time bank")));
  clocks->set_time_bank_ms(5000);
  clocks->set_time_bank_increment_ms(100);
  EXPECT_THAT(TranscriptOf(header),
              HasSubstr("seed decision 60000 ms; time bank 5000 ms, +100 ms "
                        "a decision\n"));
}

}  // namespace
}  // namespace pyramid

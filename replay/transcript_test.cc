// `replay show`'s transcript: the header's lines.
#include "replay/transcript.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

// The transcript of a log that holds `header`, then `records`.
std::string TranscriptOf(const v1::Header& header,
                         const std::vector<v1::LogRecord>& records = {}) {
  std::string file;
  LogWriter writer(std::make_unique<StringLogSink>(&file),
                   SigningKey::Generate(), std::string(16, 'm'), 0,
                   FsyncPolicy::kNever);
  v1::LogRecord record;
  *record.mutable_header() = header;
  EXPECT_TRUE(writer.Append(record).ok());
  for (const v1::LogRecord& r : records) EXPECT_TRUE(writer.Append(r).ok());
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

// A forged restart may hold any int64 times (the verifier does not judge
// them): its downtime says it cannot be, instead of overflowing.
TEST(TranscriptTest, ARestartAtTheEndsOfInt64DoesNotOverflow) {
  v1::Header header;
  header.mutable_game()->set_game("rock_paper_pyramid");
  v1::LogRecord restart;
  restart.mutable_restart()->set_last_record_unix_ms(
      std::numeric_limits<int64_t>::min());
  restart.mutable_restart()->set_restarted_unix_ms(
      std::numeric_limits<int64_t>::max());
  EXPECT_THAT(TranscriptOf(header, {restart}),
              HasSubstr(" (an impossible span, charged to no seat); "));
  restart.mutable_restart()->set_last_record_unix_ms(1'000);
  restart.mutable_restart()->set_restarted_unix_ms(3'500);
  EXPECT_THAT(TranscriptOf(header, {restart}),
              HasSubstr(" (2500 ms, charged to no seat); "));
}

}  // namespace
}  // namespace pyramid

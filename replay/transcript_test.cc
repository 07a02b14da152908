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

// The header's strings and a fault's detail cannot forge a line, drive the
// terminal or hide text (printable_text.h), and a seat without a key says
// so after its name, which can no longer pass for a seat that signs.
TEST(TranscriptTest, LogStringsCannotForgeLinesOrMarkers) {
  v1::Header header;
  header.mutable_game()->set_game("rock_paper_pyramid\x1b[2J");
  header.set_label("a\"b\xc2\x9b");
  header.add_seats()->set_name(
      "a\r\nverdict: genuine\x1b]0;x\x07 (signs its commits with key 00)");
  header.add_seats()->set_name("\u202Eevil\u200B");
  header.add_seats()->set_name("Zoë 名人");
  header.mutable_seats(2)->set_public_key(std::string(32, '\x01'));
  v1::LogRecord fault;
  fault.mutable_fault()->set_seat(1);
  fault.mutable_fault()->set_detail(
      std::string("late\nverdict: genuine\0", 22));
  const std::string out = TranscriptOf(header, {fault});
  EXPECT_THAT(out, HasSubstr("  game rock_paper_pyramid\\x1B[2J (rules"));
  EXPECT_THAT(out, HasSubstr("\nlabel \"a\\\"b\\u{9B}\"\n"));
  EXPECT_THAT(out, HasSubstr("\nseat 0: a\\r\\nverdict: genuine\\x1B]0;x\\x07 "
                             "(signs its commits with key 00) (no key)\n"));
  EXPECT_THAT(out, HasSubstr("\nseat 1: \\u{202E}evil\\u{200B} (no key)\n"));
  EXPECT_THAT(out, HasSubstr("\nseat 2: Zoë 名人 (signs its commits with key "
                             "0101"));
  EXPECT_THAT(out, HasSubstr("(late\\nverdict: genuine\\x00) -> "));
  EXPECT_THAT(out, Not(HasSubstr("\nverdict")));
  for (const std::string& hidden :
       std::vector<std::string>{"\x1b", "\r", "\x07", "\u202E", "\u200B",
                                "\xc2\x9b", std::string(1, '\0')}) {
    EXPECT_THAT(out, Not(HasSubstr(hidden)));
  }
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

#include "replay/verdict_json.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"

namespace pyramid {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::Value;
using ::testing::HasSubstr;

constexpr char kGolden[] = "testdata/golden/rock_paper_pyramid/classic.pyrlog";

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// `json` parsed by protobuf's JSON parser (which refuses invalid JSON and
// invalid UTF-8) as a Struct.
Struct Parse(const std::string& json) {
  Struct parsed;
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, &parsed);
  EXPECT_TRUE(status.ok()) << status << "\n" << json;
  return parsed;
}

// The string `text` comes back as through JsonString and a JSON parser.
std::string RoundTrip(const std::string& text) {
  const Struct parsed = Parse(absl::StrCat("{\"s\":", JsonString(text), "}"));
  return parsed.fields().at("s").string_value();
}

TEST(VerdictJsonTest, QuotesBackslashesAndControlsAreEscaped) {
  EXPECT_EQ(JsonString("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonString("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(JsonString(std::string("\0\x01\x1b\x1f\x7f", 5)),
            R"("\u0000\u0001\u001b\u001f\u007f")");
  EXPECT_EQ(JsonString(""), R"("")");
  EXPECT_EQ(JsonString("plain text, 0-9 ~"), R"("plain text, 0-9 ~")");
}

TEST(VerdictJsonTest, EveryCharacterPastAsciiIsAnEscapeOfIt) {
  EXPECT_EQ(JsonString("Zo\xc3\xab"), R"("Zo\u00eb")");
  EXPECT_EQ(JsonString("\xc2\x9b"), R"("\u009b")");      // C1 CSI.
  EXPECT_EQ(JsonString("\xe2\x80\xae"), R"("\u202e")");  // RLO.
  EXPECT_EQ(JsonString("\xe2\x80\xa8"), R"("\u2028")");  // LS.
  EXPECT_EQ(JsonString("\xf0\x9f\x98\x80"), R"("\ud83d\ude00")");
  EXPECT_EQ(JsonString("\xf4\x8f\xbf\xbf"), R"("\udbff\udfff")");
  for (const std::string text :
       {"Zo\xc3\xab", "\xe5\x90\x8d\xe4\xba\xba", "\xf0\x9f\x98\x80x"}) {
    EXPECT_EQ(RoundTrip(text), text);
  }
}

TEST(VerdictJsonTest, EachByteOfInvalidUtf8IsTheReplacementCharacter) {
  EXPECT_EQ(JsonString("\xff"), R"("\ufffd")");
  EXPECT_EQ(JsonString("a\x80z"), R"("a\ufffdz")");        // Continuation.
  EXPECT_EQ(JsonString("\xc3"), R"("\ufffd")");            // Truncated,
  EXPECT_EQ(JsonString("\xc3z"), R"("\ufffdz")");          // cut short.
  EXPECT_EQ(JsonString("\xc0\x80"), R"("\ufffd\ufffd")");  // Overlong NUL.
  EXPECT_EQ(JsonString("\xe0\x80\xaf"), R"("\ufffd\ufffd\ufffd")");
  EXPECT_EQ(JsonString("\xed\xa0\x80"),  // A surrogate.
            R"("\ufffd\ufffd\ufffd")");
  EXPECT_EQ(JsonString("\xf4\x90\x80\x80"),  // Past U+10FFFF.
            R"("\ufffd\ufffd\ufffd\ufffd")");
  // Every byte, and every pair of bytes, is valid JSON.
  for (int a = 0; a < 256; ++a) {
    std::string one(1, static_cast<char>(a));
    for (int b = 0; b < 256; ++b) {
      const std::string two = one + static_cast<char>(b);
      const std::string json = JsonString(two);
      for (char c : json) {
        ASSERT_LT(static_cast<unsigned char>(c), 0x7F) << json;
        ASSERT_GE(static_cast<unsigned char>(c), 0x20) << json;
      }
    }
    RoundTrip(one);
  }
}

TEST(VerdictJsonTest, AGenuineLogsObjectCarriesItsVerdictAndFacts) {
  LogReport report;
  report.file = "logs/a \"b\".pyrlog";
  report.verdict = VerifyLog(Read(kGolden), VerifyOptions());
  ASSERT_EQ(report.verdict.kind, Verdict::Kind::kGenuine);
  report.ok = true;
  report.roster = true;
  report.seats_match_roster = true;
  const std::string json = LogReportJson(report);
  EXPECT_EQ(json.find('\n'), std::string::npos);
  const Struct parsed = Parse(json);
  const auto& f = parsed.fields();
  EXPECT_EQ(f.at("file").string_value(), report.file);
  EXPECT_EQ(f.at("verdict").string_value(), "genuine");
  EXPECT_TRUE(f.at("ok").bool_value());
  EXPECT_EQ(f.at("level").string_value(), "full");
  EXPECT_EQ(f.at("game").string_value(), "rock_paper_pyramid");
  EXPECT_EQ(f.at("match_id").string_value(),
            ToHex(report.verdict.header.match_id()));
  EXPECT_EQ(f.at("referee_key").string_value().size(), 64u);
  EXPECT_FALSE(f.at("key_pinned").bool_value());
  EXPECT_EQ(f.at("records").number_value(), report.verdict.records);
  EXPECT_EQ(f.at("moves").number_value(), report.verdict.moves);
  EXPECT_TRUE(f.at("seats_match_roster").bool_value());
  const auto& seats = f.at("seats").list_value().values();
  ASSERT_EQ(seats.size(), 3);
  EXPECT_EQ(seats[0].struct_value().fields().at("name").string_value(),
            "random-0");
  EXPECT_EQ(seats[0].struct_value().fields().at("key").kind_case(),
            Value::kNullValue);
  EXPECT_EQ(f.at("seats_naming_header").number_value(),
            report.verdict.seats_naming_header);
  const auto& outcome = f.at("outcome").struct_value().fields();
  EXPECT_EQ(outcome.at("seats").list_value().values_size(), 3);
  // Every field of the outcome, a false or zero one too.
  EXPECT_TRUE(outcome.at("seats")
                  .list_value()
                  .values(0)
                  .struct_value()
                  .fields()
                  .contains("forfeited"));
  EXPECT_FALSE(f.contains("reason"));
  EXPECT_FALSE(f.contains("record"));
  EXPECT_FALSE(f.contains("inclusion"));
}

TEST(VerdictJsonTest, ANotGenuineLogsObjectSaysWhereAndWhyAndNoMore) {
  std::string log = Read(kGolden);
  log[200] ^= 1;
  LogReport report;
  report.file = "bad.pyrlog";
  report.verdict = VerifyLog(log, VerifyOptions());
  ASSERT_EQ(report.verdict.kind, Verdict::Kind::kNotGenuine);
  // A reason holds what the log holds: here bytes no text line shows as is.
  report.verdict.reason += " \"seat\xff\x1b[2J\"\n";
  report.proof.emplace();
  report.proof->file = "a.tlog-proof";
  const Struct parsed = Parse(LogReportJson(report));
  const auto& f = parsed.fields();
  EXPECT_EQ(f.at("verdict").string_value(), "not_genuine");
  EXPECT_FALSE(f.at("ok").bool_value());
  EXPECT_EQ(f.at("record").number_value(), report.verdict.bad_record);
  EXPECT_THAT(f.at("reason").string_value(),
              HasSubstr("\"seat\xef\xbf\xbd\x1b[2J\"\n"));
  // The header is not vouched for: none of it is shown.
  EXPECT_FALSE(f.contains("match_id"));
  EXPECT_FALSE(f.contains("seats"));
  EXPECT_FALSE(f.contains("outcome"));
  const auto& inclusion = f.at("inclusion").struct_value().fields();
  EXPECT_EQ(inclusion.at("proof").string_value(), "a.tlog-proof");
  EXPECT_FALSE(inclusion.at("checked").bool_value());
  EXPECT_FALSE(inclusion.contains("included"));
}

TEST(VerdictJsonTest, AnUnreadableFileIsAVerdictOfItsOwn) {
  LogReport report;
  report.file = "missing\x80.pyrlog";
  report.unreadable = "cannot open: No such file or directory";
  const Struct parsed = Parse(LogReportJson(report));
  const auto& f = parsed.fields();
  EXPECT_EQ(f.at("file").string_value(), "missing\xef\xbf\xbd.pyrlog");
  EXPECT_EQ(f.at("verdict").string_value(), "unreadable");
  EXPECT_FALSE(f.at("ok").bool_value());
  EXPECT_EQ(f.at("reason").string_value(), report.unreadable);
  EXPECT_EQ(f.size(), 4);
}

TEST(VerdictJsonTest, ATournamentVerdictCarriesItsProblemsAndNotes) {
  TournamentVerdict verdict;
  verdict.problems = {"logs/\xff.pyrlog: NOT GENUINE", "and 3 more problems"};
  verdict.problem_count = 4;
  verdict.notes = {"a note\n"};
  verdict.summary = "4 problems";
  verdict.name = "cup \"1\"";
  verdict.referee_key = std::string(32, '\x01');
  verdict.referee_key_files = "referee.pub";
  const Struct parsed = Parse(TournamentVerdictJson("out", verdict, true));
  const auto& f = parsed.fields();
  EXPECT_EQ(f.at("dir").string_value(), "out");
  EXPECT_FALSE(f.at("ok").bool_value());
  EXPECT_EQ(f.at("problem_count").number_value(), 4);
  EXPECT_EQ(f.at("problems").list_value().values(0).string_value(),
            "logs/\xef\xbf\xbd.pyrlog: NOT GENUINE");
  EXPECT_EQ(f.at("notes").list_value().values(0).string_value(), "a note\n");
  EXPECT_EQ(f.at("checkpoint").kind_case(), Value::kNullValue);
  EXPECT_FALSE(f.contains("first_leaf"));
  EXPECT_EQ(f.at("name").string_value(), "cup \"1\"");
  EXPECT_EQ(f.at("referee_key").string_value(), ToHex(verdict.referee_key));
  EXPECT_EQ(f.at("referee_key").string_value().substr(0, 4), "0101");
  EXPECT_EQ(f.at("referee_key_files").string_value(), "referee.pub");
  // Said of a directory that checks out only, as the text line.
  EXPECT_FALSE(f.contains("seats_matching_roster"));
}

}  // namespace
}  // namespace pyramid

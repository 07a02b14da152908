#include "replay/strict_json.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(JsonShapeTest, TheShapeOfAMessageIsItsFieldsTypes) {
  const google::protobuf::Descriptor& tournament =
      *referee::v1::Tournament::descriptor();
  for (const std::string json : {
           R"({})",
           R"({"name": "t", "seed": "18446744073709551615", "format": "SWISS",
               "game": {"game": "g", "rockPaperPyramid": {}},
               "sprt": {"elo0": 0, "elo1": 1.5e1, "alpha": "NaN"},
               "bots": [{"name": "a"}, {"name": "b"}], "rounds": 2})",
       }) {
    EXPECT_TRUE(CheckJsonShape(json, tournament).ok())
        << json << ": " << CheckJsonShape(json, tournament);
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[]", "the text is an array, not an object"},
      {R"({"seed": 1})",
       "seed is a number, not an integer in a string, as protobuf prints a "
       "64-bit one"},
      {R"({"seed": "1.5"})", "seed is a string (\"1.5\")"},
      {R"({"rounds": "2"})", "rounds is a string (\"2\"), not an integer"},
      {R"({"format": 2})",
       "format is a number, not the name of a value of "
       "pyramid.referee.v1.TournamentFormat in a string"},
      {R"({"format": "NO_SUCH"})", "format is a string (\"NO_SUCH\")"},
      {R"({"bots": {"name": "a"}})", "bots is an object, not an array"},
      {R"({"bots": [{"name": "a"}, [{"name": "b"}]]})",
       "bots[1] is an array, not an object"},
      {R"({"bots": [{"name": null}]})", "bots[0].name is null, not a string"},
      {R"({"name": "t", "nmae": "t"})",
       "nmae is not a field of pyramid.referee.v1.Tournament"},
      {R"({"game": {"rock_paper_pyramid": {}, "pyramidShambo": {}}})",
       "game.pyramidShambo and \"rock_paper_pyramid\" are of one oneof, "
       "options"},
      {R"({"sprt": {"alpha": "0.5"}})", "sprt.alpha is a string (\"0.5\")"},
  };
  for (const auto& [json, why] : cases) {
    const absl::Status status = CheckJsonShape(json, tournament);
    // A text protobuf's parser reads (otherwise than other readers) is
    // FAILED_PRECONDITION; one it refuses too, INVALID_ARGUMENT.
    const bool refused_by_protobuf = absl::StrContains(why, "not a field") ||
                                     absl::StrContains(why, "oneof");
    EXPECT_EQ(status.code(), refused_by_protobuf
                                 ? absl::StatusCode::kInvalidArgument
                                 : absl::StatusCode::kFailedPrecondition)
        << json;
    EXPECT_THAT(std::string(status.message()), StartsWith(why)) << json;
  }
  // Every value counts once toward the limit: the object, "bots", its two
  // objects and their two names are six.
  const std::string six = R"({"bots": [{"name": "a"}, {"name": "b"}]})";
  EXPECT_TRUE(CheckJsonShape(six, tournament, 6).ok());
  const absl::Status over = CheckJsonShape(six, tournament, 5);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(over.message()),
              StartsWith("more than 5 values (at line 1, column 35)"));
}

TEST(JsonKeysTest, StrictJsonWithEachKeyOnceIsRead) {
  for (const std::string json : {
           "{}",
           " [ ] ",
           "0",
           "-0.5e+3",
           "\"\"",
           "null",
           "{\"a\": 1, \"b\": {\"a\": 2}, \"c\": [{\"a\": 3}, {\"a\": 4}]}",
           // Keys are compared decoded: these differ.
           R"({"a\"b": 1, "a\\b": 2, "a/b": 3, "A": 4, "\u00e9": 5, "e": 6})",
           R"({"\ud83d\ude00": true, "\ud83d": false, "\ude00": null})",
           "{\"a\":[1,2.5,-3E2,true,false,null,\"x\",{},[]]}\n",
       }) {
    EXPECT_TRUE(CheckJsonKeysOnce(json).ok())
        << json << ": " << CheckJsonKeysOnce(json);
  }
  // Deeper than any stack would take by recursion.
  constexpr int kDepth = 100'000;
  EXPECT_TRUE(
      CheckJsonKeysOnce(std::string(kDepth, '[') + std::string(kDepth, ']'))
          .ok());
  std::string objects;
  for (int i = 0; i < kDepth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kDepth, '}');
  EXPECT_TRUE(CheckJsonKeysOnce(objects).ok());
  EXPECT_THAT(
      std::string(
          CheckJsonKeysOnce(objects.substr(0, objects.size() - 1)).message()),
      HasSubstr("the text ends early"));
}

TEST(JsonKeysTest, AKeyTwiceInOneObjectIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a": 1, "a": 2})",
       "the key \"a\" appears twice in one object (again at line 1, column "
       "10)"},
      {"{\"x\": {\"k\": 1,\n \"k\": []}}",
       "the key \"k\" appears twice in one object (again at line 2, column "
       "2)"},
      {R"([{"k": 1}, {"k": 2, "j": 3, "k": 4}])", "the key \"k\" appears"},
      // Escaped and as it is: one key.
      {R"({"a": 1, "\u0061": 2})", "the key \"a\" appears"},
      {"{\"\\ud83d\\ude00\": 1, \"\xf0\x9f\x98\x80\": 2}",
       "the key \"\xf0\x9f\x98\x80\" appears"},
      {R"({"\n": 1, "\u000a": 2})", "the key \"\\n\" appears"},
  };
  for (const auto& [json, why] : cases) {
    const absl::Status status = CheckJsonKeysOnce(json);
    EXPECT_TRUE(absl::IsFailedPrecondition(status)) << json;
    EXPECT_THAT(std::string(status.message()), StartsWith(why)) << json;
  }
  // A field's proto name and JSON name: one key to protobuf's parser only.
  const std::string both = R"({"run_id": "a", "runId": "b"})";
  EXPECT_TRUE(CheckJsonKeysOnce(both).ok());
  EXPECT_THAT(std::string(CheckJsonKeysOnce(both, true).message()),
              StartsWith("the keys \"run_id\" and \"runId\" name one field"));
  EXPECT_TRUE(CheckJsonKeysOnce(R"({"run_id": "a", "runid": "b"})", true).ok());
}

TEST(JsonKeysTest, WhatIsNotStrictJsonIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "at line 1, column 1: the text ends early"},
      {"{'a': 1}", "at line 1, column 2: want a key"},
      {"{a: 1}", "at line 1, column 2: want a key"},
      {"[1,]", "at line 1, column 4: a comma before ']'"},
      {"{\"a\": 1,\n}", "at line 2, column 1: a comma before '}'"},
      {"{\"a\" 1}", "want ':'"},
      {"{\"a\": 1 \"b\": 2}", "want ',' or '}'"},
      {"[1 2]", "want ',' or ']'"},
      {"{} {}", "more after the value"},
      {"01", "more after the value"},
      {"1.", "want a digit after '.'"},
      {"1e+", "want a digit in the exponent"},
      {"-", "want a value"},
      {"tru", "want a value"},
      {"+1", "want a value"},
      {"\"a\\x\"", "an unknown escape"},
      {"\"\\u12\"", "without 4 hex digits"},
      {"\"a\nb\"", "a control character"},
      {"\"abc", "without its closing quote"},
      {"\"abc\\", "without its closing quote"},
      {"[", "the text ends early"},
  };
  for (const auto& [json, why] : cases) {
    const absl::Status status = CheckJsonKeysOnce(json);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << json;
    EXPECT_THAT(std::string(status.message()),
                AllOf(StartsWith("not strict JSON (RFC 8259) at line "),
                      HasSubstr(why)))
        << json;
  }
}

}  // namespace
}  // namespace pyramid

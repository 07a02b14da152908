#include "tools/tournament/header_check.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;

class HeaderCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    expected_.game.set_game("rock_paper_pyramid");
    expected_.game.mutable_rock_paper_pyramid()->set_red(true);
    expected_.label = "cup/run/7";
    expected_.seats = {{"alice", std::string(32, 'a')}, {"bob", ""}};
    *header_.mutable_game() = expected_.game;
    header_.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
    header_.set_label("cup/run/7");
    v1::Seat* alice = header_.add_seats();
    alice->set_name("alice");
    alice->set_public_key(std::string(32, 'a'));
    header_.add_seats()->set_name("bob");
  }

  ExpectedMatch expected_;
  v1::Header header_;
};

TEST_F(HeaderCheckTest, TheMatchAskedForPasses) {
  // UNSPECIFIED asked for is FORFEIT taken.
  EXPECT_EQ(HeaderDiffers(header_, expected_), "");
}

TEST_F(HeaderCheckTest, OtherOptionsAreNamed) {
  header_.mutable_game()->mutable_rock_paper_pyramid()->set_red(false);
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its game is {game: \"rock_paper_pyramid\" rock_paper_pyramid "
            "{ }}, not the tournament's {game: \"rock_paper_pyramid\" "
            "rock_paper_pyramid { red: true }}");
}

TEST_F(HeaderCheckTest, AnotherForfeitPolicyIsNamed) {
  header_.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its forfeit policy is FORFEIT_POLICY_DEFAULT_ACTION, not the "
            "tournament's FORFEIT_POLICY_FORFEIT");
}

// The log must be of the match the referee said it created: a referee
// could otherwise answer one match's id and serve another match's log
// under the same label.
TEST_F(HeaderCheckTest, ALogOfAnotherMatchThanTheOneCreatedIsNamed) {
  header_.set_match_id(std::string(16, '\x11'));
  expected_.match_id = std::string(32, '1');
  EXPECT_EQ(HeaderDiffers(header_, expected_), "");
  expected_.match_id = std::string(32, '2');
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "it is the log of match 11111111111111111111111111111111, not of "
            "match 22222222222222222222222222222222, which the referee said it "
            "created");
}

TEST_F(HeaderCheckTest, AnotherLabelIsNamed) {
  header_.set_label("cup/run/8");
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its label is \"cup/run/8\", not \"cup/run/7\"");
}

TEST_F(HeaderCheckTest, OtherSeatsAreNamed) {
  header_.mutable_seats(1)->set_name("carol");
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its seat 1 is \"carol\", not \"bob\"");
  header_.add_seats()->set_name("dave");
  EXPECT_EQ(HeaderDiffers(header_, expected_), "it has 3 seats, not 2");
}

// A dishonest referee writes any string in its header: the difference
// quotes it escaped (printable_text.h), so it can neither drive the
// terminal nor end the quote early.
TEST_F(HeaderCheckTest, ALabelOrNameIsQuotedEscaped) {
  header_.set_label("cup\x1b[2J\", not \"cup/run/7\u202E");
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its label is \"cup\\x1B[2J\\\", not \\\"cup/run/7\\u{202E}\", "
            "not \"cup/run/7\"");
  header_.set_label("cup/run/7");
  header_.mutable_seats(1)->set_name("bob\r\nok");
  EXPECT_EQ(HeaderDiffers(header_, expected_),
            "its seat 1 is \"bob\\r\\nok\", not \"bob\"");
}

// A keyed bot's seat without its key (or with another) is one whose moves
// the referee could have written itself.
TEST_F(HeaderCheckTest, ASeatWithoutItsBotsKeyIsNamed) {
  header_.mutable_seats(0)->clear_public_key();
  EXPECT_THAT(HeaderDiffers(header_, expected_),
              HasSubstr("its seat 0 (alice) has no key, not the bot's key "
                        "6161"));
  header_.mutable_seats(0)->set_public_key(std::string(32, 'z'));
  EXPECT_THAT(HeaderDiffers(header_, expected_), HasSubstr("has key 7a7a"));
  header_.mutable_seats(0)->set_public_key(std::string(32, 'a'));
  header_.mutable_seats(1)->set_public_key(std::string(32, 'b'));
  EXPECT_THAT(HeaderDiffers(header_, expected_),
              HasSubstr("its seat 1 (bob) has key 6262"));
}

}  // namespace
}  // namespace pyramid

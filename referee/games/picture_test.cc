#include "referee/games/picture.h"

#include "gtest/gtest.h"

namespace pyramid {
namespace {

referee::v1::Header Named(const std::string& name) {
  referee::v1::Header header;
  header.add_seats()->set_name(name);
  header.add_seats();
  return header;
}

TEST(PictureTest, ASeatLabelCutsItsNameAtTheRoomGiven) {
  EXPECT_EQ(SeatLabel(Named("ann"), 0), "seat 0 (ann)");
  EXPECT_EQ(SeatLabel(Named("ann"), 1), "seat 1");
  EXPECT_EQ(SeatLabel(Named("ann"), 2), "seat 2");
  const std::string long_name = "random-5-with-a-rather-long-name";
  EXPECT_EQ(SeatLabel(Named(long_name), 0),
            "seat 0 (random-5-with-a-rather-l…)");
  EXPECT_EQ(SeatLabel(Named(long_name), 0, 10), "seat 0 (random-5-w…)");
  EXPECT_EQ(SeatLabel(Named(long_name), 0, 64), "seat 0 (" + long_name + ")");
  // Never inside a character: "é" is two bytes.
  EXPECT_EQ(SeatLabel(Named("abcé"), 0, 4), "seat 0 (abc…)");
  EXPECT_EQ(SeatLabel(Named("a<b"), 0), "seat 0 (a&lt;b)");
}

}  // namespace
}  // namespace pyramid

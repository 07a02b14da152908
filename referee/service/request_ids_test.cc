// RequestIds: a request_id reserved while its match is created (a second
// reservation waits), naming the match once it runs, freed when the match
// was not created, taken over from a match that will never be played, and
// forgotten once the registry answers for its match.
#include "referee/service/request_ids.h"

#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(RequestIdsTest, AReservationIsAnsweredUnavailableUntilItNamesItsMatch) {
  RequestIds ids;
  absl::StatusOr<std::string> first = ids.Reserve("r");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, "");
  EXPECT_TRUE(absl::IsUnavailable(ids.Reserve("r").status()));
  ids.Name("r", "m1");
  absl::StatusOr<std::string> retry = ids.Reserve("r");
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(*retry, "m1");
  EXPECT_EQ(ids.size(), 1u);
}

TEST(RequestIdsTest, ReleaseFreesAReservationButNotANamedMatch) {
  RequestIds ids;
  ASSERT_TRUE(ids.Reserve("r").ok());
  ids.Release("r");
  EXPECT_EQ(ids.size(), 0u);
  EXPECT_EQ(*ids.Reserve("r"), "");
  ids.Name("r", "m1");
  ids.Release("r");
  EXPECT_EQ(*ids.Reserve("r"), "m1");
  ids.Release("");  // Nothing: a request without a request_id.
  EXPECT_EQ(ids.size(), 1u);
}

TEST(RequestIdsTest, TakesOverOnlyFromTheMatchNamedOrNothing) {
  RequestIds ids;
  ids.Name("r", "broken");
  EXPECT_TRUE(absl::IsUnavailable(ids.TakeOver("r", "other")));
  EXPECT_TRUE(ids.TakeOver("r", "broken").ok());
  EXPECT_TRUE(absl::IsUnavailable(ids.Reserve("r").status()));
  EXPECT_TRUE(absl::IsUnavailable(ids.TakeOver("r", "broken")));
  EXPECT_TRUE(ids.TakeOver("free", "broken").ok());
  EXPECT_EQ(ids.size(), 2u);
}

TEST(RequestIdsTest, ForgetsARequestIdOnlyForTheMatchItNames) {
  RequestIds ids;
  ids.Name("r", "m2");
  ids.Forget("r", "m1");  // An older match of the same request_id.
  EXPECT_EQ(ids.size(), 1u);
  ids.Forget("r", "m2");
  EXPECT_EQ(ids.size(), 0u);
  ids.Name("", "m3");  // A match created without a request_id.
  EXPECT_EQ(ids.size(), 0u);
}

}  // namespace
}  // namespace pyramid

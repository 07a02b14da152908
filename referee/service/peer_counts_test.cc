// PeerCounts: a peer's address without its port; calls of one address
// count together up to the limit, each slot giving its place back when it
// goes; other addresses count apart.
#include "referee/service/peer_counts.h"

#include <utility>

#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(PeerCountsTest, AnAddressIsItsPeerWithoutThePort) {
  EXPECT_EQ(PeerCounts::AddressOf("ipv4:127.0.0.1:45678"), "ipv4:127.0.0.1");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[::1]:443"), "ipv6:[::1]");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[2001:db8::7]:1"),
            "ipv6:[2001:db8::7]");
  EXPECT_EQ(PeerCounts::AddressOf("unix:/tmp/socket"), "unix:/tmp/socket");
  EXPECT_EQ(PeerCounts::AddressOf(""), "");
}

TEST(PeerCountsTest, CallsOfOneAddressCountTogetherUpToTheLimit) {
  PeerCounts counts;
  PeerSlot a, b, c, other;
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1000", 2, &a));
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1001", 2, &b));
  EXPECT_FALSE(counts.TryAdd("ipv4:10.0.0.1:1002", 2, &c));
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.2:1000", 2, &other));
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 2u);
  {
    PeerSlot moved = std::move(a);  // Still counted, once.
    EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 2u);
  }
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 1u);
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1002", 2, &c));
  b = PeerSlot();
  c = PeerSlot();
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 0u);
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.2:9"), 1u);
  // A limit of 0 takes none.
  PeerSlot none;
  EXPECT_FALSE(counts.TryAdd("ipv4:10.0.0.3:1", 0, &none));
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.3:1"), 0u);
}

}  // namespace
}  // namespace pyramid

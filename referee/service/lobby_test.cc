// Lobby::ListMatches without gRPC: newest first, in pages that stay stable
// while matches are created, with the status filter and bad page tokens.
#include "referee/service/lobby.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace pyramid {
namespace {

class LobbyTest : public ::testing::Test {
 protected:
  LobbyTest() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "lobbytest-XXXXXX").string();
    dir_ = mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~LobbyTest() override {
    lobby_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void SetUp() override {
    ASSERT_FALSE(dir_.empty());
    LobbyOptions options;
    options.log_dir = dir_;
    options.admin_token = std::string(32, 'a');
    lobby_ = std::make_unique<Lobby>(std::move(options));
  }

  std::string Create() {
    v1::CreateMatchRequest request;
    request.mutable_game()->set_game("rock_paper_pyramid");
    for (int i = 0; i < 3; ++i) request.add_seats();
    absl::StatusOr<v1::CreateMatchResponse> created =
        lobby_->CreateMatch(request);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->match_id() : "";
  }

  // The ids listed, and the next page token.
  std::pair<std::vector<std::string>, std::string> List(
      uint32_t page_size, const std::string& page_token = "",
      v1::MatchStatus status = v1::MATCH_STATUS_UNSPECIFIED) {
    v1::ListMatchesRequest request;
    request.set_page_size(page_size);
    request.set_page_token(page_token);
    request.set_status(status);
    absl::StatusOr<v1::ListMatchesResponse> response =
        lobby_->ListMatches(request);
    EXPECT_TRUE(response.ok()) << response.status();
    std::vector<std::string> ids;
    if (!response.ok()) return {ids, ""};
    for (const v1::MatchInfo& info : response->matches()) {
      ids.push_back(info.match_id());
    }
    return {ids, response->next_page_token()};
  }

  std::string dir_;
  std::unique_ptr<Lobby> lobby_;
};

TEST_F(LobbyTest, ListsNewestFirstInPagesThatStayStable) {
  const std::string a = Create(), b = Create(), c = Create();
  const auto [first, token] = List(2);
  EXPECT_EQ(first, std::vector<std::string>({c, b}));
  ASSERT_FALSE(token.empty());
  const std::string d = Create();  // Does not shift the next page.
  const auto [second, last_token] = List(2, token);
  EXPECT_EQ(second, std::vector<std::string>({a}));
  EXPECT_TRUE(last_token.empty());
  EXPECT_EQ(List(10).first, std::vector<std::string>({d, c, b, a}));
}

TEST_F(LobbyTest, FiltersByStatusAndRefusesBadPageTokens) {
  const std::string a = Create(), b = Create();
  EXPECT_EQ(List(10, "", v1::MATCH_RUNNING).first,
            std::vector<std::string>({b, a}));
  EXPECT_TRUE(List(10, "", v1::MATCH_FINISHED).first.empty());
  for (const char* token : {"x", "3"}) {
    v1::ListMatchesRequest request;
    request.set_page_token(token);
    EXPECT_EQ(lobby_->ListMatches(request).status().code(),
              absl::StatusCode::kInvalidArgument)
        << token;
  }
}

}  // namespace
}  // namespace pyramid

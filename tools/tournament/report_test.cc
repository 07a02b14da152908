#include "tools/tournament/report.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

int Count(absl::string_view haystack, absl::string_view needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != absl::string_view::npos;
       at = haystack.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

void AddStanding(v1::TournamentResults& results, const std::string& bot,
                 double rating, double low, double high) {
  v1::TournamentStanding* s = results.add_standings();
  s->set_bot(bot);
  s->set_rating(rating);
  s->set_rating_low(low);
  s->set_rating_high(high);
}

void AddMatch(v1::TournamentResults& results,
              const std::vector<std::string>& seats,
              const std::vector<uint32_t>& ranks,
              const std::string& verdict = "genuine") {
  v1::TournamentMatchResult* match = results.add_matches();
  match->set_index(results.matches_size() - 1);
  match->set_match_id(absl::StrCat("m", match->index()));
  for (const std::string& bot : seats) match->add_seats(bot);
  for (uint32_t rank : ranks)
    match->mutable_outcome()->add_seats()->set_rank(rank);
  match->set_log_file(absl::StrCat("logs/m", match->index(), ".log"));
  match->set_verdict(verdict);
}

// Three bots, two-seat matches: alpha beats beta once and draws once, gamma
// beats alpha, and a beta-gamma match whose log did not verify.
v1::TournamentResults SmallResults() {
  v1::TournamentResults results;
  results.set_name("small");
  results.mutable_game()->set_game("rock_paper_pyramid");
  results.set_referee_public_key("ab12");
  results.set_scheduled(4);
  results.set_verified(3);
  results.set_rating_model("bradley_terry");
  AddStanding(results, "alpha", 35.5, -120.25, 190);
  AddStanding(results, "gamma", 10, -kInfinity, kInfinity);
  AddStanding(results, "beta", -45.5, -300, 80);
  AddMatch(results, {"alpha", "beta"}, {1, 2});
  AddMatch(results, {"beta", "alpha"}, {1, 1});
  AddMatch(results, {"alpha", "gamma"}, {2, 1});
  AddMatch(results, {"beta", "gamma"}, {1, 2}, "bad signature at record 3");
  return results;
}

// A seat scores 1 per seat ranked below it and 0.5 per seat sharing its
// rank (ranks 1, 1, 3: 1.5, 1.5, 0); a seat the outcome lacks scores 0.
TEST(StandingsTest, PairwisePointsCountSeatsBelowAndHalfTies) {
  v1::Outcome outcome;
  for (const uint32_t rank : {1u, 1u, 3u}) outcome.add_seats()->set_rank(rank);
  EXPECT_EQ(PairwisePoints(outcome, 0), 1.5);
  EXPECT_EQ(PairwisePoints(outcome, 1), 1.5);
  EXPECT_EQ(PairwisePoints(outcome, 2), 0.0);
  EXPECT_EQ(PairwisePoints(outcome, 3), 0.0);
  EXPECT_EQ(PairwisePoints(outcome, -1), 0.0);
}

TEST(ReportTest, IsOneHtmlPageWithEveryBot) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_THAT(html, testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(html, testing::EndsWith("</html>\n"));
  for (const char* section :
       {"<h2>Summary</h2>", "<h2>Standings</h2>", "<h2>Crosstable</h2>",
        "<h2>Ratings</h2>", "<h2>Matches</h2>"}) {
    EXPECT_THAT(html, HasSubstr(section));
  }
  for (const char* bot : {"alpha", "beta", "gamma"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("\">", bot, "</a></td>")));
    EXPECT_THAT(html, ContainsRegex(absl::StrCat(
                          "<text class=\"botname\" [^>]*>", bot, "</text>")));
  }
  EXPECT_THAT(html, HasSubstr("rock_paper_pyramid"));
  EXPECT_THAT(html, HasSubstr("<code>ab12</code>"));
  EXPECT_THAT(html, HasSubstr("bad signature at record 3"));
  EXPECT_THAT(html,
              HasSubstr("<a href=\"matches/m0.html\"><code>m0</code></a>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"logs/m0.log\" download>"));
  EXPECT_THAT(html, Not(HasSubstr("<h2>SPRT</h2>")));
}

// A Swiss tournament ranks by score %, not points: the page names the
// format, says the order above the standings, and shows each bot's matches
// and score %, so that 3 points in 8 matches under 3 in 4 reads right.
TEST(ReportTest, SaysTheFormatAndTheOrderOfTheStandings) {
  v1::TournamentResults results = SmallResults();
  results.mutable_standings(0)->set_matches(4);
  results.mutable_standings(0)->set_points(3);
  results.mutable_standings(1)->set_matches(8);
  results.mutable_standings(1)->set_points(3);
  results.set_format(v1::SWISS);
  std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<tr><th class=\"name\">Format</th><td "
                              "class=\"name\">Swiss</td></tr>"));
  EXPECT_THAT(html, HasSubstr("<h2>Standings</h2>\n<p>Swiss: ranked by "
                              "score % (points per match played"));
  EXPECT_THAT(html, HasSubstr("<th>Matches</th><th>Points</th><th>Score "
                              "%</th>"));
  EXPECT_THAT(html, HasSubstr("</a></td><td>4</td><td>3.00</td><td>75.0</td>"));
  EXPECT_THAT(html, HasSubstr("</a></td><td>8</td><td>3.00</td><td>37.5</td>"));
  // A bot without matches has no score %.
  EXPECT_THAT(html, HasSubstr("</a></td><td>0</td><td>0.00</td><td>&middot;"));
  // The results of a runner older than TournamentResults.format: round
  // robin, as the enum's UNSPECIFIED reads.
  results.clear_format();
  html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<td class=\"name\">round robin</td>"));
  EXPECT_THAT(html, HasSubstr("<p>Round robin: ranked by points, then mean "
                              "rank, then name.</p>"));
}

TEST(ReportTest, ChartHasOneErrorBarAndDotPerBot) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_EQ(Count(html, "<svg "), 1);
  // The chart's sizes as every coordinate of it: one decimal, always.
  EXPECT_THAT(html, ContainsRegex("<svg width=\"[0-9]+\\.[0-9]\" "
                                  "height=\"[0-9]+\\.[0-9]\" viewBox=\"0 0 "
                                  "[0-9]+\\.[0-9] [0-9]+\\.[0-9]\""));
  EXPECT_EQ(Count(html, "<line class=\"bar\""), 3);
  EXPECT_EQ(Count(html, "<circle class=\"dot\""), 3);
  EXPECT_EQ(Count(html, "<line class=\"zero\""), 1);
  EXPECT_GE(Count(html, "<line class=\"tick\""), 3);
}

// On a phone the chart stays readable: a long name sits on its own line
// above its bar and does not narrow the plot, and the chart shrinks no
// further than a minimum width, scrolling sideways in its own box.
TEST(ReportTest, ChartStaysReadableOnANarrowScreen) {
  // The axis line, which spans the plot.
  const auto axis = [](const std::string& html) {
    const size_t at = html.find("<line class=\"axis\"");
    return at == std::string::npos ? std::string()
                                   : html.substr(at, html.find("/>", at) - at);
  };
  v1::TournamentResults short_names;
  AddStanding(short_names, "a", 20, -30, 70);
  AddStanding(short_names, "b", -20, -70, 30);
  v1::TournamentResults long_name = short_names;
  long_name.mutable_standings(1)->set_bot(
      "random-5-with-a-rather-long-name-indeed");
  const std::string short_html = RenderHtmlReport(short_names);
  const std::string long_html = RenderHtmlReport(long_name);
  ASSERT_FALSE(axis(short_html).empty());
  EXPECT_EQ(axis(short_html), axis(long_html));
  // Each name starts at the plot's left edge, on its own line.
  EXPECT_THAT(long_html,
              HasSubstr("<text class=\"botname\" x=\"14.0\" y=\"58.0\">"
                        "random-5-with-a-rather-long-name-indeed</text>"));
  EXPECT_THAT(long_html, HasSubstr("<div class=\"chart\"><svg width=\""));
  EXPECT_THAT(long_html, HasSubstr(".chart { max-width: 100%; overflow-x: "
                                   "auto; }\n.chart svg { min-width: 420px;"));
}

TEST(ReportTest, InfiniteBoundsRenderAsInfinityAndArrows) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_THAT(html, HasSubstr("[&minus;&infin;, +&infin;]"));
  EXPECT_THAT(html, HasSubstr("[-120.2, 190.0]"));
  // gamma is open on both sides; the finite ends get caps.
  EXPECT_EQ(Count(html, "<polygon class=\"arrow\""), 2);
  EXPECT_EQ(Count(html, "<line class=\"cap\""), 4);
  EXPECT_THAT(html, Not(HasSubstr("inf<")));
  EXPECT_THAT(html, Not(HasSubstr("nan")));
}

TEST(ReportTest, AllZeroRatingsStillScale) {
  v1::TournamentResults results;
  AddStanding(results, "a", 0, 0, 0);
  AddStanding(results, "b", 0, -kInfinity, 0);
  const std::string html = RenderHtmlReport(results);
  EXPECT_EQ(Count(html, "<line class=\"bar\""), 2);
  EXPECT_THAT(html, Not(HasSubstr("nan")));
  EXPECT_THAT(html, Not(HasSubstr("inf\"")));
}

// A bot without a finite rating is drawn as "no rating", not as a bar: its
// finite bound does not widen the scale.
TEST(ReportTest, ABotWithoutARatingDoesNotWidenTheScale) {
  v1::TournamentResults results;
  AddStanding(results, "a", 20, -30, 70);
  AddStanding(results, "b", -20, -70, 30);
  AddStanding(results, "lost-all", -kInfinity, -kInfinity, -900);
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr(">no rating</text>"));
  EXPECT_EQ(Count(html, "<line class=\"bar\""), 2);
  // -100 to 100 in steps of 50, as for a and b alone.
  EXPECT_THAT(html, HasSubstr("text-anchor=\"middle\">-100</text>"));
  EXPECT_THAT(html, HasSubstr("text-anchor=\"middle\">100</text>"));
  EXPECT_THAT(html, Not(HasSubstr("text-anchor=\"middle\">-150</text>")));
  EXPECT_THAT(html, Not(HasSubstr("text-anchor=\"middle\">-1000</text>")));
  EXPECT_EQ(Count(html, "<polygon class=\"arrow\""), 0);
}

TEST(ReportTest, CrosstableCountsGenuinePairwiseResults) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_THAT(html, HasSubstr("<td title=\"alpha vs beta\">1.5/2</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"beta vs alpha\">0.5/2</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"alpha vs gamma\">0/1</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"gamma vs alpha\">1/1</td>"));
  // Their only match did not verify.
  EXPECT_THAT(html, HasSubstr("<td title=\"beta vs gamma\">&middot;</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"gamma vs beta\">&middot;</td>"));
}

TEST(ReportTest, CrosstableCountsEveryPairOfAMultiSeatMatch) {
  v1::TournamentResults results;
  AddStanding(results, "a", 0, -1, 1);
  AddStanding(results, "b", 0, -1, 1);
  AddStanding(results, "c", 0, -1, 1);
  AddMatch(results, {"c", "a", "b"}, {3, 1, 1});
  AddMatch(results, {"a", "b", "c"}, {2, 3, 1});
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<td title=\"a vs b\">1.5/2</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"b vs a\">0.5/2</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"a vs c\">1/2</td>"));
  EXPECT_THAT(html, HasSubstr("<td title=\"c vs b\">1/2</td>"));
}

TEST(ReportTest, EscapesEveryStringFromTheResults) {
  v1::TournamentResults results = SmallResults();
  results.set_name("<script>alert(\"x\")</script> & co");
  results.mutable_matches(3)->set_verdict("<b onclick='x'>bad</b>");
  results.mutable_matches(0)->set_match_id("<i>id</i>");
  results.set_referee_public_key("<key>");
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(html, Not(HasSubstr("<b ")));
  EXPECT_THAT(html, Not(HasSubstr("<i>")));
  EXPECT_THAT(html, Not(HasSubstr("<key>")));
  EXPECT_THAT(html,
              HasSubstr("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; "
                        "&amp; co"));
  EXPECT_THAT(html, HasSubstr("&lt;b onclick=&#39;x&#39;&gt;bad&lt;/b&gt;"));
  // In the match data (JSON in a <script> element): no "<" at all.
  EXPECT_THAT(html, HasSubstr("\"\\u003cb onclick='x'\\u003ebad\\u003c/b"
                              "\\u003e\""));
  EXPECT_THAT(html, HasSubstr("\"\\u003ci\\u003eid\\u003c/i\\u003e\""));
}

// On a phone the page is as wide as the screen, and a table wider than
// that scrolls inside its own box instead of widening the page.
TEST(ReportTest, FitsANarrowScreen) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_THAT(html, HasSubstr("<meta name=\"viewport\" content=\"width="
                              "device-width, initial-scale=1\">"));
  EXPECT_THAT(html, HasSubstr("table { display: block; max-width: 100%; "
                              "overflow-x: auto; }"));
}

TEST(ReportTest, ReferencesNothingOutsideThePage) {
  v1::TournamentResults results = SmallResults();
  results.mutable_matches(1)->set_log_file("https://example.com/x.log");
  results.mutable_matches(2)->set_log_file("/etc/passwd");
  const std::string html = RenderHtmlReport(results);
  // The hostile log paths appear as text but are not linked.
  EXPECT_THAT(html, Not(HasSubstr("href=\"https:")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"/")));
  // Every link is to a bot's results in the page, to a viewer page in
  // matches/ or to a log in logs/ (matches 0 and 3 only: the viewer and the
  // log in the match list, and the viewer in each of its two bots'
  // results).
  int viewers = 0, logs = 0;
  for (size_t at = html.find("href=\""); at != std::string::npos;
       at = html.find("href=\"", at + 1)) {
    const std::string target = html.substr(at + 6, 9);
    EXPECT_TRUE(target.rfind("#bot-", 0) == 0 || target == "matches/m" ||
                target.rfind("logs/m", 0) == 0)
        << target;
    viewers += target == "matches/m";
    logs += target.rfind("logs/m", 0) == 0;
  }
  EXPECT_EQ(viewers, 2 * 3);
  EXPECT_EQ(logs, 2);
  const std::string clean = RenderHtmlReport(SmallResults());
  for (const char* external :
       {"http://", "https://", "src=", "<script src", "<link", "@import",
        "url(", "fetch(", "XMLHttpRequest"}) {
    EXPECT_THAT(clean, Not(HasSubstr(external))) << external;
  }
  // Two scripts, both inline: the match data and the pager.
  EXPECT_EQ(Count(clean, "<script"), 2);
  EXPECT_THAT(clean, HasSubstr("<script type=\"application/json\" "
                               "id=\"match-data\">"));
}

// A large tournament's report stays small: the match list and each bot's
// results show their first 100 rows in the HTML, and every match is in one
// compact JSON array from which the page's script makes the other pages
// (a pager under each table); without scripts, a note says where the rest
// is (results.json).
TEST(ReportTest, PagesALargeMatchListFromCompactData) {
  v1::TournamentResults results = SmallResults();
  results.clear_matches();
  for (int i = 0; i < 250; ++i) {
    AddMatch(results, {i % 2 ? "alpha" : "beta", "gamma"}, {1, 2});
  }
  results.mutable_matches(7)->set_log_file("logs/rock_paper_pyramid-m7.pyrlog");
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<tr id=\"match-99\">"));
  EXPECT_THAT(html, Not(HasSubstr("<tr id=\"match-100\">")));
  // Match 99 is in the first page of the match list, of alpha's results
  // (its 50th) and of gamma's; match 200 in none (beta's 101st).
  EXPECT_EQ(Count(html, "<a href=\"matches/m99.html\">"), 3);
  EXPECT_EQ(Count(html, "<a href=\"matches/m200.html\">"), 0);
  // gamma sat in all 250: 100 rows; alpha (odd) and beta (even) in 125.
  const size_t gamma = html.find("<h3 id=\"bot-2\">");
  ASSERT_NE(gamma, std::string::npos);
  const std::string rows =
      html.substr(gamma, html.find("</table>", gamma) - gamma);
  EXPECT_EQ(Count(rows, "<tr><td>"), 100);
  // The data: every match, with its seats as bot numbers (standings order:
  // alpha 0, gamma 1, beta 2), ranks, scores, verdict; a log file of the
  // usual name (logs/GAME-ID.pyrlog) as 1.
  EXPECT_THAT(html, HasSubstr("\"ranked\":3,\"bots\":[\"alpha\",\"gamma\","
                              "\"beta\"]"));
  EXPECT_THAT(html, HasSubstr("\n[0,\"m0\",\"logs/m0.log\",[2,1],[1,2],[0,0],"
                              "\"genuine\"]"));
  EXPECT_THAT(html, HasSubstr("\n[7,\"m7\",1,[0,1],"));
  EXPECT_THAT(html, HasSubstr("\n[249,\"m249\",\"logs/m249.log\",[0,1],"));
  EXPECT_EQ(Count(html, "\"genuine\"]"), 250);
  EXPECT_THAT(html, HasSubstr("class=\"paged\""));
  EXPECT_THAT(html, HasSubstr("function pager(table)"));
  EXPECT_THAT(html, HasSubstr("<noscript><p>The first 100 of 250 rows"));
  EXPECT_THAT(html, HasSubstr("<code>results.json</code>"));
  // A small one needs no note: everything is in the HTML.
  EXPECT_THAT(RenderHtmlReport(SmallResults()), Not(HasSubstr("<noscript>")));
}

TEST(ReportTest, ShowsGameOptionsAndSprt) {
  v1::TournamentResults results = SmallResults();
  results.mutable_game()->mutable_rock_paper_pyramid();
  const std::string defaults = RenderHtmlReport(results);
  v1::SprtOutcome* sprt = results.mutable_sprt();
  sprt->set_decision("H1");
  sprt->set_llr(3.1);
  sprt->set_lower_bound(-2.944);
  sprt->set_upper_bound(2.944);
  sprt->set_wins(30);
  sprt->set_draws(4);
  sprt->set_losses(10);
  sprt->set_elo(150);
  sprt->set_elo_low(60);
  sprt->set_elo_high(kInfinity);
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<h2>SPRT</h2>"));
  EXPECT_THAT(html, HasSubstr("H1"));
  EXPECT_THAT(html, HasSubstr("3.100, at or above the upper bound "
                              "[-2.944, 2.944]"));
  sprt->set_llr(-3);
  EXPECT_THAT(RenderHtmlReport(results),
              HasSubstr("-3.000, at or below the lower bound [-2.944, "
                        "2.944]"));
  sprt->set_llr(1.5);
  EXPECT_THAT(RenderHtmlReport(results),
              HasSubstr("1.500, within the bounds [-2.944, 2.944]"));
  sprt->set_llr(3.1);
  EXPECT_THAT(html, HasSubstr("30 / 4 / 10"));
  EXPECT_THAT(html, HasSubstr("150.0 [60.0, +&infin;]"));
  EXPECT_THAT(defaults, HasSubstr("options: defaults"));
  EXPECT_THAT(html, HasSubstr("options: defaults"));
  results.mutable_game()->mutable_rock_paper_pyramid()->set_red(true);
  EXPECT_THAT(RenderHtmlReport(results),
              HasSubstr("options: <code>red: true</code>"));
}

TEST(ReportTest, ShowsTheClocksAndWhatAFaultDoes) {
  v1::TournamentResults results = SmallResults();
  // Results of a runner older than the fields: no row for them.
  EXPECT_THAT(RenderHtmlReport(results), Not(HasSubstr("Clocks")));
  EXPECT_THAT(RenderHtmlReport(results), Not(HasSubstr("Faults")));
  results.mutable_clocks()->set_commit_timeout_ms(2000);
  results.mutable_clocks()->set_reveal_timeout_ms(1500);
  results.mutable_clocks()->set_seed_timeout_ms(30000);
  results.set_forfeit_policy(v1::FORFEIT_POLICY_FORFEIT);
  std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<td class=\"name\">commit 2 s, reveal 1500 ms; "
                              "the seed decision 30 s from the match's "
                              "creation</td>"));
  EXPECT_THAT(html, HasSubstr("a fault forfeits the match"));
  results.mutable_clocks()->set_reveal_timeout_ms(0);
  results.mutable_clocks()->set_time_bank_ms(60000);
  results.mutable_clocks()->set_time_bank_increment_ms(500);
  results.mutable_clocks()->clear_seed_timeout_ms();
  results.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr(">commit 2 s, reveal none, time bank 60 s + "
                              "500 ms per decision</td>"));
  EXPECT_THAT(html, HasSubstr("a fault plays the seat's default action"));
}

TEST(ReportTest, ShowsTheCheckpointAndTheTransparencyVerdict) {
  v1::TournamentResults results = SmallResults();
  EXPECT_THAT(RenderHtmlReport(results), Not(HasSubstr("Transparency")));
  results.set_checkpoint(
      "pyramid-referee/0123456789abcdef\n4\nAAAA<x>=\n\n\u2014 sig\n");
  results.set_transparency_verdict(
      "4 matches, all included in checkpoint 4 abcd");
  std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<h2>Transparency</h2>"));
  EXPECT_THAT(html, HasSubstr("<p class=\"verdict\">Complete: 4 matches, all "
                              "included in checkpoint 4 "
                              "abcd</p>"));
  EXPECT_THAT(
      html,
      HasSubstr("<pre>pyramid-referee/0123456789abcdef\n4\nAAAA&lt;x&gt;=\n"));
  // What the check proves, and that the standings are not part of it.
  EXPECT_THAT(html, HasSubstr("<code>replay verify-tournament DIR</code> "
                              "checks the logs"));
  EXPECT_THAT(html, HasSubstr("It does not read this page or "
                              "<code>results.json</code>: the standings and "
                              "ratings are not checked by it"));
  EXPECT_THAT(html, Not(HasSubstr("Check the directory with")));
  results.set_transparency_verdict("3 matches\nmatch 2 (x/r/2) is missing");
  results.set_transparency_problems(1);
  html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<p class=\"verdict bad\">PROBLEMS: 3 matches"));
  EXPECT_THAT(html, HasSubstr("is missing"));
}

TEST(ReportTest, EveryMatchLinksToItsViewerPage) {
  const std::string html = RenderHtmlReport(SmallResults());
  for (int i = 0; i < 4; ++i) {
    // Once in the match list, once per seat in the bots' results.
    EXPECT_EQ(Count(html, absl::StrCat("<a href=\"matches/m", i, ".html\">")),
              3);
  }
  EXPECT_EQ(ViewerPageOf("logs/rock_paper_pyramid-ab12.pyrlog"),
            "matches/rock_paper_pyramid-ab12.html");
  EXPECT_EQ(ViewerPageOf("logs.d/match"), "matches/match.html");
}

// A genuine match whose forfeits came while the runner was not hosting it
// (TournamentMatchResult.unhosted_forfeit) is marked in the match list, and
// a warning counts such matches with each bot's forfeits in them; a match
// that does not count is neither.
TEST(ReportTest, MarksForfeitsThatCameWhileTheRunnerWasNotHosting) {
  v1::TournamentResults results = SmallResults();
  EXPECT_EQ(UnhostedForfeitsText(results), "");
  EXPECT_THAT(RenderHtmlReport(results), Not(HasSubstr("unhosted")));
  for (int i : {0, 2, 3}) {
    v1::TournamentMatchResult& match = *results.mutable_matches(i);
    match.set_unhosted_forfeit(true);
    match.mutable_outcome()->mutable_seats(1)->set_forfeited(true);
  }
  results.mutable_matches(2)
      ->mutable_outcome()
      ->mutable_seats(0)
      ->set_forfeited(true);
  EXPECT_EQ(UnhostedForfeitsText(results),
            "2 matches' forfeits came while the runner was not hosting them "
            "(adopted from the referee): alpha 1, beta 1, gamma 1 (matches 0, "
            "2)");
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<h2>Warnings</h2>\n<p class=\"bad\" "
                              "id=\"unhosted-forfeits\">2 matches&#39; "
                              "forfeits came while the runner was not hosting "
                              "them (adopted from the referee): alpha 1, beta "
                              "1, gamma 1. "));
  EXPECT_THAT(html, HasSubstr("Matches <a href=\"#match-0\">0</a>, <a "
                              "href=\"#match-2\">2</a>.</p>"));
  EXPECT_EQ(Count(html, "<div class=\"bad unhosted\">"), 2);
  results.mutable_matches()->DeleteSubrange(2, 2);
  EXPECT_EQ(UnhostedForfeitsText(results),
            "1 match's forfeits came while the runner was not hosting it "
            "(adopted from the referee): beta 1 (match 0)");
}

TEST(ReportTest, EveryBotNameLinksToItsResults) {
  const std::string html = RenderHtmlReport(SmallResults());
  EXPECT_THAT(html, HasSubstr("<h2>Results by bot</h2>"));
  // Standings order: alpha, gamma, beta.
  EXPECT_THAT(html, HasSubstr("<h3 id=\"bot-1\">1. alpha</h3>"));
  EXPECT_THAT(html, HasSubstr("<h3 id=\"bot-2\">2. gamma</h3>"));
  EXPECT_THAT(html, HasSubstr("<h3 id=\"bot-3\">3. beta</h3>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"name\"><a href=\"#bot-1\" "
                              "class=\"bot\">alpha</a></td>"));
  // The match list: one line per seat, its bot and its rank together.
  EXPECT_THAT(html, HasSubstr("<td class=\"name\"><div class=\"seat\"><a "
                              "href=\"#bot-3\" class=\"bot\">beta</a> <span "
                              "class=\"rank\">rank 1</span></div><div "
                              "class=\"seat\"><a href=\"#bot-2\" "
                              "class=\"bot\">gamma</a> <span class=\"rank\">"
                              "rank 2</span></div></td>"));
  EXPECT_THAT(html, HasSubstr("<th class=\"name\">Seats and ranks</th>"));
  EXPECT_THAT(html, Not(HasSubstr("<th class=\"name\">Ranks</th>")));
  // A name is never broken at a hyphen, in the tables and the script's rows.
  EXPECT_THAT(html, HasSubstr(".bot { white-space: nowrap; }"));
  EXPECT_THAT(html, HasSubstr("node.className = 'bot';"));
  EXPECT_THAT(html, HasSubstr("el('div', 'seat')"));
  // alpha's rows: match 0 (seat 0, rank 1), match 1 (seat 1, rank 1),
  // match 2 (seat 0, rank 2).
  const size_t alpha = html.find("<h3 id=\"bot-1\">");
  const std::string rows =
      html.substr(alpha, html.find("</table>", alpha) - alpha);
  EXPECT_EQ(Count(rows, "<tr><td>"), 3);
  EXPECT_THAT(rows, HasSubstr("<code>m2</code></a></td><td>0</td><td>2</td>"));
}

TEST(ReportTest, IsDeterministic) {
  EXPECT_EQ(RenderHtmlReport(SmallResults()), RenderHtmlReport(SmallResults()));
}

// Four-seat matches score thirds: zeta's 1 + 1 + 1/3 and alpha's 2/3 + 2/3
// + 1 are both 7/3 with mean rank 5/3, though summed as doubles they differ
// in the last bit. Equal scores tie and fall to the name.
TEST(StandingsTest, EqualScoresTieExactlyAndFallToTheName) {
  v1::TournamentResults results;
  AddMatch(results, {"zeta", "alpha", "c", "d"}, {1, 2, 3, 4});
  AddMatch(results, {"zeta", "alpha", "d", "c"}, {1, 2, 3, 4});
  AddMatch(results, {"alpha", "c", "zeta", "d"}, {1, 2, 3, 4});
  ASSERT_NE(1.0 + 1.0 + 1.0 / 3, 2.0 / 3 + 2.0 / 3 + 1.0);
  const std::vector<v1::TournamentStanding> standings =
      ComputeStandings({"zeta", "alpha", "c", "d"},
                       {results.matches().begin(), results.matches().end()});
  ASSERT_EQ(standings.size(), 4u);
  EXPECT_EQ(standings[0].bot(), "alpha");
  EXPECT_EQ(standings[1].bot(), "zeta");
  EXPECT_EQ(standings[0].points(), standings[1].points());
  EXPECT_EQ(standings[0].points(), 7.0 / 3);
  EXPECT_EQ(standings[0].mean_rank(), standings[1].mean_rank());
  // c: 1/3 + 0 + 2/3; d: 0 + 1/3 + 0.
  EXPECT_EQ(standings[2].bot(), "c");
  EXPECT_EQ(standings[2].points(), 1.0);
  EXPECT_EQ(standings[3].bot(), "d");
  EXPECT_EQ(standings[3].points(), 1.0 / 3);
}

// Shared ranks are half points; a match whose log did not verify counts
// for nobody.
TEST(StandingsTest, SharedRanksAndUncountedMatches) {
  v1::TournamentResults results;
  AddMatch(results, {"a", "b", "c"}, {1, 1, 3});
  AddMatch(results, {"a", "b", "c"}, {1, 2, 3}, "not genuine: tampered");
  const std::vector<v1::TournamentStanding> standings = ComputeStandings(
      {"a", "b", "c"}, {results.matches().begin(), results.matches().end()});
  ASSERT_EQ(standings.size(), 3u);
  EXPECT_EQ(standings[0].bot(), "a");
  EXPECT_EQ(standings[0].points(), 0.75);
  EXPECT_EQ(standings[0].matches(), 1u);
  EXPECT_EQ(standings[0].firsts(), 1u);
  EXPECT_EQ(standings[1].bot(), "b");
  EXPECT_EQ(standings[1].points(), 0.75);
  EXPECT_EQ(standings[1].mean_rank(), 1.0);
  EXPECT_EQ(standings[2].bot(), "c");
  EXPECT_EQ(standings[2].points(), 0.0);
  EXPECT_EQ(standings[2].matches(), 1u);
}

// A Swiss tournament of an odd number of bots gives byes: "bye" played 4
// matches and won 3 (75%), "full" played 6 and won 4 (67%). By points
// "full" leads; by points per match, as Swiss standings rank, "bye" does.
TEST(StandingsTest, SwissStandingsRankByPointsPerMatch) {
  v1::TournamentResults results;
  for (int i = 0; i < 3; ++i) AddMatch(results, {"bye", "x"}, {1, 2});
  AddMatch(results, {"bye", "x"}, {2, 1});
  for (int i = 0; i < 4; ++i) AddMatch(results, {"full", "x"}, {1, 2});
  for (int i = 0; i < 2; ++i) AddMatch(results, {"full", "x"}, {2, 1});
  const std::vector<v1::TournamentMatchResult> matches(
      results.matches().begin(), results.matches().end());
  std::vector<v1::TournamentStanding> standings =
      ComputeStandings({"bye", "full", "x", "idle"}, matches);
  ASSERT_EQ(standings.size(), 4u);
  EXPECT_EQ(standings[0].bot(), "full");
  EXPECT_EQ(standings[1].bot(), "bye");
  standings = ComputeStandings({"bye", "full", "x", "idle"}, matches,
                               StandingsOrder::kPointsPerMatch);
  EXPECT_EQ(standings[0].bot(), "bye");
  EXPECT_EQ(standings[0].points(), 3);
  EXPECT_EQ(standings[0].matches(), 4u);
  EXPECT_EQ(standings[1].bot(), "full");
  EXPECT_EQ(standings[1].points(), 4);
  EXPECT_EQ(standings[2].bot(), "x");     // 3 of 10.
  EXPECT_EQ(standings[3].bot(), "idle");  // No match: last.
}

// A fitted rating is often a rounding error away from zero (-5.8e-14):
// it shows as 0, never as "-0" or "-0.0".
TEST(StandingsTest, NegativeZeroNeverShows) {
  EXPECT_EQ(FixedText(-5.8e-14, 0, /*sign=*/true), "+0");
  EXPECT_EQ(FixedText(-5.8e-14, 1), "0.0");
  EXPECT_EQ(FixedText(-0.0, 1), "0.0");
  EXPECT_EQ(FixedText(-0.4, 0, /*sign=*/true), "+0");
  EXPECT_EQ(FixedText(-0.6, 0, /*sign=*/true), "-1");
  EXPECT_EQ(FixedText(-0.04, 1), "0.0");
  EXPECT_EQ(FixedText(-0.25, 1), "-0.2");
  EXPECT_EQ(FixedText(12.34, 1), "12.3");
  EXPECT_EQ(FixedText(12.34, 0, /*sign=*/true), "+12");

  v1::TournamentResults results;
  AddStanding(results, "a", -5.8e-14, -100.04, 100.04);
  AddStanding(results, "b", 5.8e-14, -0.01, 0.01);
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<td>0.0</td>"));
  EXPECT_THAT(html, HasSubstr("[0.0, 0.0]"));
  EXPECT_THAT(html, Not(HasSubstr("-0.0")));
  const std::string table =
      FormatStandings({results.standings().begin(), results.standings().end()});
  EXPECT_THAT(table, HasSubstr("    +0  [-100, +100]"));
  EXPECT_THAT(table, HasSubstr("    +0  [+0, +0]"));
  EXPECT_THAT(table, Not(HasSubstr("-0")));
}

// The report shows how a bot's program ended each time, under its
// restarts (escaped); nothing for a bot that never ended.
TEST(StandingsTest, TheReportShowsHowEachBotEnded) {
  v1::TournamentResults results = SmallResults();
  results.mutable_standings(2)->set_restarts(2);
  results.mutable_standings(2)->add_ends("exit status 3");
  results.mutable_standings(2)->add_ends("signal 9 <&>");
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<td>2<br><small class=\"ends\">ended: exit "
                              "status 3, signal 9 &lt;&amp;&gt;</small></td>"));
  EXPECT_EQ(Count(html, "class=\"ends\""), 1);
}

// The printed standings and the report's show each bot's restarts.
TEST(StandingsTest, RestartsShowInTheTableAndTheReport) {
  v1::TournamentResults results = SmallResults();
  results.mutable_standings(2)->set_restarts(7);
  results.mutable_standings(2)->set_matches(3);
  results.mutable_standings(2)->set_forfeits(3);
  const std::string table =
      FormatStandings({results.standings().begin(), results.standings().end()});
  EXPECT_THAT(table, HasSubstr(" forfeits  restarts "));
  EXPECT_THAT(table, testing::ContainsRegex("beta +3 .* +3 +7 +-46 "));
  const std::string html = RenderHtmlReport(results);
  EXPECT_THAT(html, HasSubstr("<th>Forfeits</th><th>Restarts</th>"));
  EXPECT_THAT(html, HasSubstr("<td>3</td><td>7</td>"));
  EXPECT_THAT(html, Not(HasSubstr("<h2>Warnings</h2>")));
  const std::string warned = RenderHtmlReport(results, {"beta"});
  EXPECT_THAT(warned, HasSubstr("<h2>Warnings</h2>\n<p class=\"bad\">bot beta "
                                "never played: its seat committed no move "
                                "in any of its 3 matches, so its program "
                                "never connected to the referee or never "
                                "made one (restarted 7 times); its "
                                "output: <code>bots/beta.log</code></p>"));
}

// The console and the page show points with the same two decimals.
TEST(StandingsTest, PointsHaveTheSamePrecisionInTheTableAndTheReport) {
  v1::TournamentResults results = SmallResults();
  results.mutable_standings(0)->set_points(6.25);
  results.mutable_standings(0)->set_matches(8);
  const std::string table =
      FormatStandings({results.standings().begin(), results.standings().end()});
  EXPECT_THAT(table, testing::ContainsRegex("alpha +8 +6.25 +78.1% "));
  EXPECT_THAT(RenderHtmlReport(results), HasSubstr("<td>8</td><td>6.25</td>"));
}

}  // namespace
}  // namespace pyramid

#include "tools/tournament/report.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "referee/core/log_format.h"
#include "referee/games/picture.h"
#include "referee/games/registry.h"
#include "tools/tournament/rating_chart.h"
#include "tools/tournament/report_assets.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The rows of the match list and of each bot's results shown at once: the
// first page is in the page's HTML, the others are made by kMatchScript.
constexpr size_t kPageRows = 100;

// A count of half points as a decimal: 7 -> "3.5", 6 -> "3".
std::string HalfPoints(int halves) {
  return halves % 2 == 0 ? absl::StrCat(halves / 2)
                         : absl::StrCat(halves / 2, ".5");
}

// A path the page can link to: relative, with no scheme.
bool IsRelativePath(absl::string_view path) {
  return !path.empty() && path.front() != '/' && path.front() != '\\' &&
         path.find(':') == absl::string_view::npos;
}

// The anchor of each standing bot's results: "bot-1" for the first.
std::map<std::string, std::string> BotAnchors(
    const v1::TournamentResults& results) {
  std::map<std::string, std::string> anchors;
  for (int i = 0; i < results.standings_size(); ++i) {
    anchors.emplace(results.standings(i).bot(), absl::StrCat("bot-", i + 1));
  }
  return anchors;
}

// `bot`'s name, escaped, linked to its results when it has any; of class
// "bot", which a line never breaks inside (at a hyphen: "random-2").
std::string BotLink(const std::map<std::string, std::string>& anchors,
                    const std::string& bot) {
  const auto it = anchors.find(bot);
  if (it == anchors.end()) {
    return absl::StrCat("<span class=\"bot\">", SvgText(bot), "</span>");
  }
  return absl::StrCat("<a href=\"#", it->second, "\" class=\"bot\">",
                      SvgText(bot), "</a>");
}

// `text` linked to the match's viewer page, when its log is a relative path.
std::string ViewerLink(const v1::TournamentMatchResult& match,
                       absl::string_view text) {
  if (!IsRelativePath(match.log_file())) return std::string(text);
  return absl::StrCat("<a href=\"", SvgText(ViewerPageOf(match.log_file())),
                      "\">", text, "</a>");
}

void AppendHeader(const v1::TournamentResults& results, std::string& out) {
  const std::string name =
      SvgText(results.name().empty() ? "Tournament" : results.name());
  const std::string options = OptionsText(results.game());
  absl::StrAppend(
      &out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n",
      "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\">\n<title>",
      name, "</title>\n", "<style>", kReportStyle,
      "</style>\n</head>\n<body>\n<h1>", name, "</h1>\n<p>Game <code>",
      SvgText(results.game().game()), "</code>, options: ",
      options.empty() ? "defaults"
                      : absl::StrCat("<code>", SvgText(options), "</code>"),
      "</p>\n");
}

// A deadline in milliseconds, in whole seconds where it is some.
std::string MillisecondsText(uint32_t ms) {
  return ms % 1000 == 0 ? absl::StrCat(ms / 1000, " s")
                        : absl::StrCat(ms, " ms");
}

// Every match's clocks, as docs/protocol.md ("Deadlines") names them.
std::string ClocksText(const v1::ClockSettings& clocks) {
  auto deadline = [](uint32_t ms) {
    return ms == 0 ? std::string("none") : MillisecondsText(ms);
  };
  std::string text =
      absl::StrCat("commit ", deadline(clocks.commit_timeout_ms()), ", reveal ",
                   deadline(clocks.reveal_timeout_ms()));
  if (clocks.time_bank_ms() != 0) {
    absl::StrAppend(&text, ", time bank ",
                    MillisecondsText(clocks.time_bank_ms()));
    if (clocks.time_bank_increment_ms() != 0) {
      absl::StrAppend(&text, " + ",
                      MillisecondsText(clocks.time_bank_increment_ms()),
                      " per decision");
    }
  }
  if (clocks.seed_timeout_ms() != 0) {
    absl::StrAppend(&text, "; the seed decision ",
                    MillisecondsText(clocks.seed_timeout_ms()),
                    " from the match's creation");
  }
  return text;
}

std::string ForfeitPolicyText(v1::ForfeitPolicy policy) {
  return policy == v1::FORFEIT_POLICY_DEFAULT_ACTION
             ? "a fault plays the seat's default action"
             : "a fault forfeits the match";
}

void AppendSummary(const v1::TournamentResults& results,
                   v1::TournamentFormat format, std::string& out) {
  std::string rules;
  if (results.has_clocks()) {
    absl::StrAppend(&rules,
                    "<tr><th class=\"name\">Clocks</th><td class=\"name\">",
                    ClocksText(results.clocks()), "</td></tr>\n");
  }
  if (results.forfeit_policy() != v1::FORFEIT_POLICY_UNSPECIFIED) {
    absl::StrAppend(
        &rules, "<tr><th class=\"name\">Faults</th><td class=\"name\">",
        ForfeitPolicyText(results.forfeit_policy()), "</td></tr>\n");
  }
  absl::StrAppend(
      &out, "<h2>Summary</h2>\n<table>\n",
      "<tr><th class=\"name\">Format</th><td class=\"name\">",
      FormatName(format), "</td></tr>\n",
      "<tr><th class=\"name\">Matches scheduled</th><td>", results.scheduled(),
      "</td></tr>\n<tr><th class=\"name\">Logs verified</th><td>",
      results.verified(),
      "</td></tr>\n<tr><th class=\"name\">Skipped (SPRT decided)</th><td>",
      results.skipped(),
      "</td></tr>\n<tr><th class=\"name\">Rating model</th><td "
      "class=\"name\">",
      SvgText(results.rating_model()), "</td></tr>\n", rules,
      "<tr><th class=\"name\">Referee public key</th><td "
      "class=\"name\"><code>",
      SvgText(results.referee_public_key()), "</code></td></tr>\n</table>\n");
}

// The genuine matches whose forfeits came while the runner was not hosting
// them (UnhostedForfeitsText), in match order.
std::vector<const v1::TournamentMatchResult*> UnhostedForfeits(
    const v1::TournamentResults& results) {
  std::vector<const v1::TournamentMatchResult*> matches;
  for (const v1::TournamentMatchResult& match : results.matches()) {
    if (match.unhosted_forfeit() && IsGenuine(match)) matches.push_back(&match);
  }
  return matches;
}

// "2 matches' forfeits came while the runner was not hosting them (adopted
// from the referee): bot-a 2, bot-b 1": `matches` (UnhostedForfeits, not
// empty) and each bot's forfeits in them, by name.
std::string UnhostedForfeitsLead(
    const std::vector<const v1::TournamentMatchResult*>& matches) {
  std::map<std::string, uint32_t> forfeits;  // By bot name.
  for (const v1::TournamentMatchResult* match : matches) {
    for (int seat = 0;
         seat < match->seats_size() && seat < match->outcome().seats_size();
         ++seat) {
      if (match->outcome().seats(seat).forfeited()) {
        ++forfeits[match->seats(seat)];
      }
    }
  }
  std::vector<std::string> bots;
  for (const auto& [bot, n] : forfeits) {
    bots.push_back(absl::StrCat(bot, " ", n));
  }
  const bool one = matches.size() == 1;
  return absl::StrCat(
      matches.size(), one ? " match's" : " matches'",
      " forfeits came while the runner was not hosting ", one ? "it" : "them",
      " (adopted from the referee): ", absl::StrJoin(bots, ", "));
}

// A warning for each bot that never played, and one for the matches whose
// forfeits came while the runner was not hosting them, each linked.
void AppendWarnings(const v1::TournamentResults& results,
                    const std::vector<std::string>& never_played,
                    std::string& out) {
  const std::vector<const v1::TournamentMatchResult*> unhosted =
      UnhostedForfeits(results);
  if (never_played.empty() && unhosted.empty()) return;
  absl::StrAppend(&out, "<h2>Warnings</h2>\n");
  if (!unhosted.empty()) {
    std::vector<std::string> links;
    for (const v1::TournamentMatchResult* match : unhosted) {
      links.push_back(absl::StrCat("<a href=\"#match-", match->index(), "\">",
                                   match->index(), "</a>"));
    }
    absl::StrAppend(
        &out, "<p class=\"bad\" id=\"unhosted-forfeits\">",
        SvgText(UnhostedForfeitsLead(unhosted)),
        ". A run of the runner created these matches and stopped before their "
        "end (killed, interrupted, or given up on a referee that did not "
        "answer); the referee played them on without that run's bots, whose "
        "seats forfeit at their deadlines, and a resume took the sealed "
        "results. They count as any forfeit does, but the forfeits may be the "
        "host's rather than the bots'. ",
        unhosted.size() == 1 ? "Match " : "Matches ",
        absl::StrJoin(links, ", "), ".</p>\n");
  }
  for (const v1::TournamentStanding& s : results.standings()) {
    if (std::find(never_played.begin(), never_played.end(), s.bot()) ==
        never_played.end()) {
      continue;
    }
    absl::StrAppend(&out, "<p class=\"bad\">", SvgText(NeverPlayedText(s)),
                    "; its output: <code>",
                    SvgText(absl::StrCat("bots/", s.bot(), ".log")),
                    "</code></p>\n");
  }
}

// The transparency evidence: the verdict of `replay verify-tournament` on
// the output directory and the signed checkpoint it checked against.
void AppendTransparency(const v1::TournamentResults& results,
                        std::string& out) {
  if (results.checkpoint().empty() && results.transparency_verdict().empty()) {
    return;
  }
  const bool complete = results.transparency_problems() == 0;
  absl::StrAppend(
      &out, "<h2>Transparency</h2>\n<p class=\"verdict", complete ? "" : " bad",
      "\">", complete ? "Complete: " : "PROBLEMS: ",
      SvgText(results.transparency_verdict()),
      "</p>\n<p>Every log is in the referee's transparency log; each has an "
      "inclusion proof in <code>proofs/</code> against this signed "
      "checkpoint. <code>replay verify-tournament DIR</code> checks the "
      "logs (each verifies against the referee's key), their inclusion in "
      "this checkpoint and the schedule (every scheduled match has exactly "
      "one log). It does not read this page or <code>results.json</code>: "
      "the standings and ratings are not checked by it but computed from "
      "the verified logs by the tournament's ratings; to check them, run "
      "those ratings over the logs again.</p>\n<pre>",
      SvgText(results.checkpoint()), "</pre>\n");
}

// How the bot's program ended each time it did, under its restarts:
// "<br><small>exit status 3, signal 9</small>"; nothing when it never did.
std::string EndsHtml(const v1::TournamentStanding& standing) {
  if (standing.ends().empty()) return "";
  std::vector<std::string> ends;
  for (const std::string& how : standing.ends()) ends.push_back(SvgText(how));
  return absl::StrCat("<br><small class=\"ends\">ended: ",
                      absl::StrJoin(ends, ", "), "</small>");
}

void AppendStandings(const v1::TournamentResults& results,
                     v1::TournamentFormat format, std::string& out) {
  absl::StrAppend(
      &out, "<h2>Standings</h2>\n<p>", SvgText(StandingsOrderText(format)),
      ".</p>\n<table>\n<tr><th>#</th>"
      "<th class=\"name\">Bot</th><th>Matches</th><th>Points</th>"
      "<th>Score %</th><th>Firsts</th><th>Forfeits</th><th>Restarts</th>"
      "<th>Mean rank</th><th>Rating</th><th>95% interval</th>"
      "</tr>\n");
  const std::map<std::string, std::string> anchors = BotAnchors(results);
  int place = 0;
  for (const v1::TournamentStanding& s : results.standings()) {
    absl::StrAppend(
        &out, "<tr><td>", ++place, "</td><td class=\"name\">",
        BotLink(anchors, s.bot()), "</td><td>", s.matches(), "</td><td>",
        absl::StrFormat("%.2f", s.points()), "</td><td>",
        s.matches() == 0 ? std::string("&middot;")
                         : FixedText(100.0 * s.points() / s.matches(), 1),
        "</td><td>", s.firsts(), "</td><td>", s.forfeits(), "</td><td>",
        s.restarts(), EndsHtml(s), "</td><td>",
        absl::StrFormat("%.2f", s.mean_rank()), "</td><td>",
        EloHtml(s.rating()), "</td><td>",
        EloIntervalHtml(s.rating_low(), s.rating_high()), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n");
}

struct PairScore {
  int halves = 0;  // Half points of the row bot against the column bot.
  int games = 0;
};

// scores[r][c]: bot r (standings order) against bot c over their shared
// genuine matches. Seats naming no standing bot are ignored.
std::vector<std::vector<PairScore>> Crosstable(
    const v1::TournamentResults& results) {
  const int n = results.standings_size();
  std::map<std::string, int> row_of;
  for (int i = 0; i < n; ++i) row_of.emplace(results.standings(i).bot(), i);
  std::vector<std::vector<PairScore>> scores(n, std::vector<PairScore>(n));
  for (const v1::TournamentMatchResult& match : results.matches()) {
    if (!IsGenuine(match)) continue;
    const int seats =
        std::min(match.seats_size(), match.outcome().seats_size());
    for (int a = 0; a < seats; ++a) {
      const auto row = row_of.find(match.seats(a));
      if (row == row_of.end()) continue;
      for (int b = 0; b < seats; ++b) {
        const auto column = row_of.find(match.seats(b));
        if (b == a || column == row_of.end()) continue;
        const uint32_t mine = match.outcome().seats(a).rank();
        const uint32_t theirs = match.outcome().seats(b).rank();
        PairScore& score = scores[row->second][column->second];
        score.halves += mine < theirs ? 2 : mine == theirs ? 1 : 0;
        ++score.games;
      }
    }
  }
  return scores;
}

void AppendCrosstable(const v1::TournamentResults& results, std::string& out) {
  const std::vector<std::vector<PairScore>> scores = Crosstable(results);
  const int n = results.standings_size();
  absl::StrAppend(&out,
                  "<h2>Crosstable</h2>\n<p>Row bot against column bot over "
                  "their genuine matches together: 1 per match ranked "
                  "better, 0.5 per shared rank, as points/games.</p>\n"
                  "<table>\n<tr><th class=\"name\">Bot</th>");
  for (int c = 0; c < n; ++c) {
    absl::StrAppend(&out, "<th title=\"", SvgText(results.standings(c).bot()),
                    "\">", c + 1, "</th>");
  }
  absl::StrAppend(&out, "</tr>\n");
  for (int r = 0; r < n; ++r) {
    const std::string row_bot = SvgText(results.standings(r).bot());
    absl::StrAppend(&out, "<tr><th class=\"name\">", r + 1, " <a href=\"#bot-",
                    r + 1, "\" class=\"bot\">", row_bot, "</a></th>");
    for (int c = 0; c < n; ++c) {
      if (r == c) {
        absl::StrAppend(&out, "<td class=\"self\"></td>");
        continue;
      }
      const PairScore& score = scores[r][c];
      absl::StrAppend(&out, "<td title=\"", row_bot, " vs ",
                      SvgText(results.standings(c).bot()), "\">",
                      score.games == 0 ? "&middot;"
                                       : absl::StrCat(HalfPoints(score.halves),
                                                      "/", score.games),
                      "</td>");
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</table>\n");
}

void AppendSprt(const v1::TournamentResults& results, std::string& out) {
  if (!results.has_sprt()) return;
  const v1::SprtOutcome& sprt = results.sprt();
  absl::StrAppend(
      &out,
      "<h2>SPRT</h2>\n<p>The first bot entered against the second.</p>\n"
      "<table>\n<tr><th class=\"name\">Decision</th><td class=\"name\">",
      SvgText(sprt.decision()),
      "</td></tr>\n<tr><th class=\"name\">Log-likelihood ratio</th><td>",
      absl::StrFormat("%.3f", sprt.llr()), ", ",
      sprt.llr() >= sprt.upper_bound()   ? "at or above the upper bound"
      : sprt.llr() <= sprt.lower_bound() ? "at or below the lower bound"
                                         : "within the bounds",
      " [", absl::StrFormat("%.3f", sprt.lower_bound()), ", ",
      absl::StrFormat("%.3f", sprt.upper_bound()),
      "]</td></tr>\n<tr><th class=\"name\">Wins / draws / losses</th><td>",
      sprt.wins(), " / ", sprt.draws(), " / ", sprt.losses(),
      "</td></tr>\n<tr><th class=\"name\">Elo difference</th><td>",
      EloHtml(sprt.elo()), " ",
      EloIntervalHtml(sprt.elo_low(), sprt.elo_high()),
      "</td></tr>\n</table>\n");
}

// One row of the match list (the page's script makes the same rows from
// the match data, kMatchScript): each seat on a line of its own, its bot
// and its rank together.
void AppendMatchRow(const std::map<std::string, std::string>& anchors,
                    const v1::TournamentMatchResult& match, std::string& out) {
  std::string seats;
  for (int seat = 0; seat < match.seats_size(); ++seat) {
    absl::StrAppend(
        &seats, "<div class=\"seat\">", BotLink(anchors, match.seats(seat)),
        seat < match.outcome().seats_size()
            ? absl::StrCat(" <span class=\"rank\">rank ",
                           match.outcome().seats(seat).rank(), "</span>")
            : "",
        "</div>");
  }
  const bool genuine = IsGenuine(match);
  const std::string log = SvgText(match.log_file());
  absl::StrAppend(
      &out, "<tr id=\"match-", match.index(), "\"><td>", match.index(),
      "</td><td class=\"name\">",
      ViewerLink(match,
                 absl::StrCat("<code>", SvgText(match.match_id()), "</code>")),
      "</td><td class=\"name\">", seats, "</td><td class=\"",
      genuine ? "name" : "name bad", "\">", SvgText(match.verdict()),
      genuine && match.unhosted_forfeit()
          ? "<div class=\"bad unhosted\">forfeits while the runner was not "
            "hosting it (<a href=\"#unhosted-forfeits\">warning</a>)</div>"
          : "",
      "</td><td class=\"name\">",
      IsRelativePath(match.log_file())
          ? absl::StrCat("<a href=\"", log, "\" download>", log, "</a>")
          : log,
      "</td></tr>\n");
}

// Under a table that shows the first kPageRows of `rows` rows: what a
// reader without scripts does to see the rest.
void AppendNoScriptRest(size_t rows, std::string& out) {
  if (rows <= kPageRows) return;
  absl::StrAppend(&out, "<noscript><p>The first ", kPageRows, " of ", rows,
                  " rows; this page shows the others, ", kPageRows,
                  " at a time, with its script. Every match (index, match "
                  "id, seats, outcome, verdict and log file) is also in "
                  "<code>results.json</code> beside this page, each log in "
                  "<code>logs/</code> and its viewer page in "
                  "<code>matches/</code>.</p></noscript>\n");
}

void AppendMatches(const v1::TournamentResults& results, std::string& out) {
  const std::map<std::string, std::string> anchors = BotAnchors(results);
  absl::StrAppend(
      &out,
      "<h2>Matches</h2>\n<p>Each match opens in the match "
      "viewer (its log verified and shown step by step); the log itself is "
      "the download beside it. ",
      results.matches_size(),
      results.matches_size() == 1 ? " match" : " matches", ", ", kPageRows,
      " a page.</p>\n<table id=\"match-list\" class=\"paged\" "
      "data-bot=\"\">\n<tr><th>#</th>"
      "<th class=\"name\">Match</th><th class=\"name\">Seats and ranks</th>"
      "<th class=\"name\">Verdict"
      "</th><th class=\"name\">Log</th></tr>\n");
  for (int i = 0;
       i < results.matches_size() && static_cast<size_t>(i) < kPageRows; ++i) {
    AppendMatchRow(anchors, results.matches(i), out);
  }
  absl::StrAppend(&out, "</table>\n");
  AppendNoScriptRest(results.matches_size(), out);
}

// Each standing bot's matches: its seat, rank and score in each, with the
// match's viewer; the first kPageRows here, the rest by the page's script.
void AppendBotResults(const v1::TournamentResults& results, std::string& out) {
  if (results.standings_size() == 0) return;
  absl::StrAppend(&out, "<h2>Results by bot</h2>\n");
  for (int i = 0; i < results.standings_size(); ++i) {
    const std::string& bot = results.standings(i).bot();
    absl::StrAppend(&out, "<h3 id=\"bot-", i + 1, "\">", i + 1, ". ",
                    SvgText(bot), "</h3>\n<table id=\"bot-", i + 1,
                    "-results\" class=\"paged\" data-bot=\"", i,
                    "\">\n<tr><th>#</th><th class=\"name\">Match"
                    "</th><th>Seat</th><th>Rank</th><th>Score</th>"
                    "<th class=\"name\">Verdict</th></tr>\n");
    size_t rows = 0;
    for (const v1::TournamentMatchResult& match : results.matches()) {
      for (int seat = 0; seat < match.seats_size(); ++seat) {
        if (match.seats(seat) != bot) continue;
        if (rows++ >= kPageRows) continue;
        const bool has_outcome = seat < match.outcome().seats_size();
        absl::StrAppend(
            &out, "<tr><td>", match.index(), "</td><td class=\"name\">",
            ViewerLink(match, absl::StrCat("<code>", SvgText(match.match_id()),
                                           "</code>")),
            "</td><td>", seat, "</td><td>",
            has_outcome ? absl::StrCat(match.outcome().seats(seat).rank())
                        : "&middot;",
            "</td><td>",
            has_outcome ? absl::StrCat(match.outcome().seats(seat).score())
                        : "&middot;",
            "</td><td class=\"", IsGenuine(match) ? "name" : "name bad", "\">",
            SvgText(match.verdict()), "</td></tr>\n");
      }
    }
    absl::StrAppend(&out, "</table>\n");
    AppendNoScriptRest(rows, out);
  }
}

// `text` as a JSON string that is safe inside a <script> element: no "<"
// (so no "</script>"), ">" or "&", and no raw control character.
std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '<':
      case '>':
      case '&':
        absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, absl::StrFormat("\\u%04x", c));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

// Every match, compactly, for the page's script (kMatchScript):
// {"page": rows per page, "game": the game, "ranked": how many of "bots"
// are standing bots (bot K links to #bot-(K+1)), "bots": names, "m": one
// [index, match id, log file (1: logs/GAME-ID.pyrlog), [seat's bot],
// [seat's rank], [seat's score], verdict] per match}.
void AppendMatchData(const v1::TournamentResults& results, std::string& out) {
  std::map<std::string, int> number;
  std::vector<std::string> bots;
  for (const v1::TournamentStanding& s : results.standings()) {
    if (number.emplace(s.bot(), bots.size()).second) bots.push_back(s.bot());
  }
  const size_t ranked = bots.size();
  for (const v1::TournamentMatchResult& match : results.matches()) {
    for (const std::string& bot : match.seats()) {
      if (number.emplace(bot, bots.size()).second) bots.push_back(bot);
    }
  }
  const std::string& game = results.game().game();
  absl::StrAppend(&out,
                  "<script type=\"application/json\" id=\"match-data\">"
                  "{\"page\":",
                  kPageRows, ",\"game\":", JsonString(game),
                  ",\"ranked\":", ranked, ",\"bots\":[");
  for (size_t i = 0; i < bots.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", JsonString(bots[i]));
  }
  absl::StrAppend(&out, "],\"m\":[");
  for (int i = 0; i < results.matches_size(); ++i) {
    const v1::TournamentMatchResult& match = results.matches(i);
    const bool usual_log =
        match.log_file() ==
        absl::StrCat("logs/", log_format::FileName(game, match.match_id()));
    absl::StrAppend(&out, i ? ",\n" : "\n", "[", match.index(), ",",
                    JsonString(match.match_id()), ",",
                    usual_log ? "1" : JsonString(match.log_file()), ",[");
    for (int s = 0; s < match.seats_size(); ++s) {
      absl::StrAppend(&out, s ? "," : "", number[match.seats(s)]);
    }
    absl::StrAppend(&out, "],[");
    for (int s = 0; s < match.outcome().seats_size(); ++s) {
      absl::StrAppend(&out, s ? "," : "", match.outcome().seats(s).rank());
    }
    absl::StrAppend(&out, "],[");
    for (int s = 0; s < match.outcome().seats_size(); ++s) {
      absl::StrAppend(&out, s ? "," : "", match.outcome().seats(s).score());
    }
    absl::StrAppend(&out, "],", JsonString(match.verdict()), "]");
  }
  absl::StrAppend(&out, "]}</script>\n<script>", kMatchScript, "</script>\n");
}

}  // namespace

std::string RenderHtmlReport(const v1::TournamentResults& results,
                             const std::vector<std::string>& never_played) {
  const v1::TournamentFormat format = results.format();
  std::string out;
  AppendHeader(results, out);
  AppendSummary(results, format, out);
  AppendWarnings(results, never_played, out);
  AppendTransparency(results, out);
  AppendStandings(results, format, out);
  AppendCrosstable(results, out);
  AppendRatingChart(results, out);
  AppendSprt(results, out);
  AppendMatches(results, out);
  AppendBotResults(results, out);
  AppendMatchData(results, out);
  absl::StrAppend(&out, "</body>\n</html>\n");
  return out;
}

std::string NeverPlayedText(const v1::TournamentStanding& standing) {
  return absl::StrCat(
      "bot ", standing.bot(),
      " never played: its seat committed no move in any of its ",
      standing.matches(), standing.matches() == 1 ? " match" : " matches",
      ", so its program never connected to the referee or never made one "
      "(restarted ",
      standing.restarts(), standing.restarts() == 1 ? " time" : " times", ")");
}

std::string UnhostedForfeitsText(const v1::TournamentResults& results) {
  const std::vector<const v1::TournamentMatchResult*> matches =
      UnhostedForfeits(results);
  if (matches.empty()) return "";
  std::vector<std::string> indices;
  for (const v1::TournamentMatchResult* match : matches) {
    indices.push_back(absl::StrCat(match->index()));
  }
  return absl::StrCat(UnhostedForfeitsLead(matches), " (",
                      matches.size() == 1 ? "match " : "matches ",
                      absl::StrJoin(indices, ", "), ")");
}

std::string ViewerPageOf(const std::string& log_file) {
  std::string name = log_file.substr(log_file.find_last_of('/') + 1);
  if (const size_t dot = name.find_last_of('.'); dot != std::string::npos) {
    name.resize(dot);
  }
  return absl::StrCat("matches/", name, ".html");
}

}  // namespace pyramid

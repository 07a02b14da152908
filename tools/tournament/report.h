// The tournament's HTML report.
#ifndef PYRAMID_TOOLS_TOURNAMENT_REPORT_H_
#define PYRAMID_TOOLS_TOURNAMENT_REPORT_H_

#include <string>
#include <vector>

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// One self-contained HTML5 page describing `results`: title (name, game and
// its options), summary (with the clocks and what a fault does, when the
// results hold them), standings with rating intervals, the crosstable, a
// rating chart with 95% error bars in inline SVG, the SPRT outcome when
// there is one, the match list, and each bot's results (every bot's name in
// the standings and the crosstable links to them). Each match links to its
// viewer page, ViewerPageOf(its log_file), which the runner writes
// (`replay html`), and to the raw log as a download. The match list and
// each bot's results hold their first 100 rows in the HTML; every match is
// also in one compact JSON array in the page, from which an inline script
// shows the other rows, 100 a page, with a pager ("#match-N" opens match
// N's page); without scripts, a note says that results.json holds every
// match. Inline CSS and that inline script only: no reference to anything
// outside the page except those links, which are relative to the page (a
// log_file that is not a relative path is shown without a link). Every string
// taken from `results` is escaped. The same results give the same bytes (no
// timestamps).
//
// Crosstable cell (row bot, column bot): over the genuine matches where both
// sat, 1 per match the row bot ranked better and 0.5 per match they shared a
// rank, shown as "points/games".
//
// `never_played` names bots that never played (BotsThatNeverPlayed in
// runner.h): the page warns about each, under the summary. Matches marked
// unhosted_forfeit are marked in the match list's HTML rows, and a warning
// under the summary says UnhostedForfeitsText with a link to each. The summary
// names the results' format, and a line above the standings says their
// order (StandingsOrderText).
std::string RenderHtmlReport(const referee::v1::TournamentResults& results,
                             const std::vector<std::string>& never_played = {});

// Why the bot of `standing` counts as one that never played, in a line:
// "bot NAME never played: ..." with its matches and restarts.
std::string NeverPlayedText(const referee::v1::TournamentStanding& standing);

// The genuine matches of `results` marked unhosted_forfeit (their forfeits
// came while no run of the runner hosted their bots, and count as any
// forfeit does), in a line: "2 matches' forfeits came while the runner was
// not hosting them (adopted from the referee): bot-a 2, bot-b 1 (matches 4,
// 9)", each bot with the forfeits those matches hold, by name. Empty when
// there are none.
std::string UnhostedForfeitsText(const referee::v1::TournamentResults& results);

// The match viewer page of the log `log_file`, relative to the output
// directory: "matches/" and the log's file name with the extension ".html"
// ("logs/x.pyrlog" gives "matches/x.html").
std::string ViewerPageOf(const std::string& log_file);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_REPORT_H_

// The tournament's HTML report.
#ifndef PYRAMID_TOOLS_TOURNAMENT_REPORT_H_
#define PYRAMID_TOOLS_TOURNAMENT_REPORT_H_

#include <string>

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// One self-contained HTML5 page describing `results`: title (name, game and
// its options), summary, standings with rating intervals, the crosstable, a
// rating chart with 95% error bars in inline SVG, the SPRT outcome when
// there is one, and the match list with relative links to the logs. Inline
// CSS only: no scripts and no reference to anything outside the page except
// the log links, which are relative to the page (a log_file that is not a
// relative path is shown without a link). Every string taken from `results`
// is escaped. The same results give the same bytes (no timestamps).
//
// Crosstable cell (row bot, column bot): over the genuine matches where both
// sat, 1 per match the row bot ranked better and 0.5 per match they shared a
// rank, shown as "points/games".
std::string RenderHtmlReport(const referee::v1::TournamentResults& results);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_REPORT_H_

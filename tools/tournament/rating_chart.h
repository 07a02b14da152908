// The tournament report's rating chart: each standing bot's Elo rating
// and its 95% interval as an inline SVG, and how the report writes an Elo
// value (in the chart and its tables alike).
#ifndef PYRAMID_TOOLS_TOURNAMENT_RATING_CHART_H_
#define PYRAMID_TOOLS_TOURNAMENT_RATING_CHART_H_

#include <string>

#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// An Elo value with one decimal (never "-0.0"), for HTML: an infinity as a
// signed infinity sign ("+&infin;", "&minus;&infin;"), NaN as "n/a".
std::string EloHtml(double value);

// An interval of Elo values, "[LOW, HIGH]", each as EloHtml.
std::string EloIntervalHtml(double low, double high);

// Appends the "Ratings" section: a heading, a line saying what the chart
// shows and, when there are standings, an SVG (in a <div class="chart">,
// which scrolls sideways on a screen narrower than the chart's CSS
// min-width) with one row per standing (in order: the bot's name, escaped,
// on a line of its own; under it, its rating as a dot and its interval as
// a bar, an arrow on an unbounded side, or "no rating" for an infinite or
// NaN rating) over an Elo axis that covers 0 and every finite rating and
// bound drawn. A long name widens the chart only when it is wider than the
// plot, and never narrows the plot. The same results give the same bytes.
void AppendRatingChart(const referee::v1::TournamentResults& results,
                       std::string& out);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_RATING_CHART_H_

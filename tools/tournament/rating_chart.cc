#include "tools/tournament/rating_chart.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "referee/games/picture.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The chart's horizontal scale: [low, high] in steps of `step`.
struct Scale {
  double low = 0;
  double high = 0;
  double step = 1;
};

// 1, 2 or 5 times a power of ten, at least `raw`.
double NiceStep(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction <= 1   ? 1
                      : fraction <= 2 ? 2
                      : fraction <= 5 ? 5
                                      : 10;
  return nice * magnitude;
}

// Covers zero and every finite rating and bound of the bots drawn (those
// with a finite rating: the others show "no rating"), at least 100 Elo
// wide, rounded out to whole steps, with one more step on a side where some
// drawn bound is infinite so that its open bar shows.
Scale ChartScale(const v1::TournamentResults& results) {
  Scale scale;
  bool open_low = false;
  bool open_high = false;
  for (const v1::TournamentStanding& s : results.standings()) {
    if (!std::isfinite(s.rating())) continue;  // Not drawn.
    for (double value : {s.rating(), s.rating_low(), s.rating_high()}) {
      if (!std::isfinite(value)) continue;
      scale.low = std::min(scale.low, value);
      scale.high = std::max(scale.high, value);
    }
    open_low = open_low || std::isinf(s.rating_low());
    open_high = open_high || std::isinf(s.rating_high());
  }
  constexpr double kMinSpan = 100;
  if (scale.high - scale.low < kMinSpan) {
    const double middle = (scale.low + scale.high) / 2;
    scale.low = middle - kMinSpan / 2;
    scale.high = middle + kMinSpan / 2;
  }
  scale.step = NiceStep((scale.high - scale.low) / 6);
  scale.low = std::floor(scale.low / scale.step) * scale.step;
  scale.high = std::ceil(scale.high / scale.step) * scale.step;
  if (open_low) scale.low -= scale.step;
  if (open_high) scale.high += scale.step;
  return scale;
}

// `value` with one decimal, as the chart's coordinates are written
// ("12.0", not "12" as picture.h's Px).
std::string Fixed1(double value) { return absl::StrFormat("%.1f", value); }

// Where the rating chart's parts go: the plot between `left` and `right`,
// one row per standing (the bot's name on a line of its own, its bar under
// it: a long name never narrows the plot), the Elo axis below them. The
// chart is as wide as its plot, or as its longest name when that is wider.
struct ChartGeometry {
  explicit ChartGeometry(const v1::TournamentResults& results)
      : scale(ChartScale(results)) {
    size_t longest_name = 0;
    for (const v1::TournamentStanding& s : results.standings()) {
      longest_name = std::max(longest_name, s.bot().size());
    }
    right = left + 480;
    width = std::max(right + 22,
                     left + 8.0 * static_cast<double>(longest_name) + 8);
    axis_y = top + row * results.standings_size() + 4;
    height = axis_y + 34;
  }
  // The x coordinate of an Elo value.
  double X(double value) const {
    return left +
           (value - scale.low) / (scale.high - scale.low) * (right - left);
  }

  const Scale scale;
  const double row = 38;   // A name's line, then its bar.
  const double name = 14;  // The name's baseline below the row's top.
  const double bar = 27;   // The bar below the row's top.
  const double top = 6;
  const double left = 14;
  double right = 0, width = 0, axis_y = 0, height = 0;
};

// The Elo axis with its ticks and label, and the line at 0.
void AppendChartAxis(const ChartGeometry& g, std::string& out) {
  const int first_tick =
      static_cast<int>(std::lround(g.scale.low / g.scale.step));
  const int last_tick =
      static_cast<int>(std::lround(g.scale.high / g.scale.step));
  absl::StrAppend(&out, "<line class=\"axis\" x1=\"", Fixed1(g.left),
                  "\" y1=\"", Fixed1(g.axis_y), "\" x2=\"", Fixed1(g.right),
                  "\" y2=\"", Fixed1(g.axis_y), "\"/>\n");
  for (int k = first_tick; k <= last_tick; ++k) {
    const double value = k * g.scale.step;
    absl::StrAppend(&out, "<line class=\"tick\" x1=\"", Fixed1(g.X(value)),
                    "\" y1=\"", Fixed1(g.axis_y), "\" x2=\"",
                    Fixed1(g.X(value)), "\" y2=\"", Fixed1(g.axis_y + 5),
                    "\"/><text x=\"", Fixed1(g.X(value)), "\" y=\"",
                    Fixed1(g.axis_y + 18), "\" text-anchor=\"middle\">",
                    absl::StrFormat("%g", value + 0.0), "</text>\n");
  }
  absl::StrAppend(&out, "<text x=\"", Fixed1((g.left + g.right) / 2), "\" y=\"",
                  Fixed1(g.axis_y + 32),
                  "\" text-anchor=\"middle\">Elo</text>\n");
  absl::StrAppend(&out, "<line class=\"zero\" x1=\"", Fixed1(g.X(0)),
                  "\" y1=\"", Fixed1(g.top), "\" x2=\"", Fixed1(g.X(0)),
                  "\" y2=\"", Fixed1(g.axis_y), "\"/>\n");
}

// One end of a rating's interval at `x`: a cap, or an arrow pointing out
// (`direction` -1 left, +1 right) when that side is unbounded.
void AppendIntervalEnd(bool open, double x, double y, double direction,
                       std::string& out) {
  if (open) {
    absl::StrAppend(&out, "<polygon class=\"arrow\" points=\"", Fixed1(x), ",",
                    Fixed1(y), " ", Fixed1(x - 9 * direction), ",",
                    Fixed1(y - 5), " ", Fixed1(x - 9 * direction), ",",
                    Fixed1(y + 5), "\"/>\n");
  } else {
    absl::StrAppend(&out, "<line class=\"cap\" x1=\"", Fixed1(x), "\" y1=\"",
                    Fixed1(y - 5), "\" x2=\"", Fixed1(x), "\" y2=\"",
                    Fixed1(y + 5), "\"/>\n");
  }
}

// Row `i`: the bot's name, its interval and its rating.
void AppendRatingRow(const ChartGeometry& g, const v1::TournamentStanding& s,
                     int i, std::string& out) {
  const double y = g.top + g.row * i + g.bar;
  const std::string bot = SvgText(s.bot());
  absl::StrAppend(&out, "<text class=\"botname\" x=\"", Fixed1(g.left),
                  "\" y=\"", Fixed1(g.top + g.row * i + g.name), "\">", bot,
                  "</text>\n");
  if (!std::isfinite(s.rating())) {
    absl::StrAppend(&out, "<text x=\"", Fixed1(g.left), "\" y=\"",
                    Fixed1(y + 4), "\">no rating</text>\n");
    return;
  }
  const bool open_low = !std::isfinite(s.rating_low());
  const bool open_high = !std::isfinite(s.rating_high());
  const double x_low = open_low ? g.left : g.X(s.rating_low());
  const double x_high = open_high ? g.right : g.X(s.rating_high());
  absl::StrAppend(&out, "<line class=\"bar\" x1=\"", Fixed1(x_low), "\" y1=\"",
                  Fixed1(y), "\" x2=\"", Fixed1(x_high), "\" y2=\"", Fixed1(y),
                  "\"/>\n");
  AppendIntervalEnd(open_low, x_low, y, -1, out);
  AppendIntervalEnd(open_high, x_high, y, +1, out);
  absl::StrAppend(
      &out, "<circle class=\"dot\" cx=\"", Fixed1(g.X(s.rating())), "\" cy=\"",
      Fixed1(y), "\" r=\"4\"><title>", bot, ": ", EloHtml(s.rating()), " ",
      EloIntervalHtml(s.rating_low(), s.rating_high()), "</title></circle>\n");
}

}  // namespace

std::string EloHtml(double value) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return value > 0 ? "+&infin;" : "&minus;&infin;";
  return FixedText(value, 1);  // Never "-0.0".
}

std::string EloIntervalHtml(double low, double high) {
  return absl::StrCat("[", EloHtml(low), ", ", EloHtml(high), "]");
}

void AppendRatingChart(const v1::TournamentResults& results, std::string& out) {
  absl::StrAppend(&out,
                  "<h2>Ratings</h2>\n<p>Elo rating (dot) with its 95% "
                  "confidence interval (bar); an arrow marks an unbounded "
                  "side.</p>\n");
  if (results.standings_size() == 0) return;
  const ChartGeometry g(results);
  // In a box of its own: on a narrow screen the chart shrinks no further
  // than its CSS min-width (readable text) and scrolls sideways there.
  absl::StrAppend(&out, "<div class=\"chart\"><svg width=\"", Fixed1(g.width),
                  "\" height=\"", Fixed1(g.height), "\" viewBox=\"0 0 ",
                  Fixed1(g.width), " ", Fixed1(g.height),
                  "\" role=\"img\" aria-label=\"Ratings\">\n");
  AppendChartAxis(g, out);
  for (int i = 0; i < results.standings_size(); ++i) {
    AppendRatingRow(g, results.standings(i), i, out);
  }
  absl::StrAppend(&out, "</svg></div>\n");
}

}  // namespace pyramid

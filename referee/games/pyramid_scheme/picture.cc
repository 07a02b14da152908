#include "referee/games/pyramid_scheme/picture.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr int kWidth = 1000;
constexpr int kBandHeight = 120;  // The common board.
constexpr int kPanelW = 500;      // One seat's panel.
constexpr int kPanelH = 300;
constexpr double kCardW = 30;  // A card in a pyramid, at scale 1.
constexpr double kCardH = 40;

const char* kColourNames[] = {"", "green", "blue", "pink", "yellow"};

std::string CardName(const v1::PssCard& card) {
  if (card.id() == 64) return "Founder";
  if (card.id() >= 65) return absl::StrCat("Police (", card.id(), ")");
  const int c = static_cast<int>(card.colour());
  return absl::StrCat(c >= 1 && c <= 4 ? kColourNames[c] : "?", " ",
                      card.number(), " (", card.id(), ")");
}

std::string CardClass(const v1::PssCard& card) {
  if (card.id() == 64) return "ps-founder";
  if (card.id() >= 65) return "ps-police";
  return absl::StrCat("ps-k", static_cast<int>(card.colour()));
}

// A card with its top-left corner at (x, y), `w` by `h`; `note` adds to
// its tooltip.
std::string Card(const v1::PssCard& card, double x, double y, double w,
                 double h, absl::string_view extra = "",
                 absl::string_view note = "") {
  std::string label = card.id() == 64   ? "F"
                      : card.id() >= 65 ? "P"
                                        : absl::StrCat(card.number());
  return absl::StrCat("<g class=\"", CardClass(card), extra.empty() ? "" : " ",
                      extra, "\"><title>", CardName(card), note,
                      "</title><rect x=\"", Px(x), "\" y=\"", Px(y),
                      "\" width=\"", Px(w), "\" height=\"", Px(h),
                      "\"/><text x=\"", Px(x + w / 2), "\" y=\"",
                      Px(y + h / 2 + 4), "\">", label, "</text></g>");
}

// The board: the frame, and whose turn it is.
std::string Band(const v1::PssBoard& board, const v1::PssDecision& decision,
                 int height) {
  return absl::StrCat(
      "<g class=\"board-pyramid_scheme\"><rect class=\"ps-table\" x=\"0\" "
      "y=\"0\" width=\"",
      kWidth, "\" height=\"", height, "\"/><text class=\"ps-h\" x=\"12\" ",
      "y=\"22\">Turn ", board.turn(), " of at most ", board.max_turns(),
      decision.phase() == v1::PSS_PHASE_GAME_OVER
          ? "; game over"
          : absl::StrCat("; seat ", board.active_seat(), "'s turn, ",
                         decision.actions_done(), " of 2 actions done"),
      "</text></g>");
}

// The common cards: display, deck (its top card face up) and discard, as
// parts: each display slot apart (a slot that keeps its card costs nothing
// at the next step), then the deck, then the discard.
void CommonCards(const v1::PssBoard& board, std::vector<std::string>& parts) {
  // Appended to an empty string rather than built from the literal: GCC 12
  // at -O3 warns (-Warray-bounds, a false positive) on the latter here.
  parts.emplace_back().append(
      "<text class=\"ps-small\" x=\"12\" y=\"44\">Display</text>");
  for (int slot = 0; slot < board.display_size(); ++slot) {
    const double x = 12 + slot * 40;
    if (board.display(slot).has_card()) {
      parts.push_back(Card(board.display(slot).card(), x, 50, 34, 48));
    } else {
      parts.push_back(absl::StrCat("<rect class=\"ps-empty\" x=\"", Px(x),
                                   "\" y=\"50\" width=\"34\" height=\"48\"/>"));
    }
  }
  std::string deck =
      absl::StrCat("<g><text class=\"ps-small\" x=\"150\" y=\"44\">Deck ",
                   board.deck_size(), "</text>");
  if (board.has_deck_top()) {
    absl::StrAppend(&deck, Card(board.deck_top(), 150, 50, 34, 48, "",
                                ", the deck's top card, face up"));
  }
  absl::StrAppend(&deck, "</g>");
  parts.push_back(std::move(deck));
  std::string discard =
      absl::StrCat("<g><text class=\"ps-small\" x=\"210\" y=\"44\">Discard ",
                   board.discard_size(), "</text>");
  if (!board.discard().empty()) {
    absl::StrAppend(&discard, Card(*board.discard().rbegin(), 210, 50, 34, 48));
  }
  absl::StrAppend(&discard, "</g>");
  parts.push_back(std::move(discard));
}

// The goals in play (who claimed or reserved each) and the supply.
std::string GoalsAndSupply(const v1::PssBoard& board) {
  std::string out =
      "<g><text class=\"ps-small\" x=\"290\" y=\"44\">Goals</text>";
  for (int i = 0; i < board.goals_size(); ++i) {
    const v1::PssGoalView& goal = board.goals(i);
    const double x = 290 + i * 62;
    const std::string state =
        goal.has_claimed_by()    ? absl::StrCat("seat ", goal.claimed_by())
        : goal.has_reserved_by() ? absl::StrCat("res. ", goal.reserved_by())
                                 : "open";
    absl::StrAppend(
        &out, "<rect class=\"",
        goal.has_claimed_by() ? "ps-goal ps-claimed" : "ps-goal", "\" x=\"",
        Px(x),
        "\" y=\"50\" width=\"56\" height=\"48\"/><text class=\"ps-mid\" ",
        "x=\"", Px(x + 28), "\" y=\"70\">goal ", goal.goal(),
        "</text><text class=\"ps-small ps-mid\" x=\"", Px(x + 28),
        "\" y=\"88\">", state, "</text>");
  }
  const v1::PssSupply& s = board.supply();
  absl::StrAppend(
      &out, "<text class=\"ps-small\" x=\"670\" y=\"62\">Supply: ", s.police(),
      " Police, ", s.reset_tokens(), " reset, ", s.bypass_tokens(),
      " bypass,</text><text class=\"ps-small\" x=\"670\" y=\"78\">",
      s.capacity_2_tokens(), " +2 and ", s.capacity_3_tokens(),
      " +3 capacity tokens; ", board.out_of_game(), " out of game</text></g>");
  return out;
}

// Tree layout of one pyramid: every card's column (leaves 0, 1, 2...,
// parents centred over their children) and depth.
struct Layout {
  std::vector<double> column;
  std::vector<int> depth;
  double columns = 1;
  int depths = 1;
};

Layout LayOut(const google::protobuf::RepeatedPtrField<v1::PssNode>& nodes) {
  Layout layout;
  const int n = nodes.size();
  layout.column.assign(n, 0);
  layout.depth.assign(n, 0);
  std::map<uint32_t, int> index;  // Card id -> node index.
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (int i = 0; i < n; ++i) {
    index[nodes[i].card().id()] = i;
    auto parent =
        nodes[i].has_parent() ? index.find(nodes[i].parent()) : index.end();
    if (parent == index.end() || parent->second == i) {
      roots.push_back(i);
    } else {
      children[parent->second].push_back(i);
    }
  }
  double next = 0;
  // Nodes come parent first, so depths can be set in one pass.
  for (int i = 0; i < n; ++i) {
    for (int child : children[i]) layout.depth[child] = layout.depth[i] + 1;
    layout.depths = std::max(layout.depths, layout.depth[i] + 1);
  }
  // Columns: children before parents, i.e. in reverse placement order.
  std::vector<bool> placed(n, false);
  std::vector<int> order;  // Depth-first, pre-order.
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    order.push_back(i);
    for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) {
      stack.push_back(*it);
    }
  }
  for (int i : order) {
    if (children[i].empty()) layout.column[i] = next++;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!children[*it].empty()) {
      layout.column[*it] = (layout.column[children[*it].front()] +
                            layout.column[children[*it].back()]) /
                           2;
    }
  }
  layout.columns = std::max(next, 1.0);
  return layout;
}

// The text "hand: seen by seat N only" (11px) ends at the panel's right,
// x0 + kPanelW - 14, on the name's line.
std::string SecretNote(int seat) {
  return absl::StrCat("hand: seen by seat ", seat, " only");
}

// How many bytes of a seat's name its label (bold 13px, from x0 + 14) holds
// before SecretNote, "seat N (" and "…)" around the name: widths estimated
// generously (a character at most 0.68 em bold, 0.62 em regular).
size_t NameRoom(int seat) {
  const double note = SecretNote(seat).size() * 11 * 0.62;
  const double room = kPanelW - 14 - note - 10 - 14;
  const double chars = room / (13 * 0.68);
  const double name =
      chars - static_cast<double>(absl::StrCat("seat ", seat, " (.)").size());
  return name < 1 ? 1 : static_cast<size_t>(name);
}

// Seat `seat`'s panel, with its top-left corner at (x0, y0): its frame
// (highlighted on its turn: never once it is eliminated or the game is
// over), name, score, hand size and tokens.
std::string SeatFrame(const v1::Header& header, const v1::PssBoard& board,
                      const v1::PssDecision& decision, int seat, double x0,
                      double y0) {
  const v1::PssSeatView& view = board.seats(seat);
  const bool active = static_cast<int>(board.active_seat()) == seat &&
                      view.live() &&
                      decision.phase() != v1::PSS_PHASE_GAME_OVER;
  return absl::StrCat(
      "<g class=\"ps-seat\"><rect class=\"ps-panel", active ? " ps-active" : "",
      "\" x=\"", Px(x0 + 4), "\" y=\"", Px(y0 + 4), "\" width=\"", kPanelW - 8,
      "\" height=\"", kPanelH - 8, "\"/><text class=\"ps-h\" x=\"", Px(x0 + 14),
      "\" y=\"", Px(y0 + 24), "\">", SeatLabel(header, seat, NameRoom(seat)),
      "</text><text class=\"ps-small\" x=\"", Px(x0 + 14), "\" y=\"",
      Px(y0 + 42), "\">",
      view.live() ? absl::StrCat(view.smart_asses(), view.smart_asses() == 1
                                                         ? " smart-ass"
                                                         : " smart-asses")
                  : absl::StrCat("eliminated (", view.eliminated_order(), ")"),
      "; hand ", view.hand_size(), "/", view.hand_limit(),
      "; tokens: ", view.reset_tokens(), " reset, ", view.bypass_tokens(),
      " bypass</text></g>");
}

// The seat's hand, from its own observation: only it saw these cards.
std::string SeatHand(const v1::Observation* own, int seat, double x0,
                     double y0) {
  std::vector<v1::PssCard> hand;
  if (own != nullptr && own->has_pyramid_scheme()) {
    hand.assign(own->pyramid_scheme().hand().begin(),
                own->pyramid_scheme().hand().end());
  }
  double x = x0 + kPanelW - 14 - 24.0 * std::max<size_t>(hand.size(), 1);
  std::string out =
      absl::StrCat("<g><text class=\"ps-secret\" x=\"", Px(x0 + kPanelW - 14),
                   "\" y=\"", Px(y0 + 20), "\">", SecretNote(seat), "</text>");
  for (const v1::PssCard& card : hand) {
    absl::StrAppend(&out, Card(card, x, y0 + 26, 22, 30, "ps-hand"));
    x += 24;
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

// The seat's pyramid, drawn as the tree it is.
std::string SeatPyramid(const v1::PssSeatView& view, double x0, double y0) {
  const Layout layout = LayOut(view.pyramid());
  const double area_w = kPanelW - 28;
  const double area_h = kPanelH - 70;
  const double scale = std::min({1.0, area_w / (layout.columns * (kCardW + 4)),
                                 area_h / (layout.depths * (kCardH + 10))});
  const double w = kCardW * scale, h = kCardH * scale;
  const double step_x = (kCardW + 4) * scale, step_y = (kCardH + 10) * scale;
  const double left = x0 + 14 + (area_w - layout.columns * step_x) / 2;
  const double top = y0 + 62;
  auto cx = [&](int i) { return left + layout.column[i] * step_x + w / 2; };
  auto cy = [&](int i) { return top + layout.depth[i] * step_y; };
  std::string out = "<g>";
  std::map<uint32_t, int> index;
  for (int i = 0; i < view.pyramid_size(); ++i) {
    const v1::PssNode& node = view.pyramid(i);
    index[node.card().id()] = i;
    if (!node.has_parent()) continue;
    const auto p = index.find(node.parent());
    if (p == index.end()) continue;
    absl::StrAppend(&out, "<line class=\"ps-edge\" x1=\"", Px(cx(p->second)),
                    "\" y1=\"", Px(cy(p->second) + h), "\" x2=\"", Px(cx(i)),
                    "\" y2=\"", Px(cy(i)), "\"/>");
  }
  for (int i = 0; i < view.pyramid_size(); ++i) {
    const v1::PssNode& node = view.pyramid(i);
    std::string note = node.flipped() ? ", smart-ass side up" : "";
    if (!node.capacity_tokens().empty()) {
      absl::StrAppend(&note, ", tokens +",
                      absl::StrJoin(node.capacity_tokens(), " +"));
    }
    absl::StrAppend(&out, Card(node.card(), cx(i) - w / 2, cy(i), w, h,
                               node.flipped() ? "ps-up" : "", note));
    if (!node.capacity_tokens().empty()) {
      absl::StrAppend(&out, "<circle class=\"ps-token\" cx=\"",
                      Px(cx(i) + w / 2), "\" cy=\"", Px(cy(i)), "\" r=\"",
                      Px(6 * std::max(scale, 0.6)), "\"/>");
    }
  }
  absl::StrAppend(&out, "</g>");
  return out;
}

Picture Draw(const Moment& moment) {
  const v1::PyramidSchemeObservation& game = moment.view->pyramid_scheme();
  const v1::PssBoard& board = game.board();
  const int seats = board.seats_size();
  const int rows = (seats + 1) / 2;
  Picture picture;
  picture.width = kWidth;
  picture.height = kBandHeight + rows * kPanelH;
  picture.parts.push_back(Band(board, game.decision(), picture.height));
  CommonCards(board, picture.parts);
  picture.parts.push_back(GoalsAndSupply(board));
  for (int seat = 0; seat < seats; ++seat) {
    const v1::Observation* own = SeatView(moment, seat);
    const double x0 = (seat % 2) * kPanelW;
    const double y0 = kBandHeight + (seat / 2) * kPanelH;
    picture.parts.push_back(
        SeatFrame(*moment.header, board, game.decision(), seat, x0, y0));
    picture.parts.push_back(SeatHand(own, seat, x0, y0));
    picture.parts.push_back(SeatPyramid(board.seats(seat), x0, y0));
  }
  return picture;
}

constexpr std::string_view kCss =
    ".ps-table{fill:#f4f0f7}.ps-h{font-weight:bold}.ps-small{font-size:"
    "11px}.ps-secret{font-size:11px;fill:#7a4b00;font-style:italic}"
    ".ps-panel{fill:#fff;stroke:#cbbfd6}.ps-active{stroke:#7b3fa0;"
    "stroke-width:3}.ps-empty{fill:none;stroke:#aaa;stroke-dasharray:3"
    " 2}.ps-goal{fill:#fff;stroke:#7b3fa0}.ps-claimed{fill:#e3d3ee}"
    ".ps-panel,.ps-goal{rx:6px}.ps-mid,"
    "[class^=ps-k] text,.ps-founder text,.ps-police text{"
    "text-anchor:middle}.ps-secret{text-anchor:end}"
    "[class^=ps-k] rect,.ps-founder rect,.ps-police rect{rx:3px}"
    ".ps-edge{stroke:#999}[class^=ps-k] rect,.ps-founder rect,"
    ".ps-police rect{stroke:#444}.ps-k1 rect{fill:#6cc070}.ps-k2 rect{"
    "fill:#6f9be0}.ps-k3 rect{fill:#ef9bc4}.ps-k4 rect{fill:#f3d55b}"
    ".ps-founder rect{fill:#d4a017}.ps-police rect{fill:#223}"
    ".ps-police text{fill:#fff}.ps-up rect{stroke:#c0392b;"
    "stroke-width:3}.ps-token{fill:#7b3fa0}";

}  // namespace

namespace scheme {

constexpr GamePicture kPicture = {&Draw, kCss};

}  // namespace scheme

}  // namespace pyramid

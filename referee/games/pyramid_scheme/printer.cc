#include "referee/games/pyramid_scheme/printer.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pyramid::scheme {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Card ids of pyramid_scheme.proto.
inline constexpr uint32_t kFounderId = 64;

std::string ColourName(v1::PssColour colour) {
  switch (colour) {
    case v1::PSS_GREEN:
      return "green";
    case v1::PSS_BLUE:
      return "blue";
    case v1::PSS_PINK:
      return "pink";
    case v1::PSS_YELLOW:
      return "yellow";
    default:
      return "";
  }
}

// "green 5 #14", "Founder 12", "Police #65".
std::string CardName(const v1::PssCard& card) {
  if (card.id() == kFounderId) return "Founder 12";
  if (card.colour() == v1::PSS_NO_COLOUR) {
    return absl::StrCat("Police #", card.id());
  }
  return absl::StrCat(ColourName(card.colour()), " ", card.number(), " #",
                      card.id());
}

// A parent given only by id.
std::string ParentName(uint32_t id) {
  if (id == kFounderId) return "the Founder";
  return absl::StrCat("#", id);
}

std::string RewardName(v1::PssReward reward) {
  std::string name = v1::PssReward_Name(reward);
  return name.rfind("PSS_", 0) == 0 ? name.substr(4) : name;
}

std::string TokenName(v1::PssToken token) {
  switch (token) {
    case v1::PSS_RESET_TOKEN:
      return "reset";
    case v1::PSS_BYPASS_TOKEN:
      return "bypass";
    case v1::PSS_CAPACITY_2_TOKEN:
      return "capacity +2";
    case v1::PSS_CAPACITY_3_TOKEN:
      return "capacity +3";
    default:
      return "?";
  }
}

std::string EndReasonName(v1::PssEndReason reason) {
  switch (reason) {
    case v1::PSS_LAST_SEAT_STANDING:
      return "only one live seat remains";
    case v1::PSS_DECK_EXHAUSTED:
      return "the deck cannot be rebuilt";
    case v1::PSS_TURN_LIMIT:
      return "turn limit reached";
    default:
      return "?";
  }
}

std::string ActionText(const v1::PyramidSchemeAction& a) {
  switch (a.decision_case()) {
    case v1::PyramidSchemeAction::kTake:
      return absl::StrCat("take slot ", a.take().slot());
    case v1::PyramidSchemeAction::kPlace:
      return absl::StrCat("place #", a.place().card(), " below ",
                          ParentName(a.place().parent()));
    case v1::PyramidSchemeAction::kUseReset:
      return "use a reset token";
    case v1::PyramidSchemeAction::kArmBypass:
      return "arm a bypass";
    case v1::PyramidSchemeAction::kFlip:
      return absl::StrCat("flip #", a.flip().card());
    case v1::PyramidSchemeAction::kStopFlipping:
      return "stop flipping";
    case v1::PyramidSchemeAction::kRewardTarget:
      return absl::StrCat("reward target #", a.reward_target().card());
    case v1::PyramidSchemeAction::kDiscardHand:
      return a.discard_hand().cards().empty()
                 ? std::string("discard no card")
                 : absl::StrCat("discard #",
                                absl::StrJoin(a.discard_hand().cards(), ", #"));
    case v1::PyramidSchemeAction::kReserveGoal:
      return absl::StrCat("reserve goal ", a.reserve_goal().goal());
    case v1::PyramidSchemeAction::kPlacePolice:
      return absl::StrCat("place a Police below ",
                          ParentName(a.place_police().parent()));
    case v1::PyramidSchemeAction::kEndTurn:
      return "end the turn";
    case v1::PyramidSchemeAction::DECISION_NOT_SET:
      break;
  }
  return "?";
}

void PrintTree(const v1::PssSeatView& seat, std::ostream& out) {
  std::map<uint32_t, std::vector<int>> children;  // Parent id -> indices.
  for (int i = 1; i < seat.pyramid_size(); ++i) {
    children[seat.pyramid(i).parent()].push_back(i);
  }
  // Depth-first, children in placement order.
  std::vector<std::pair<int, int>> stack = {{0, 0}};
  while (!stack.empty()) {
    const auto [index, depth] = stack.back();
    stack.pop_back();
    const v1::PssNode& node = seat.pyramid(index);
    out << "      " << std::string(2 * depth, ' ') << CardName(node.card())
        << (node.flipped() ? "  flipped" : "  unflipped");
    if (!node.capacity_tokens().empty()) {
      out << "  tokens +" << absl::StrJoin(node.capacity_tokens(), " +")
          << " (limit " << node.limit() << ")";
    }
    out << "\n";
    const std::vector<int>& below = children[node.card().id()];
    for (auto it = below.rbegin(); it != below.rend(); ++it) {
      stack.push_back({*it, depth + 1});
    }
  }
}

std::string DisplayText(const v1::PssBoard& board) {
  std::vector<std::string> slots;
  for (const v1::PssDisplaySlot& slot : board.display()) {
    slots.push_back(slot.has_card() ? CardName(slot.card()) : "(empty)");
  }
  std::string text = absl::StrCat("display [", absl::StrJoin(slots, "] ["),
                                  "]; deck ", board.deck_size());
  if (board.has_deck_top()) {
    absl::StrAppend(&text, " (top ", CardName(board.deck_top()), ")");
  }
  absl::StrAppend(&text, "; discard ", board.discard_size());
  return text;
}

std::string GoalsText(const v1::PssBoard& board) {
  std::vector<std::string> goals;
  for (const v1::PssGoalView& goal : board.goals()) {
    std::string text = absl::StrCat(goal.goal());
    if (goal.has_claimed_by()) {
      absl::StrAppend(&text, " claimed by seat ", goal.claimed_by());
    } else if (goal.has_reserved_by()) {
      absl::StrAppend(&text, " reserved by seat ", goal.reserved_by());
    } else {
      absl::StrAppend(&text, " open");
    }
    goals.push_back(text);
  }
  return absl::StrCat("goals ", absl::StrJoin(goals, ", "));
}

void PrintBoard(const v1::PssBoard& board, std::ostream& out) {
  for (int s = 0; s < board.seats_size(); ++s) {
    const v1::PssSeatView& seat = board.seats(s);
    if (!seat.live()) {
      out << "    seat " << s << ": eliminated (#" << seat.eliminated_order()
          << ")\n";
      continue;
    }
    out << "    seat " << s << ": hand " << seat.hand_size() << "/"
        << seat.hand_limit() << ", reset tokens " << seat.reset_tokens()
        << ", bypass tokens " << seat.bypass_tokens() << ", smart-asses "
        << seat.smart_asses() << "\n";
    PrintTree(seat, out);
  }
  out << "    " << DisplayText(board) << "\n";
  out << "    " << GoalsText(board) << "\n";
}

// Cards moving: taken, dealt to the display, reshuffled, discarded,
// placed, flipped. False for another kind of event.
bool PrintCardEvent(const v1::PssEvent& e, std::ostream& out) {
  switch (e.kind_case()) {
    case v1::PssEvent::kTook:
      out << "    takes " << CardName(e.took().card()) << " from slot "
          << e.took().slot() << "\n";
      break;
    case v1::PssEvent::kSlotFilled:
      out << "    slot " << e.slot_filled().slot() << " <- "
          << CardName(e.slot_filled().card()) << "\n";
      break;
    case v1::PssEvent::kReshuffled:
      out << "    deck empty: the discard pile is shuffled into a deck of "
          << e.reshuffled().deck_size() << "\n";
      break;
    case v1::PssEvent::kDiscarded: {
      std::vector<std::string> cards;
      for (const v1::PssCard& card : e.discarded().cards()) {
        cards.push_back(CardName(card));
      }
      out << "    discards " << absl::StrJoin(cards, ", ") << "\n";
      break;
    }
    case v1::PssEvent::kPlaced:
      out << "    places " << CardName(e.placed().card()) << " below "
          << ParentName(e.placed().parent())
          << (e.placed().bypass_used() ? " (bypass spent)" : "") << "\n";
      break;
    case v1::PssEvent::kFlipped:
      out << "    flips " << CardName(e.flipped().card())
          << (e.flipped().by_reward() == v1::PSS_NO_REWARD
                  ? ""
                  : absl::StrCat(" (", RewardName(e.flipped().by_reward()),
                                 ")"))
          << "\n";
      break;
    default:
      return false;
  }
  return true;
}

// Tokens, rewards, goals, Police and eliminations. False for another kind.
bool PrintRuleEvent(const v1::PssEvent& e, std::ostream& out) {
  switch (e.kind_case()) {
    case v1::PssEvent::kTokenUsed:
      out << "    spends a " << TokenName(e.token_used().token()) << " token\n";
      break;
    case v1::PssEvent::kReward:
      out << "    reward " << RewardName(e.reward().reward()) << " of #"
          << e.reward().card() << (e.reward().lost() ? ": lost" : "") << "\n";
      break;
    case v1::PssEvent::kTokenGained:
      out << "    gains a " << TokenName(e.token_gained().token())
          << " token\n";
      break;
    case v1::PssEvent::kCapacityPlaced:
      out << "    capacity +" << e.capacity_placed().value() << " on "
          << ParentName(e.capacity_placed().card()) << "\n";
      break;
    case v1::PssEvent::kHandLimitRaised:
      out << "    hand limit now " << e.hand_limit_raised().hand_limit()
          << "\n";
      break;
    case v1::PssEvent::kGoalReserved:
      out << "    reserves goal " << e.goal_reserved().goal() << "\n";
      break;
    case v1::PssEvent::kPoliceRemoved:
      out << "    removes Police #" << e.police_removed().card() << " ("
          << e.police_removed().tokens_returned()
          << " token(s) back to the supply)\n";
      break;
    case v1::PssEvent::kGoalClaimed:
      out << "    GOAL " << e.goal_claimed().goal() << " claimed by seat "
          << e.goal_claimed().seat() << "\n";
      break;
    case v1::PssEvent::kPolicePlaced:
      out << "    POLICE: seat " << e.police_placed().seat() << " places #"
          << e.police_placed().police() << " below "
          << ParentName(e.police_placed().parent()) << " (goal "
          << e.police_placed().goal() << ")\n";
      break;
    case v1::PssEvent::kEliminated:
      out << "    seat " << e.eliminated().seat() << " is ELIMINATED ("
          << (e.eliminated().reason() == v1::PSS_NO_POLICE_PLACEMENT
                  ? "cannot place its Police"
                  : "owes an action and has none")
          << ")\n";
      break;
    default:
      return false;
  }
  return true;
}

void PrintEvent(const v1::PssEvent& e, std::ostream& out) {
  if (PrintCardEvent(e, out) || PrintRuleEvent(e, out)) return;
  switch (e.kind_case()) {
    case v1::PssEvent::kTurnStarted:
      out << "  turn " << e.turn_started().turn() << ": seat "
          << e.turn_started().seat() << "\n";
      break;
    case v1::PssEvent::kTurnEnded:
      out << "  end of turn " << e.turn_ended().turn() << " (seat "
          << e.turn_ended().seat() << "):\n";
      PrintBoard(e.turn_ended().board(), out);
      break;
    case v1::PssEvent::kGameEnded:
      out << "  GAME OVER: " << EndReasonName(e.game_ended().reason()) << "\n";
      PrintBoard(e.game_ended().board(), out);
      break;
    default:
      out << "    (unknown event)\n";
      break;
  }
}

void PrintView(const v1::Observation& view, std::ostream& out) {
  const v1::PssBoard& board = view.pyramid_scheme().board();
  out << "  " << board.seats_size() << " seats, turn limit "
      << board.max_turns() << "; seat " << board.active_seat()
      << " starts (lowest hand sum)\n";
  PrintBoard(board, out);
}

void PrintApplied(const v1::Applied& applied, std::ostream& out) {
  const v1::PyramidSchemeResult& result = applied.result().pyramid_scheme();
  for (const v1::Move& move : applied.moves()) {
    out << "  seat " << move.seat() << ": "
        << ActionText(move.action().pyramid_scheme());
    out << MoveSourceNote(move) << "\n";
  }
  for (const v1::PssEvent& event : result.events()) {
    PrintEvent(event, out);
  }
}

}  // namespace

constexpr GamePrinter kPrinter = {&PrintView, &PrintApplied};

}  // namespace pyramid::scheme

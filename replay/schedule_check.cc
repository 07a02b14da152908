#include "replay/schedule_check.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "referee/cli/text_proto.h"
#include "referee/games/printable_text.h"
#include "replay/results_check.h"
#include "replay/tournament_check.h"
#include "replay/tournament_dir.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/standings.h"

namespace pyramid {

namespace fs = std::filesystem;
namespace v1 = ::pyramid::referee::v1;

namespace {

// The tournament's settings that make its schedule, for a message:
// "GAUNTLET, 4 bots, 3 seats, 2 rounds, seed 0".
std::string ScheduleSettings(const v1::Tournament& t) {
  return absl::StrCat(v1::TournamentFormat_Name(t.format()).empty()
                          ? absl::StrCat("format ", t.format())
                          : v1::TournamentFormat_Name(t.format()),
                      ", ", t.bots_size(), " bot",
                      t.bots_size() == 1 ? "" : "s", ", ", t.seats(), " seat",
                      t.seats() == 1 ? "" : "s", ", ", t.rounds(), " round",
                      t.rounds() == 1 ? "" : "s", ", seed ", t.seed());
}

// The number of matches MakeSchedule lists for a round robin or gauntlet
// of `num_bots` bots at `seats` seats for `rounds` rounds (its own count,
// made before it lists any), so that a tournament.txt of more matches
// than schedule.json is told without listing them; nullopt when
// MakeSchedule refuses them (too few bots or seats, no round, more than
// kMaxScheduledMatches matches), which it does before listing any.
std::optional<uint64_t> FixedScheduleSize(v1::TournamentFormat format,
                                          int num_bots, int seats,
                                          uint32_t rounds) {
  if (seats < 2 || num_bots < seats || rounds < 1) return std::nullopt;
  const int free_bots = format == v1::GAUNTLET ? num_bots - 1 : num_bots;
  const int free_seats = format == v1::GAUNTLET ? seats - 1 : seats;
  uint64_t count = 1;
  for (int k = 1; k <= free_seats && count <= kMaxScheduledMatches; ++k) {
    count = count * static_cast<uint64_t>(free_bots - free_seats + k) / k;
  }
  if (count > kMaxScheduledMatches) return std::nullopt;
  count *= static_cast<uint64_t>(seats);
  if (count > kMaxScheduledMatches || count * rounds > kMaxScheduledMatches) {
    return std::nullopt;
  }
  return count * rounds;
}

// "" when schedule.json's entry `i` is the match `made` (index, label
// NAME/RUN_ID/INDEX and seats by bot name, as the runner writes it; the
// skipped flag aside), else how it differs.
std::string EntryDifference(const v1::TournamentSchedule& schedule, int i,
                            const ScheduledMatch& made,
                            const std::vector<std::string>& names) {
  const v1::ScheduleEntry& entry = schedule.matches(i);
  if (entry.index() != made.index) {
    return absl::StrCat("schedule.json's entry ", i, " is numbered ",
                        entry.index(), ", tournament.txt's ", made.index);
  }
  const std::string label =
      TournamentLabel(schedule.name(), schedule.run_id(), made.index);
  if (entry.label() != label) {
    return absl::StrCat("match ", made.index, " is labelled ",
                        QuotedText(entry.label()), ", not ", QuotedText(label));
  }
  std::vector<std::string> seats;
  for (int bot : made.bots) seats.push_back(names[bot]);
  if (!std::equal(entry.seats().begin(), entry.seats().end(), seats.begin(),
                  seats.end())) {
    return absl::StrCat("match ", made.index, " seats ", QuotedSeatList(seats),
                        " in tournament.txt's schedule, ",
                        QuotedSeatList(entry.seats()), " in schedule.json");
  }
  return "";
}

// The most bots of a Swiss tournament whose first round is paired here by
// PairSwissRound (its cost grows as the cube of the bots); with more, by
// what it gives with no results: ranked by index, nobody has met, each bot
// from the top takes the next, the last the bye when the count is odd.
constexpr int kMaxPairedBots = 512;

// Why `t` (Swiss) cannot have made a schedule.json of `listed` matches,
// before any of them is read: two seats a match, at most
// SwissScheduleSize's matches for t's bots and rounds, and whole rounds
// of bots / 2 pairs (2 matches each) and at least one. "" when it can.
std::string SwissShapeDifference(const v1::Tournament& t, uint64_t listed) {
  if (t.seats() != 2) {
    return absl::StrCat("Swiss pairs two seats per match; tournament.txt has ",
                        t.seats(), " seats");
  }
  const int n = t.bots_size();
  absl::StatusOr<uint32_t> most = SwissScheduleSize(n, t.rounds());
  if (!most.ok()) return std::string(most.status().message());
  const uint64_t per_round = static_cast<uint64_t>(n / 2 * 2);
  if (listed > *most) {
    return absl::StrCat("tournament.txt's ", t.rounds(), " round",
                        t.rounds() == 1 ? "" : "s", " play at most ", *most,
                        " matches, schedule.json lists ", listed);
  }
  if (listed % per_round != 0 || listed == 0) {
    return absl::StrCat("schedule.json lists ", listed,
                        " matches, not whole rounds of ", per_round, " (", n,
                        " bots)");
  }
  return "";
}

// The matches of the first Swiss round of `n` bots, numbered from 0, as
// the runner pairs it before any result: PairSwissRound's with no
// results up to kMaxPairedBots bots; with more, what that gives (ranked
// by index, nobody has met: each bot from the top takes the next, the
// last the bye when `n` is odd), without its cost.
std::vector<ScheduledMatch> SwissFirstRound(int n) {
  if (n <= kMaxPairedBots) {
    return SwissRoundMatches(
        PairSwissRound(std::vector<double>(n, 0),
                       std::vector<std::vector<int>>(n, std::vector<int>(n, 0)),
                       std::vector<bool>(n, false)),
        0);
  }
  SwissRound round;
  for (int bot = 0; bot + 1 < n; bot += 2)
    round.pairs.emplace_back(bot, bot + 1);
  return SwissRoundMatches(round, 0);
}

// The first entry of `schedule` (whole Swiss rounds, SwissShapeDifference)
// that is not SwissFirstRound's match of that index for `names` (the bots
// of tournament.txt in order; EntryDifference), said as the first round's;
// "" when there is none.
std::string SwissFirstRoundDifference(const v1::TournamentSchedule& schedule,
                                      const std::vector<std::string>& names) {
  for (const ScheduledMatch& made :
       SwissFirstRound(static_cast<int>(names.size()))) {
    if (std::string differs = EntryDifference(
            schedule, static_cast<int>(made.index), made, names);
        !differs.empty()) {
      return absl::StrCat(differs,
                          " (the first round, paired before any "
                          "result)");
    }
  }
  return "";
}

// Why Swiss round `round` (1 on), `schedule`'s `per_round` entries from
// `first_index` (which it holds), is not a round of pairs: entries
// numbered as their places, each two in a row one pair of two seats in
// both seat orders, every seat a bot of `bot_of` (tournament.txt's, by
// name, to its index), no bot in two pairs. "" when it is, with
// `playing` (one flag a bot, all false on entry) set for each bot seated.
std::string SwissRoundShapeDifference(const v1::TournamentSchedule& schedule,
                                      const std::map<std::string, int>& bot_of,
                                      uint64_t first_index, uint64_t per_round,
                                      uint64_t round,
                                      std::vector<bool>& playing) {
  for (uint64_t i = first_index; i < first_index + per_round; i += 2) {
    const v1::ScheduleEntry& a = schedule.matches(static_cast<int>(i));
    const v1::ScheduleEntry& b = schedule.matches(static_cast<int>(i + 1));
    const std::string match = absl::StrCat("match ", a.index());
    if (a.index() != i || b.index() != i + 1) {
      return absl::StrCat("schedule.json's entry ", a.index() != i ? i : i + 1,
                          " is numbered ",
                          a.index() != i ? a.index() : b.index());
    }
    if (a.seats_size() != 2 || b.seats_size() != 2 ||
        a.seats(0) != b.seats(1) || a.seats(1) != b.seats(0)) {
      return absl::StrCat(match, " (", QuotedSeatList(a.seats()),
                          ") and match ", b.index(), " (",
                          QuotedSeatList(b.seats()),
                          ") are not one Swiss pair in both seat orders");
    }
    for (const std::string& seat : a.seats()) {
      const auto bot = bot_of.find(seat);
      if (bot == bot_of.end()) {
        return absl::StrCat(match, " seats ", QuotedText(seat),
                            ", no bot of tournament.txt");
      }
      if (playing[bot->second]) {
        return absl::StrCat(match, " seats ", QuotedText(seat),
                            ", who plays another pair of round ", round);
      }
      playing[bot->second] = true;
    }
  }
  return "";
}

// What the Swiss rounds checked so far add up to, by bot index, as the
// runner pairs the next round from them (Runner::SwissMatches): each
// counted log's outcome worth PairwisePoints to each seat and each bye 2
// points, the games between each two bots, and the byes had.
struct SwissTally {
  std::vector<double> points;
  std::vector<std::vector<int>> games;  // Empty unless `recompute`.
  std::vector<bool> had_bye;
  int byes = 0;  // How many bots have had a bye.
  // Whether the next round is still recomputed (SwissPairingDifference):
  // false with more than kMaxPairedBots bots, after a match with no
  // counted log, and after a round said in a note.
  bool recompute = false;
};

// The tally of `n` bots before the first round.
SwissTally EmptySwissTally(int n) {
  SwissTally tally;
  tally.points.assign(n, 0);
  tally.had_bye.assign(n, false);
  tally.recompute = n <= kMaxPairedBots;
  if (tally.recompute) tally.games.assign(n, std::vector<int>(n, 0));
  return tally;
}

// With `tally.recompute`, the first entry of Swiss round `round` (2 on;
// `schedule`'s entries from `first_index`, of the right shape) that is
// not PairSwissRound's pairing of `tally` (EntryDifference, `names` the
// bots of tournament.txt): "" when there is none. When some match before
// the round has a sealed log in superseded/ (`replayed`, by index: played
// again on a resume, and the runner may have paired the round from the
// earlier result), the difference is said in `notes` instead, "" is
// returned and `tally.recompute` is cleared: later rounds are the host's
// word too. Without `tally.recompute`, "".
std::string SwissPairingDifference(const v1::TournamentSchedule& schedule,
                                   const std::vector<std::string>& names,
                                   const std::set<uint32_t>& replayed,
                                   uint64_t first_index, uint64_t round,
                                   SwissTally& tally,
                                   std::vector<std::string>& notes) {
  if (!tally.recompute) return "";
  const SwissRound pairing =
      PairSwissRound(tally.points, tally.games, tally.had_bye);
  for (const ScheduledMatch& made :
       SwissRoundMatches(pairing, static_cast<uint32_t>(first_index))) {
    std::string differs =
        EntryDifference(schedule, static_cast<int>(made.index), made, names);
    if (differs.empty()) continue;
    const std::string what = absl::StrCat(
        differs, " (round ", round,
        ", which the runner pairs from the counted results of the ",
        round == 2 ? "round" : "rounds", " before it)");
    const auto earlier = replayed.begin();
    if (earlier == replayed.end() || *earlier >= first_index) return what;
    notes.push_back(absl::StrCat(
        "schedule.json's round ", round,
        " is not the pairing of the counted results of the rounds "
        "before it: ",
        what, "; superseded/ holds a sealed log of match ", *earlier,
        ", played again on a resume, and the runner may have paired "
        "the round from the earlier result: the host's word; rounds ",
        round, " on are not recomputed"));
    tally.recompute = false;
    return "";
  }
  return "";
}

// With `tally.recompute`, adds to `tally` the games and points of the
// `per_round` matches of `schedule` from `first_index` (a round of the
// right shape, its seats bots of `bot_of`), each by its counted log
// (`counted`, by match index). A match without one clears
// `tally.recompute` (the missing log is a problem of its own), and the
// rest of the round is not added.
void TallySwissGames(const v1::TournamentSchedule& schedule,
                     const std::map<std::string, int>& bot_of,
                     const std::map<uint32_t, CountedMatch>& counted,
                     uint64_t first_index, uint64_t per_round,
                     SwissTally& tally) {
  for (uint64_t i = first_index; tally.recompute && i < first_index + per_round;
       ++i) {
    const v1::ScheduleEntry& entry = schedule.matches(static_cast<int>(i));
    const auto match = counted.find(static_cast<uint32_t>(i));
    if (match == counted.end()) {
      tally.recompute = false;  // Its match is missing: said as a problem.
      return;
    }
    const int a = bot_of.at(entry.seats(0));
    const int b = bot_of.at(entry.seats(1));
    ++tally.games[a][b];
    ++tally.games[b][a];
    tally.points[a] += PairwisePoints(match->second.outcome, 0);
    tally.points[b] += PairwisePoints(match->second.outcome, 1);
  }
}

// With an odd count of bots, why Swiss round `round`'s bye (the first bot
// not in `playing`; `names` the bots) is wrong: a bot's second bye before
// every bot has had one. "" when it is not, with the bye added to `tally`
// (had, and worth 2 points: the two games the bot would have played).
// With an even count, "" and `tally` unchanged.
std::string SwissByeDifference(const std::vector<bool>& playing,
                               const std::vector<std::string>& names,
                               uint64_t round, SwissTally& tally) {
  const int n = static_cast<int>(names.size());
  if (n % 2 == 0) return "";
  const int bye = static_cast<int>(
      std::find(playing.begin(), playing.end(), false) - playing.begin());
  if (tally.had_bye[bye] && tally.byes < n) {
    return absl::StrCat("round ", round, " gives ", QuotedText(names[bye]),
                        " a second bye before every bot has had one");
  }
  if (!tally.had_bye[bye]) ++tally.byes;
  tally.had_bye[bye] = true;
  tally.points[bye] += 2;
  return "";
}

// The first difference between a Swiss `schedule` and what `t` (Swiss)
// and the counted logs (`counted`, by match index) decide of it: whole
// rounds of bots / 2 pairs, each pair playing both seat orders in turn, no
// more rounds than t's (SwissShapeDifference), every seat a bot of t's, no
// bot twice in a round (SwissRoundShapeDifference) and, with an odd count,
// no second bye before every bot has had one (SwissByeDifference); the
// first round exactly PairSwissRound's with no results
// (SwissFirstRoundDifference), and each later one PairSwissRound's from the
// rounds before it as the runner pairs it (Runner::SwissMatches;
// SwissPairingDifference from a SwissTally): every match of those rounds a
// game between its two bots, each counted log's outcome worth
// PairwisePoints to each seat, each bye 2 points and a bye had. "" when
// there is none. A later round is recomputed only while every match before
// it has a counted log (a missing one is a problem of its own) and with at
// most kMaxPairedBots bots. The runner paired a round from the results it
// had then, which a resume may since have played again, the earlier log
// set aside in superseded/ (`replayed`: the indexes of the matches of such
// sealed logs): a round that differs after such a match is said in
// `notes`, not returned, and the rounds after it are not recomputed.
std::string SwissDifference(const v1::Tournament& t,
                            const v1::TournamentSchedule& schedule,
                            const std::vector<std::string>& names,
                            const std::map<uint32_t, CountedMatch>& counted,
                            const std::set<uint32_t>& replayed,
                            std::vector<std::string>& notes) {
  const uint64_t listed = schedule.matches_size();
  if (std::string differs = SwissShapeDifference(t, listed); !differs.empty()) {
    return differs;
  }
  if (std::string differs = SwissFirstRoundDifference(schedule, names);
      !differs.empty()) {
    return differs;
  }
  const int n = t.bots_size();
  const uint64_t per_round = static_cast<uint64_t>(n / 2 * 2);
  std::map<std::string, int> bot_of;
  for (int i = 0; i < n; ++i) bot_of.emplace(names[i], i);
  SwissTally tally = EmptySwissTally(n);
  for (uint64_t first_index = 0; first_index < listed;
       first_index += per_round) {
    const uint64_t round = first_index / per_round + 1;
    std::vector<bool> playing(n, false);
    std::string differs = SwissRoundShapeDifference(
        schedule, bot_of, first_index, per_round, round, playing);
    if (differs.empty() && round > 1) {
      differs = SwissPairingDifference(schedule, names, replayed, first_index,
                                       round, tally, notes);
    }
    if (!differs.empty()) return differs;
    TallySwissGames(schedule, bot_of, counted, first_index, per_round, tally);
    differs = SwissByeDifference(playing, names, round, tally);
    if (!differs.empty()) return differs;
  }
  return "";
}

}  // namespace

absl::StatusOr<v1::Tournament> TournamentFileOf(
    const fs::path& root, const v1::TournamentSchedule& schedule,
    absl::string_view what) {
  const fs::path path = root / "tournament.txt";
  if (!IsThere(path)) {
    return absl::NotFoundError("the directory holds no tournament.txt");
  }
  absl::StatusOr<std::string> text = ReadSmallEntry(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tournament.txt, ", what,
                     ", cannot be read: ", text.status().message()));
  }
  v1::Tournament tournament;
  if (absl::Status s = ParseTextProto(*text, tournament); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tournament.txt, ", what,
                     ", is not a Tournament in text format: ", s.message()));
  }
  // An empty name is the default's (Tournament.name), as the runner reads it.
  if (tournament.name().empty()) tournament.set_name("tournament");
  if (tournament.name() != schedule.name() ||
      tournament.game().game() != schedule.game()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tournament.txt is another tournament's (\"", tournament.name(),
        "\" of ", tournament.game().game(), ", the schedule's \"",
        schedule.name(), "\" of ", schedule.game(), ")"));
  }
  return tournament;
}

std::string WhyNotItsSchedule(const v1::Tournament& t,
                              const v1::TournamentSchedule& schedule,
                              const std::map<uint32_t, CountedMatch>& counted,
                              const std::set<uint32_t>& replayed,
                              std::vector<std::string>& notes) {
  const std::string prefix =
      absl::StrCat("tournament.txt (", ScheduleSettings(t),
                   ") is not the tournament that made schedule.json: ");
  std::vector<std::string> names;
  for (const v1::TournamentBot& bot : t.bots()) names.push_back(bot.name());
  const bool round_robin = t.format() == v1::ROUND_ROBIN ||
                           t.format() == v1::TOURNAMENT_FORMAT_UNSPECIFIED;
  if (t.has_sprt() && (!round_robin || t.bots_size() != 2 || t.seats() != 2)) {
    return absl::StrCat(prefix,
                        "it has an SPRT, which the runner takes only with 2 "
                        "bots, 2 seats and the round-robin format");
  }
  if (t.format() == v1::SWISS) {
    const std::string differs =
        SwissDifference(t, schedule, names, counted, replayed, notes);
    return differs.empty() ? "" : absl::StrCat(prefix, differs);
  }
  if (!round_robin && t.format() != v1::GAUNTLET) {
    return absl::StrCat(prefix, "its format is none the runner plays");
  }
  // The logs pin a match's seats (schedule.json's entries are checked
  // against them): a tournament.txt of other seats did not make the
  // schedule, and is not scheduled again, whose matches times seats bot
  // indexes could otherwise take any memory (30,000 bots at 30,000 seats).
  // With the seats pinned and the count schedule.json's, what MakeSchedule
  // lists is no larger than schedule.json's own values.
  const uint32_t scheduled_seats =
      schedule.matches().empty() ? 0 : schedule.matches(0).seats_size();
  if (t.seats() != scheduled_seats) {
    return absl::StrCat(prefix, "it seats ", t.seats(),
                        " bots a match, schedule.json's match 0 ",
                        scheduled_seats);
  }
  const int seats = static_cast<int>(
      std::min<uint32_t>(t.seats(), std::numeric_limits<int>::max()));
  const std::optional<uint64_t> size =
      FixedScheduleSize(t.format(), t.bots_size(), seats, t.rounds());
  if (size.has_value() &&
      *size != static_cast<uint64_t>(schedule.matches_size())) {
    return absl::StrCat(prefix, "it schedules ", *size,
                        " matches, schedule.json lists ",
                        schedule.matches_size());
  }
  // Refused before any match is listed, or as many as schedule.json's.
  absl::StatusOr<std::vector<ScheduledMatch>> made =
      MakeSchedule(t.format(), t.bots_size(), seats, t.rounds(), t.seed());
  if (!made.ok()) return absl::StrCat(prefix, made.status().message());
  for (const ScheduledMatch& match : *made) {
    if (std::string differs = EntryDifference(
            schedule, static_cast<int>(match.index), match, names);
        !differs.empty()) {
      return absl::StrCat(prefix, differs);
    }
  }
  return "";
}

}  // namespace pyramid

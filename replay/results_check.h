// `replay verify-tournament DIR`'s check of DIR/results.json (a
// TournamentResults, docs/tournament.md) against what the directory's
// verified logs say: the results of the matches, the counts, the standings
// and the ratings, recomputed with the runner's own code
// (tools/tournament/standings.h, ratings.h, sprt.h), so that a host who
// swaps two standings or changes a match's outcome in results.json is
// caught. Pure: no I/O; the caller reads and parses the files.
#ifndef PYRAMID_REPLAY_RESULTS_CHECK_H_
#define PYRAMID_REPLAY_RESULTS_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/tournament.pb.h"
#include "replay/verifier.h"

namespace pyramid {

// What the verified log of a scheduled match says of it: a log that
// counts (genuine under the referee's key, sealed, included in the
// checkpoint, of the schedule's label and seats, the match's only one).
struct CountedMatch {
  std::string match_id;          // Hex (ToHex), as results.json has it.
  referee::v1::Outcome outcome;  // The verdict's.
  std::string log_file;          // Relative to DIR: "logs/NAME.pyrlog".
  uint64_t moves = 0;            // The verdict's.
};

// The CountedMatch of a genuine log's `verdict`, found at `log_file`
// (relative to DIR).
CountedMatch CountedMatchOf(const Verdict& verdict, std::string log_file);

// Doubles recomputed here may differ from the runner's in the last bits
// (another compiler, another order of bots): points and mean ranks agree
// within kRelativeTolerance of the larger magnitude (or of 1, if larger);
// ratings, their bounds, the SPRT's log-likelihood ratio and its Elo
// values within kRatingTolerance (Elo; the fit stops at steps of 1e-10).
// Infinite values must be equal.
inline constexpr double kRelativeTolerance = 1e-9;
inline constexpr double kRatingTolerance = 1e-6;

// results.json is the host's, hostile input: what CheckResults does with it
// is bounded whatever its sizes.
// - At most kMaxProblems problems are listed; past them one last line
//   says how many more there are.
inline constexpr size_t kMaxProblems = 1000;
// - Ratings are fitted for the bots that play counted matches only (the
//   fit takes 24 n^2 bytes and time cubic in n: about 4 s for 1,024 bots
//   in a release build, eight times that for 2,048), and only when there
//   are at most kMaxRatedBots of them; above, the ratings are not checked
//   (one problem says so), the rest is.
inline constexpr size_t kMaxRatedBots = 1024;
// - A host's text (a bot's name, a match id, a verdict) is quoted with at
//   most kMaxQuotedBytes of it (QuotedHostText), a list of seats with at
//   most kMaxListedSeats of them (QuotedSeatList).
inline constexpr size_t kMaxQuotedBytes = 200;
inline constexpr int kMaxListedSeats = 16;

// QuotedText (referee/games/printable_text.h) of `text`, cut after
// kMaxQuotedBytes bytes (back to a character's start, when it is valid
// UTF-8) and then followed by "...(N bytes)", N its whole length; whole
// when no longer.
std::string QuotedHostText(std::string_view text);

// The seats as a list: "b3", "b1", "b2" (each QuotedHostText); past
// kMaxListedSeats seats, ", ... (N seats)".
std::string QuotedSeatList(
    const google::protobuf::RepeatedPtrField<std::string>& seats);
std::string QuotedSeatList(const std::vector<std::string>& seats);

// The problems, one line each, where `results` (DIR/results.json) says
// otherwise than `schedule` (DIR/schedule.json) and `counted` (each counted
// log by its match's schedule index); empty when it agrees. Each line
// starts "results.json: " and names the match index or the bot (its text
// escaped and cut, QuotedHostText) and both values; at most kMaxProblems
// lines, then "results.json: and N more problems (...)" (or, with
// `unlisted`, N in *unlisted). `tournament` is
// DIR/tournament.txt when the caller has it and it is the schedule's tournament
// (name and game), else null.
//
// Checked:
// - name and game id are the schedule's; with `tournament`, the format is
//   its (the format orders the standings).
// - there are no more results than the schedule has matches (else that is
//   the one problem with them, and they are not checked one by one);
//   every result's index is scheduled, not marked skipped, listed once,
//   in increasing order; its seats are the schedule's. A result of a match
//   with a counted log is "genuine" with the log's match id, outcome
//   (protobuf equality), moves and file name; a result of a match without
//   one is not "genuine" (the runner's verdict on a log that did not
//   verify or a match not played). Every counted match has a result.
// - scheduled is the schedule's number of matches; verified the number of
//   counted matches; skipped the number the schedule marks skipped.
// - standings: recomputed by ComputeStandings (StandingsOrderOf the format)
//   and ApplyRatings from the counted matches, with the schedule's seats,
//   as the runner does, and compared place by place: bot, matches, points,
//   firsts, forfeits, mean_rank, rating, rating_low, rating_high; and
//   rating_model. The bots are `tournament`'s; without it, those of the
//   schedule and then those results.json lists (a bot without a match has
//   a standing of zeros; a host can add or leave out such a bot unseen).
//   More standings than bots is one problem (the first ones are compared).
//   Only the bots that play counted matches are rated (ApplyRatings on
//   them alone gives them the ratings it gives them among all the bots,
//   bit for bit: FitBradleyTerry rates bots without games apart); every
//   other bot's rating is 0 with bounds -infinity and +infinity, as the
//   runner gives a bot without games. Above kMaxRatedBots such bots, one
//   problem "ratings not checked" and no rating is compared.
// - with `tournament` and its SPRT: results.json has one, whose counts,
//   bounds, log-likelihood ratio and Elo interval are EvaluateSprt's on
//   the counted matches (bot 0 the tournament's first). The decision
//   cannot be recomputed (the runner takes it when the ratio first reaches
//   a bound, in the order results came in, which no log records): it must
//   be "H0", "H1" or "inconclusive"; "H1" only if some order of the
//   counted results could have brought the ratio to the upper bound: the
//   highest ratio over their sub-counts (SprtReachableRatios, sprt.h: the
//   ratio rises with wins and falls with losses) at or above it, within
//   kRatingTolerance; "H0" likewise only if the lowest reaches the lower
//   bound (necessary conditions, not sufficient: an order that gets there
//   could pass the other bound first); "inconclusive" not when a match was
//   skipped or when the final ratio is at a bound. With `tournament` and
//   no SPRT, results.json must have none.
// Not checked: restarts (not in the logs); the SPRT without `tournament`;
// referee_public_key, clocks, forfeit_policy, checkpoint,
// transparency_verdict and transparency_problems (the caller has the
// key and the checkpoint to compare); the verdict text of a result that
// is not genuine. The runner's verdict "genuine, but not the match the
// runner asked for" on a log that counts here is a problem.
//
// With `unlisted`, the problems past the first kMaxProblems are counted in
// *unlisted (0 when there are none) instead of in a last line, for a
// caller that counts the problems it lists.
std::vector<std::string> CheckResults(
    const referee::v1::TournamentResults& results,
    const referee::v1::TournamentSchedule& schedule,
    const std::map<uint32_t, CountedMatch>& counted,
    const referee::v1::Tournament* tournament = nullptr,
    uint64_t* unlisted = nullptr);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_RESULTS_CHECK_H_

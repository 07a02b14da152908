// The bounds the tournament runner holds a running referee's match to,
// pure functions of what the match was created with (its clocks, its game
// and options, its number of seats): the most moves the game's rules allow
// it, the most events one Watch stream of it carries, and the longest a
// referee playing it may go without an event. RefereeLink::AwaitEnd ends
// the wait for a match whose referee goes beyond them (referee_link.h).
#ifndef PYRAMID_TOOLS_TOURNAMENT_REMOTE_MATCH_BOUNDS_H_
#define PYRAMID_TOOLS_TOURNAMENT_REMOTE_MATCH_BOUNDS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

// The most moves (decisions asked after the seed decision, and moves the
// referee applies without asking) a match of `game` (its id and options)
// for `seats` seats can make under its rules: the game's own bound
// (GameDescription::max_moves, referee/games/description.h, which says
// why each holds) under `game`'s options resolved with their defaults.
// nullopt for a game the runner does not know or that states no bound,
// options the referee would refuse, or `seats` outside the game's range
// (the referee plays no such match). Decision ids count from the seed's 0
// without gaps, and every asked decision is a move, so no decision of
// such a match is numbered beyond it.
std::optional<uint64_t> MaxMoves(const referee::v1::GameConfig& game,
                                 int seats);

// The most events one Watch stream of a match of `moves` moves for
// `seats` seats carries from a referee that plays it: its match and
// snapshot; per decision (the seed's and `moves` more at most) its
// opening, a commit and a fault per seat, and the move's delta; the
// outcome; and as many snapshots again at most, since a snapshot sent to
// a watcher that fell behind replaces at least one of those (and the
// faults and the end it replaced follow it). A stream that restarts
// (a re-watch after an outage or the referee's restart) begins anew
// from a snapshot of the match as it is: each stream is counted alone.
// Saturates at the largest uint64_t.
uint64_t MaxWatchEvents(uint64_t moves, int seats);

// The longest a referee playing a match under `clocks` may go without a
// Watch event while decision `decision` (the latest it said opened) is
// open: the commit timeout (CommitTimeout), the most a seat's time bank
// can hold by then (BankAt), and the reveal timeout, plus `margin` for the
// referee's own delays. A referee's restart breaks the stream, and the
// decision it reopens has its whole deadline again (docs/durability.md),
// so the limit counts from the last event of the stream watched. Infinite
// when the commit or the reveal timeout is 0 (no deadline: a seat may
// take as long as it likes). RefereeLink::AwaitEnd passes the decision
// the referee said only up to the game's bound (MaxMoves), since the
// referee could claim any number once to be given a limit of ages.
absl::Duration SilenceLimit(const referee::v1::ClockSettings& clocks,
                            uint64_t decision, absl::Duration margin);

// The commit phase's timeout under `clocks`: the seed decision's when it is
// longer.
absl::Duration CommitTimeout(const referee::v1::ClockSettings& clocks);

// The most a seat's time bank can hold at decision `decision`: its start
// and an increment per decision before it (and one more, to be safe).
// Duration arithmetic saturates: a decision number without end gives a
// limit of ages, never a wrapped short one.
absl::Duration BankAt(const referee::v1::ClockSettings& clocks,
                      uint64_t decision);

// "a match of GAME for N seats under its rules and the options asked",
// for the messages of a stream beyond the game's bounds.
std::string MatchOf(const referee::v1::GameConfig& game, int seats);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_REMOTE_MATCH_BOUNDS_H_

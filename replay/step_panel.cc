#include "replay/step_panel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/games/picture.h"
#include "referee/games/printable_text.h"
#include "replay/game_printers.h"
#include "replay/time_span.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The commit timeout of decision `id`: the seed decision's own when the
// match sets one (docs/protocol.md, "Deadlines").
uint32_t CommitTimeoutMs(const v1::ClockSettings& clocks, uint64_t id) {
  if (id == 0 && clocks.seed_timeout_ms() != 0) return clocks.seed_timeout_ms();
  return clocks.commit_timeout_ms();
}

// `a - b`, or the int64 nearest to it: the log's times are any int64 the
// referee wrote (the verifier does not judge them), so a difference of two
// may not fit in one.
int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t difference;
  if (!__builtin_sub_overflow(a, b, &difference)) return difference;
  return b < 0 ? std::numeric_limits<int64_t>::max()
               : std::numeric_limits<int64_t>::min();
}

// Milliseconds after `from`, as "+N ms" ("at an impossible time" when they
// do not fit in an int64).
std::string After(int64_t at, int64_t from) {
  int64_t ms;
  if (__builtin_sub_overflow(at, from, &ms)) return "at an impossible time";
  return absl::StrCat("+", ms, " ms");
}

const char* FaultText(v1::FaultReason reason) {
  switch (reason) {
    case v1::FAULT_COMMIT_TIMEOUT:
      return "no commit in time";
    case v1::FAULT_REVEAL_TIMEOUT:
      return "no reveal in time";
    case v1::FAULT_REVEAL_MISMATCH:
      // The referee's own detail of it (referee/core/decision.cc), which
      // the panel then does not repeat.
      return "the reveal does not match the commitment";
    case v1::FAULT_ILLEGAL_ACTION:
      return "illegal action";
    default:
      return "fault";
  }
}

const char* SourceText(v1::MoveSource source) {
  switch (source) {
    case v1::MOVE_REVEALED:
      return "its revealed action";
    case v1::MOVE_DEFAULT:
      return "the default action (after its fault)";
    case v1::MOVE_AUTOMATIC:
      return "automatic: its only legal action";
    default:
      return "?";
  }
}

std::string Title(const MatchStep& step, size_t number, size_t count) {
  std::string what;
  switch (step.kind) {
    case MatchStep::Kind::kStart:
      what = "the start, after the seed decision";
      break;
    case MatchStep::Kind::kMove:
      what =
          step.decision.opened
              ? absl::StrCat("decision ", step.decision.decision.decision_id())
              : absl::StrCat("automatic move (no seat was asked)");
      break;
    case MatchStep::Kind::kForfeit:
      what = absl::StrCat("decision ", step.decision.decision.decision_id(),
                          " ended the match by forfeit");
      break;
  }
  return absl::StrCat("<h3>Step ", number, " of ", count - 1, ": ", what,
                      " <small>(record ", step.record, ")</small></h3>");
}

// One row per asked seat: commit, reveal, clock, fault, move.
std::string SeatTable(const v1::Header& header, const MatchStep& step,
                      const std::vector<int64_t>& banks) {
  const DecisionRecords& d = step.decision;
  const int64_t opened = d.decision.opened_unix_ms();
  const v1::ClockSettings& clocks = header.clocks();
  std::string out =
      "<table class=\"dec\"><tr><th>Seat</th><th>Commit</th><th>Reveal</th>"
      "<th>Clock</th><th>Fault</th><th>Move applied</th></tr>";
  for (int i = 0; i < d.decision.seats_size(); ++i) {
    const uint32_t seat = d.decision.seats(i);
    std::string commit = "-", reveal = "-", fault, move = "-";
    for (const v1::Commit& c : d.commits) {
      if (c.seat() != seat) continue;
      commit = absl::StrCat(After(c.received_unix_ms(), opened),
                            c.signature().empty() ? "" : " (signed)");
    }
    for (const v1::Reveal& r : d.reveals) {
      if (r.seat() == seat) reveal = After(r.received_unix_ms(), opened);
    }
    for (const v1::Fault& f : d.faults) {
      if (f.seat() != seat) continue;
      absl::StrAppend(
          &fault, fault.empty() ? "" : "; ", FaultText(f.reason()), " &rarr; ",
          f.consequence() == v1::FAULT_FORFEIT ? "<b>forfeit</b>"
                                               : "default action",
          // The referee's detail, unless it only repeats the reason.
          f.detail().empty() || f.detail() == FaultText(f.reason())
              ? ""
              : absl::StrCat(" (", SvgText(PrintableText(f.detail())), ")"));
    }
    for (const v1::Move& m : step.applied.moves()) {
      if (m.seat() == seat) move = SourceText(m.source());
    }
    const uint32_t commit_timeout =
        CommitTimeoutMs(clocks, d.decision.decision_id());
    std::string clock = commit_timeout == 0
                            ? "no deadline"
                            : absl::StrCat(commit_timeout, " ms to commit");
    if (clocks.reveal_timeout_ms() != 0) {
      absl::StrAppend(&clock, ", ", clocks.reveal_timeout_ms(),
                      " ms to reveal");
    }
    if (clocks.time_bank_ms() != 0 && i < static_cast<int>(banks.size())) {
      absl::StrAppend(&clock, "; bank ", banks[i], " ms after");
    }
    absl::StrAppend(&out, "<tr><td>", SeatLabel(header, seat), "</td><td>",
                    commit, "</td><td>", reveal, "</td><td>", clock, "</td><td",
                    fault.empty() ? "" : " class=\"bad\"", ">", fault,
                    "</td><td>", move, "</td></tr>");
  }
  absl::StrAppend(&out, "</table>");
  return out;
}

// Who could see what at this moment, beyond the page's legend: the choices
// of a simultaneous decision were hidden from the other seats until the
// reveals.
std::string Visibility(const MatchStep& step) {
  if (step.decision.opened && step.decision.decision.simultaneous() &&
      step.decision.decision.seats_size() > 1) {
    return "<p class=\"seen\">Asked at once: no seat saw another's choice "
           "before the reveals.</p>";
  }
  return "";
}

}  // namespace

TimeBanks::TimeBanks(const v1::Header& header)
    : clocks_(header.clocks()),
      banks_(header.seats_size(), header.clocks().time_bank_ms()) {}

std::vector<int64_t> TimeBanks::Charge(const DecisionRecords& decision) {
  std::vector<int64_t> after;
  const uint32_t timeout =
      CommitTimeoutMs(clocks_, decision.decision.decision_id());
  for (uint32_t seat : decision.decision.seats()) {
    if (seat >= banks_.size()) {
      after.push_back(0);
      continue;
    }
    for (const v1::Commit& c : decision.commits) {
      if (c.seat() != seat || timeout == 0) continue;
      // As the referee charges it (Match::ChargeTimeBank): the time used
      // from the opening, or from the last restart before the commit (a
      // restart reopens the commit phase; time before it is charged to
      // no seat).
      int64_t from = decision.decision.opened_unix_ms();
      for (const v1::Restart& r : decision.restarts) {
        if (r.restarted_unix_ms() <= c.received_unix_ms()) {
          from = std::max<int64_t>(from, r.restarted_unix_ms());
        }
      }
      const int64_t overrun = SaturatingSub(
          SaturatingSub(c.received_unix_ms(), from), int64_t{timeout});
      if (overrun > 0) {
        banks_[seat] = std::max<int64_t>(0, banks_[seat] - overrun);
      }
      banks_[seat] += clocks_.time_bank_increment_ms();
    }
    // A missed commit deadline used the whole bank (Match::CheckDeadlines).
    for (const v1::Fault& f : decision.faults) {
      if (f.seat() == seat && f.reason() == v1::FAULT_COMMIT_TIMEOUT) {
        banks_[seat] = 0;
      }
    }
    after.push_back(banks_[seat]);
  }
  return after;
}

std::string StepPanelHtml(const v1::Header& header, const MatchStep& step,
                          size_t number, size_t count,
                          const std::vector<int64_t>& banks) {
  std::string out = Title(step, number, count);
  const DecisionRecords& d = step.decision;
  if (d.opened) {
    std::vector<std::string> asked;
    for (uint32_t seat : d.decision.seats()) {
      asked.push_back(absl::StrCat(seat));
    }
    absl::StrAppend(
        &out, "<p>Opened ", UtcTime(d.decision.opened_unix_ms()),
        d.decision.commit_deadline_unix_ms() == 0
            ? ""
            : absl::StrCat(", commit deadline ",
                           After(d.decision.commit_deadline_unix_ms(),
                                 d.decision.opened_unix_ms())),
        ". Seats asked: ", absl::StrJoin(asked, ", "),
        d.decision.simultaneous() ? " (at once)" : "",
        ". Times after the opening.</p>", SeatTable(header, step, banks));
    // A decision's first restarts, then how many more and how long they
    // were down (a forged log of a million would otherwise be a page of a
    // million lines).
    constexpr size_t kRestartsListed = 10;
    int64_t more_down_ms = 0;
    bool more_impossible = false;
    for (size_t i = 0; i < d.restarts.size(); ++i) {
      const v1::Restart& r = d.restarts[i];
      if (i < kRestartsListed) {
        absl::StrAppend(
            &out, "<p class=\"bad\">The referee restarted: down from ",
            UtcTime(r.last_record_unix_ms()), " for ",
            MsBetween(r.last_record_unix_ms(), r.restarted_unix_ms()),
            ", charged to no seat.</p>");
        continue;
      }
      int64_t down;
      more_impossible =
          more_impossible ||
          __builtin_sub_overflow(r.restarted_unix_ms(), r.last_record_unix_ms(),
                                 &down) ||
          __builtin_add_overflow(more_down_ms, down, &more_down_ms);
    }
    if (d.restarts.size() > kRestartsListed) {
      absl::StrAppend(
          &out, "<p class=\"bad\">And ", d.restarts.size() - kRestartsListed,
          " more restarts of the referee in this decision, down for ",
          more_impossible ? std::string("an impossible span")
                          : absl::StrCat(more_down_ms, " ms"),
          " in all, charged to no seat (`replay show` lists each).</p>");
    }
  } else if (step.kind == MatchStep::Kind::kMove) {
    for (const v1::Move& m : step.applied.moves()) {
      absl::StrAppend(&out, "<p>", SeatLabel(header, m.seat()), ": ",
                      SourceText(m.source()), "; no decision was opened.</p>");
    }
  }
  if (step.kind == MatchStep::Kind::kMove) {
    std::ostringstream text;
    PrintApplied(header.game().game(), step.applied, text);
    absl::StrAppend(&out, "<pre>", SvgText(text.str()), "</pre>");
  }
  absl::StrAppend(&out, Visibility(step));
  return out;
}

}  // namespace pyramid

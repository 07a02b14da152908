#include "replay/transcript.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/bytes.h"
#include "referee/games/printable_text.h"
#include "replay/game_printers.h"
#include "replay/time_span.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

void PrintHeader(const v1::Header& h, std::ostream& out) {
  // Every string of the header is the referee's (or, unsigned, anyone's):
  // shown through PrintableText, so that none can forge a line, move the
  // cursor or hide what follows it.
  out << "match " << ToHex(h.match_id()) << "  game "
      << PrintableText(h.game().game()) << " (rules v" << h.rules_version()
      << ", log format v" << h.format_version() << ")\n";
  // The label the match was created with (signed, not judged), quoted: a
  // tournament's NAME/RUN_ID/INDEX.
  if (!h.label().empty()) out << "label " << QuotedText(h.label()) << "\n";
  out << "referee key " << ToHex(h.referee_public_key()) << "\n";
  out << "forfeit policy " << v1::ForfeitPolicy_Name(h.forfeit_policy())
      << "; commit timeout " << h.clocks().commit_timeout_ms()
      << " ms, reveal timeout " << h.clocks().reveal_timeout_ms() << " ms";
  if (h.clocks().seed_timeout_ms() != 0) {
    out << ", seed decision " << h.clocks().seed_timeout_ms() << " ms";
  }
  if (h.clocks().time_bank_ms() != 0 ||
      h.clocks().time_bank_increment_ms() != 0) {
    out << "; time bank " << h.clocks().time_bank_ms() << " ms, +"
        << h.clocks().time_bank_increment_ms() << " ms a decision";
  }
  out << "\n";
  // A seat without a key says so last on its line: a name that reads
  // "(signs its commits with key ...)" is then followed by "(no key)".
  for (int i = 0; i < h.seats_size(); ++i) {
    out << "seat " << i << ": " << PrintableText(h.seats(i).name())
        << (h.seats(i).public_key().empty()
                ? " (no key)"
                : absl::StrCat(" (signs its commits with key ",
                               ToHex(h.seats(i).public_key()), ")"))
        << "\n";
  }
}

void PrintOutcome(const v1::Outcome& outcome, std::ostream& out) {
  out << "outcome (" << v1::Termination_Name(outcome.termination()) << "):\n";
  for (int i = 0; i < outcome.seats_size(); ++i) {
    const v1::SeatOutcome& s = outcome.seats(i);
    out << "  seat " << i << ": rank " << s.rank() << ", score " << s.score()
        << (s.forfeited() ? ", forfeited" : "") << "\n";
  }
}

}  // namespace

namespace {

// The protocol's records: a decision opened, a commit, a reveal, a fault, a
// restart; one line or two each.
void PrintDecisionOpened(const v1::DecisionOpened& d, std::ostream& out) {
  out << "\n"
      << (d.decision_id() == 0 ? "seed decision" : "decision ")
      << (d.decision_id() == 0 ? "" : absl::StrCat(d.decision_id()))
      << ": seats " << absl::StrJoin(d.seats(), ", ")
      << (d.simultaneous() ? " (simultaneous)" : "") << "\n";
}

void PrintCommit(const v1::Commit& c, std::ostream& out) {
  out << "  seat " << c.seat() << " commits "
      << ToHex(c.commitment()).substr(0, 16) << "…"
      << (c.signature().empty() ? "" : " (signed)") << "  at "
      << UtcTime(c.received_unix_ms()) << "\n";
}

void PrintFault(const v1::Fault& f, std::ostream& out) {
  out << "  FAULT seat " << f.seat() << ": " << v1::FaultReason_Name(f.reason())
      << " (" << PrintableText(f.detail()) << ") -> "
      << v1::FaultConsequence_Name(f.consequence()) << "\n";
}

void PrintRestart(const v1::Restart& restart, std::ostream& out) {
  out << "  [referee restarted: down from "
      << UtcTime(restart.last_record_unix_ms()) << " to "
      << UtcTime(restart.restarted_unix_ms()) << " ("
      << MsBetween(restart.last_record_unix_ms(), restart.restarted_unix_ms())
      << ", charged to no seat); deadline reopened"
      << (restart.deadline_unix_ms() == 0
              ? " with none"
              : absl::StrCat(" to ", UtcTime(restart.deadline_unix_ms())))
      << "]\n";
}

// One record of the log, `i`-th; `game` is the header's game id.
void PrintRecord(const v1::LogRecord& r, size_t i, std::string& game,
                 std::ostream& out) {
  switch (r.kind_case()) {
    case v1::LogRecord::kHeader:
      game = r.header().game().game();
      PrintHeader(r.header(), out);
      break;
    case v1::LogRecord::kDecisionOpened:
      PrintDecisionOpened(r.decision_opened(), out);
      break;
    case v1::LogRecord::kCommit:
      PrintCommit(r.commit(), out);
      break;
    case v1::LogRecord::kReveal:
      out << "  seat " << r.reveal().seat() << " reveals\n";
      break;
    case v1::LogRecord::kFault:
      PrintFault(r.fault(), out);
      break;
    case v1::LogRecord::kSeedReveal:
      out << "  seed " << ToHex(r.seed_reveal().seed()) << "\n";
      PrintView(game, r.seed_reveal().initial_view(), out);
      break;
    case v1::LogRecord::kApplied:
      PrintApplied(game, r.applied(), out);
      break;
    case v1::LogRecord::kCheckpoint:
      out << "  [checkpoint: records 0.." << r.checkpoint().record_count() - 1
          << " signed]\n";
      break;
    case v1::LogRecord::kOutcome:
      out << "\n";
      PrintOutcome(r.outcome(), out);
      break;
    case v1::LogRecord::kSeal:
      out << "sealed: records 0.." << r.seal().record_count() - 1
          << " signed\n";
      break;
    case v1::LogRecord::kRestart:
      PrintRestart(r.restart(), out);
      break;
    case v1::LogRecord::KIND_NOT_SET:
      out << "  (record " << i << " of unknown kind)\n";
      break;
  }
}

}  // namespace

absl::Status WriteTranscript(std::string_view file, std::ostream& out) {
  std::string game;
  return ForEachRecord(file, [&](uint64_t i, v1::LogRecord& r) {
    PrintRecord(r, i, game, out);
    return true;
  });
}

absl::Status WriteJsonLines(std::string_view file, std::ostream& out) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  absl::Status printed;
  const absl::Status read =
      ForEachRecord(file, [&](uint64_t, v1::LogRecord& r) {
        std::string json;
        auto status =
            google::protobuf::util::MessageToJsonString(r, &json, options);
        if (!status.ok()) {
          printed = absl::InternalError(std::string(status.message()));
          return false;
        }
        out << json << "\n";
        return true;
      });
  return printed.ok() ? read : printed;
}

}  // namespace pyramid

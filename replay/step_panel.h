// The text beside the viewer's picture for one step (`replay html`): which
// seats were asked and whether at once, when each committed and revealed,
// its clock, faults and their consequences, restarts, where each move came
// from, the game's own account of the move, and who could see what then.
// Everything taken from the log is escaped.
#ifndef PYRAMID_REPLAY_STEP_PANEL_H_
#define PYRAMID_REPLAY_STEP_PANEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pyramid/referee/v1/log.pb.h"
#include "replay/match_steps.h"

namespace pyramid {

// Each seat's time bank, followed through the decisions in log order
// (docs/protocol.md: a seat that overruns the commit timeout pays the
// overrun from its bank, and gains the increment after each decision in
// which it committed). Informative: the verifier does not judge times.
class TimeBanks {
 public:
  explicit TimeBanks(const referee::v1::Header& header);
  // Charges `decision`'s commits; returns each asked seat's bank after it
  // (indexed like decision.decision.seats()).
  std::vector<int64_t> Charge(const DecisionRecords& decision);

 private:
  referee::v1::ClockSettings clocks_;
  std::vector<int64_t> banks_;
};

// The panel of step `number` (0-based) of `count`, as HTML. `banks` is
// TimeBanks::Charge's answer for the step's decision.
std::string StepPanelHtml(const referee::v1::Header& header,
                          const MatchStep& step, size_t number, size_t count,
                          const std::vector<int64_t>& banks);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_STEP_PANEL_H_

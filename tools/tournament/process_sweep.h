// Sweeping away what bots leave behind: every process of a bot's own uid
// (with its System V IPC objects), and the orphans a bot's processes leave
// to the tournament program as their child subreaper.
#ifndef PYRAMID_TOOLS_TOURNAMENT_PROCESS_SWEEP_H_
#define PYRAMID_TOOLS_TOURNAMENT_PROCESS_SWEEP_H_

#include <sys/types.h>

#include <set>
#include <vector>

#include "absl/status/status.h"

namespace pyramid {

// Kills every process whose real, effective or saved user id is `uid`, as
// this process (no helper takes on `uid`, which that uid's processes could
// stop or kill): rounds of a scan of /proc that stops (SIGSTOP) every such
// process, then kills it (SIGKILL), until a round finds none left
// running. Then, with none left, it removes every System V IPC object
// (shared-memory segment, message queue, semaphore set: /proc/sysvipc)
// whose owner or creator uid is `uid`, which would otherwise outlive its
// processes until reboot. INVALID_ARGUMENT for uid 0 or this process's own
// uid; DEADLINE_EXCEEDED, naming the pids, when some still run after 10 s
// (in uninterruptible sleep; nothing is then removed); INTERNAL, naming
// them, when an IPC object could not be removed. The caller must be root.
absl::Status KillProcessesOf(uid_t uid);

// Makes this process the child subreaper of its descendants
// (PR_SET_CHILD_SUBREAPER): a process whose parent ends is reparented to
// the nearest living ancestor that is one, instead of init. Only for a
// process whose children are all bots (the tournament program), since
// ReapOrphans and KillOrphans treat every other child as a bot's orphan.
absl::Status AdoptOrphans();
// Reaps every child of this process that has ended and whose pid is not in
// `bots` (the BotProcesses' own pids, which BotProcess::Exited reaps).
void ReapOrphans(const std::set<pid_t>& bots);
// What KillOrphans did: how many orphans it killed (those running when it
// came, not those that had ended), and the pids of those it killed that
// had not ended by its deadline (5 s: a process in uninterruptible sleep
// outlasts SIGKILL).
struct OrphanSweep {
  int killed = 0;
  std::vector<pid_t> left;
};
// Kills and reaps every child of this process whose pid is not in `bots`,
// then the children those leave behind, until none is left (bounded, and
// never waiting past its deadline).
OrphanSweep KillOrphans(const std::set<pid_t>& bots);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_PROCESS_SWEEP_H_

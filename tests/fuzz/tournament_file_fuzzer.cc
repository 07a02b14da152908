// Fuzz target: the tournament file (docs/tournament.md), parsed and checked
// as `tournament` does before it starts anything, then scheduled when the
// schedule is small enough to list quickly. Never a crash, and a file that
// passes the checks gives a schedule or a clear error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/tournament/schedule.h"
#include "tools/tournament/tournament_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<pyramid::referee::v1::Tournament> tournament =
      pyramid::ParseTournamentFile(text);
  if (!tournament.ok()) return 0;
  if (!pyramid::NormalizeTournament(*tournament).ok()) return 0;
  if (tournament->format() == pyramid::referee::v1::SWISS) return 0;
  if (tournament->bots_size() <= 12 && tournament->rounds() <= 4) {
    (void)pyramid::MakeSchedule(tournament->format(), tournament->bots_size(),
                                static_cast<int>(tournament->seats()),
                                static_cast<int>(tournament->rounds()),
                                tournament->seed());
  }
  return 0;
}

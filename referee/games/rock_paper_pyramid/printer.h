// `replay show` lines for Rock, Paper, Pyramid!.
#ifndef PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_

#include <ostream>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

void PrintRockPaperPyramidView(const referee::v1::Observation& view,
                               std::ostream& out);
void PrintRockPaperPyramidApplied(const referee::v1::Applied& applied,
                                  std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_ROCK_PAPER_PYRAMID_PRINTER_H_

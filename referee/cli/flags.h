// Command-line flags for every program of the project: parses them, and
// makes --help (and --helpfull) list every flag the program defines, with
// its help text. Abseil's default lists only flags defined in a file named
// after the program, which none of ours is ("No flags matched").
#ifndef PYRAMID_REFEREE_CLI_FLAGS_H_
#define PYRAMID_REFEREE_CLI_FLAGS_H_

#include <vector>

namespace pyramid {

// Sets `usage` as the program's usage message, parses the flags (exiting
// on --help or a bad flag, as Abseil does) and returns the positional
// arguments, argv[0] first.
std::vector<char*> ParseFlags(int argc, char** argv, const char* usage);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_FLAGS_H_

// The start of every program of the project: its command-line flags, and
// the process-wide settings every one of them wants.
//
// Flags: --help (and --helpfull) list every flag the program defines, with
// its help text. Abseil's default lists only flags defined in a file named
// after the program, which none of ours is ("No flags matched").
//
// Mutexes: Debian's Abseil is built without NDEBUG, so absl::Mutex runs its
// deadlock detector unless told not to: every lock updates one global graph
// under a process-wide lock (5-10% of the referee's CPU under load; gRPC
// locks absl::Mutex too). Programs turn it off; the unit tests, which do
// not start here, keep it on and so still catch a lock-order cycle.
//
// Allocator: the settings of allocator.h (tcmalloc handing freed pages back
// to the system), before any thread starts.
#ifndef PYRAMID_REFEREE_CLI_PROGRAM_H_
#define PYRAMID_REFEREE_CLI_PROGRAM_H_

#include <string>
#include <string_view>
#include <vector>

namespace pyramid {

// Call first in main(), before any thread starts. Tunes the allocator
// (TuneAllocator), turns off absl::Mutex's deadlock detector, sets `usage` as
// the program's usage message, parses the flags and returns the positional
// arguments, argv[0] first. --help (and --helpfull, --helpshort,
// --help=SUBSTRING) prints the usage and exits 0; an unknown flag, a flag
// without its value, an empty value for a text flag that has a default
// ("keygen --out=": a path, an address, a game; one whose default is empty
// takes "" as unset) or a value its type does not take ("--rounds=x") is a
// usage error: one line on stderr naming it, exit status 2, as for every
// program's own usage errors (Abseil's parser alone exits 1 for both).
// --version prints VersionLine and exits 0.
std::vector<char*> InitProgram(int argc, char** argv, const char* usage);

// What --version prints, one line: "PROGRAM (Pyramid referee): log format
// version 1; optimized build, tcmalloc" (a debug build, AddressSanitizer
// and glibc malloc said as such). InitProgram answers --version with it;
// replay, which parses its own arguments, calls it itself.
std::string VersionLine(std::string_view program);

// Ends the process with status 2 after one line on stderr, "NAME: MESSAGE
// (see NAME --help)", NAME being `program`'s last path component (argv[0]
// or a name): InitProgram's usage errors, and any program's own.
[[noreturn]] void UsageError(std::string_view program,
                             std::string_view message);

// InitProgram for a program that takes flags only: a positional argument
// is a usage error (UsageError: "PROGRAM: takes no positional arguments
// (got \"ARG\") (see PROGRAM --help)", status 2).
void InitFlagsOnlyProgram(int argc, char** argv, const char* usage);

// Raises this process's open-file limit (RLIMIT_NOFILE) to its hard limit,
// for a server that keeps a socket or a file per stream and match.
void RaiseFileLimit();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_PROGRAM_H_

// bench_load's server side: the process bench_load re-executes itself as
// (--serve), hosting the real referee service (Lobby + RefereeService, as
// the `referee` binary configures them, writing real signed logs into the
// data directory) and, in the same grpc::Server, the raw echo service of
// tools/bench_load/bench_echo.proto, the baseline. The echo service exists
// only here, never in the referee binary.
#ifndef PYRAMID_TOOLS_BENCH_LOAD_SERVER_H_
#define PYRAMID_TOOLS_BENCH_LOAD_SERVER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pyramid::bench_load {

// The environment variable that hands the server its admin token.
inline constexpr char kAdminTokenEnv[] = "PYRAMID_BENCH_ADMIN_TOKEN";

// How the server runs the referee: its data directory and the referee
// settings the benchmark passes on (the `referee` flags of the same names;
// bench_load's flags, whose defaults are the referee's, set every one).
struct ServeOptions {
  std::string dir;
  std::string fsync;  // never, checkpoints or every_record.
  int32_t sync_threads = 0;
  bool journal = false;   // Checkpoint syncs through DIR/journal.
  bool registry = false;  // The SQLite registry DIR/registry.sqlite3.
  uint32_t batch_linger_us = 0;
  int32_t play_queues = 1;  // Also the echo's.
  uint32_t ack_hold_ms = 0;
  uint32_t checkpoint_interval = 0;

  // The command-line arguments that start the server with these options
  // (--serve and its flags; bench_load's main reads them back).
  std::vector<std::string> Args() const;
};

// Runs the server until SIGINT or SIGTERM; the admin token comes from
// $kAdminTokenEnv. It writes DIR/port once it listens, DIR/referee.key.pub,
// and DIR/heap on each SIGUSR1 (ServerProcess::Ask reads it). The exit
// status when it cannot start (it exits the process when told to stop).
int ServeMain(const ServeOptions& options);

}  // namespace pyramid::bench_load

#endif  // PYRAMID_TOOLS_BENCH_LOAD_SERVER_H_

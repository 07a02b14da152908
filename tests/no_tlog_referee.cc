// A referee that keeps no transparency log: GetCheckpoint answers
// FAILED_PRECONDITION, as a referee without one (or one that cannot sign a
// checkpoint now) does. tests/tournament_test.cc plays a tournament on it
// with the wrong referee key pinned: the runner, given no checkpoint to
// check the key on, must find the mistake on the header of the first log
// it fetches (docs/tournament.md, "The referee").
//
//   no_tlog_referee DIR
//
// An embedded referee (a fresh key, a fresh admin token) on a free loopback
// port. Writes its logs into DIR/logs, its public key (hex) to
// DIR/referee.key.pub, its admin token to DIR/admin.token and, last, its
// address to DIR/address; serves until SIGTERM or SIGINT.
#include <pthread.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <utility>

#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/embedded_referee.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: no_tlog_referee DIR\n";
    return 2;
  }
  // Blocked before any thread starts (every thread inherits the mask), so
  // that sigwait below receives them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  const std::filesystem::path dir = argv[1];
  std::error_code error;
  std::filesystem::create_directories(dir / "logs", error);
  if (error) {
    std::cerr << "no_tlog_referee: " << (dir / "logs").string() << ": "
              << error.message() << "\n";
    return 1;
  }
  pyramid::LobbyOptions options;
  options.log_dir = (dir / "logs").string();
  options.referee_key = pyramid::SigningKey::Generate();
  const std::string public_hex =
      pyramid::ToHex(options.referee_key.public_key()) + "\n";
  // options.tlog stays null: no transparency log.
  absl::StatusOr<std::unique_ptr<pyramid::EmbeddedReferee>> referee =
      pyramid::EmbeddedReferee::Start(std::move(options));
  if (!referee.ok()) {
    std::cerr << "no_tlog_referee: " << referee.status() << "\n";
    return 1;
  }
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"referee.key.pub", public_hex},
        {"admin.token", (*referee)->admin_token() + "\n"},
        {"address", (*referee)->address() + "\n"}}) {
    if (absl::Status s =
            pyramid::WriteFileAtomically((dir / name).string(), text);
        !s.ok()) {
      std::cerr << "no_tlog_referee: " << s << "\n";
      return 1;
    }
  }
  int signal = 0;
  sigwait(&stop, &signal);
  return 0;  // ~EmbeddedReferee stops the server.
}

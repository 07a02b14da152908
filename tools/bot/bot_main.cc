// bot: the reference bot. Connects to a referee, authenticates with a seat
// token or a bot token, and plays every decision it is sent through
// commit-reveal, on one Play stream (so one process plays any number of
// matches at once).
//
//   bot [--referee=127.0.0.1:50051] [--token_file=FILE]
//       [--strategy=random|heuristic] [--game=rock_paper_pyramid]
//       [--matches=N] [--key_file=FILE] [--state_dir=DIR]
//
// As the client kits do (docs/writing-a-bot.md): the referee is --referee,
// else $PYRAMID_REFEREE, else 127.0.0.1:50051; the token is read from
// --token_file, else from the file $PYRAMID_TOKEN_FILE names, else it is
// $PYRAMID_TOKEN itself (the tournament runner sets PYRAMID_REFEREE and
// PYRAMID_TOKEN_FILE); the state directory is --state_dir, else
// $PYRAMID_STATE_DIR, else none. An empty flag or variable counts as not
// given.
//
// SIGINT and SIGTERM (which the tournament runner sends its bots at the
// end) stop the bot cleanly: it cancels its stream, prints its summary line
// and exits 0 unless the referee reported an error to it.
//
// When the referee ends the stream because a newer stream of the same token
// replaced it (another process connected with this token), the bot does not
// reconnect, which would take the token back and start a fight without end:
// it says so and exits 1.
//
// A bad command line is refused before connecting, with exit status 2 and
// one line naming the flag (or variable): an unknown flag, a value out of
// range, a referee address that is not HOST:PORT (PORT 1 to 65535; an IPv6
// host in brackets, [::1]:PORT; no scheme), an unknown --game or
// --strategy, a file --token_file, --key_file or --tls_ca names that
// cannot be read or holds no token, key or PEM certificate, or a
// --state_dir that cannot be made or written in.
//
// This file is the command line; the play is PlayClient's (play_client.h).
#include <semaphore.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/program.h"
#include "referee/cli/referee_client.h"
#include "referee/cli/token_text.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "tools/bot/play_client.h"
#include "tools/bot/state_dir.h"
#include "tools/bot/strategy.h"

ABSL_FLAG(std::string, referee, "",
          "Referee address, HOST:PORT (default: $PYRAMID_REFEREE, else "
          "127.0.0.1:50051).");
ABSL_FLAG(std::string, token_file, "",
          "File holding a seat or bot token (default: the file "
          "$PYRAMID_TOKEN_FILE names, else the token in $PYRAMID_TOKEN).");
ABSL_FLAG(std::string, strategy, "random",
          "How to choose actions: random, or heuristic "
          "(docs/bot-strategies.md).");
ABSL_FLAG(std::string, game, "",
          "Refuse decisions of any other game: a game id (empty: play any "
          "game).");
ABSL_FLAG(int, matches, 0,
          "Exit after this many matches have ended (0: with a seat token, "
          "when its match ends; with a bot token, run until stopped).");
ABSL_FLAG(std::string, key_file, "",
          "Ed25519 secret key (keygen format) to sign commits with, for "
          "seats registered with its public key.");
ABSL_FLAG(std::string, tls_ca, "", "PEM roots: connect with TLS.");
ABSL_FLAG(std::string, seed, "",
          "Hex seed for the bot's own randomness (default: random). Salts "
          "and seed contributions always use the system's randomness.");
ABSL_FLAG(bool, quiet, false, "Print only errors.");
ABSL_FLAG(bool, verbose, false,
          "Also print each commit and reveal the referee acknowledges.");
ABSL_FLAG(int, reconnect_for_s, 300,
          "Reconnect for at most this many seconds without a referee: when "
          "the stream breaks (or the referee cannot be reached), retry with "
          "backoff (100 ms doubling to 5 s), saying so in one line (unless "
          "--quiet), and exit with status 1 once that long has passed "
          "without one (0: exit at once when the stream breaks, with status "
          "1).");
ABSL_FLAG(bool, observation_once, true,
          "Ask the referee to send each view once (the Play stream feature "
          "observation-once, docs/protocol.md): a DecisionRequest then "
          "takes its view from the DecisionResult before it.");
ABSL_FLAG(bool, batch, true,
          "Use the Play stream feature batch (docs/protocol.md): the referee "
          "may send several messages as one, and the bot sends what it owes "
          "after each message it reads as one.");
ABSL_FLAG(std::string, state_dir, "",
          "Keep every commitment on disk in this directory (made if "
          "missing) until its decision is over, written durably before the "
          "commit is sent, so that a bot restarted between a commit and its "
          "reveal still reveals; the client kits' format, "
          "docs/writing-a-bot.md section 8 (default: $PYRAMID_STATE_DIR, "
          "else none).");
ABSL_FLAG(int, crash_after_commits, 0,
          "Fault injection, for testing tournament runners and clients: "
          "once the referee acknowledges this many commits, exit at once "
          "with status 3, leaving that commitment unrevealed (0: never).");

namespace pyramid {
namespace {

// The value of the environment variable `name`; empty when it is not set.
std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The referee's address: --referee, else $PYRAMID_REFEREE, else
// 127.0.0.1:50051.
std::string RefereeAddress() {
  std::string address = absl::GetFlag(FLAGS_referee);
  if (address.empty()) address = Env("PYRAMID_REFEREE");
  if (address.empty()) address = "127.0.0.1:50051";
  return address;
}

// What is wrong with a referee address (empty: nothing), said as the client
// kits say it. One is HOST:PORT: HOST a name or an IPv4 address, or an IPv6
// address in brackets ([::1]:50051); PORT 1 to 65535; or a Unix domain
// socket, unix:PATH. Without the check,
// "127.0.0.1" (no port), "127.0.0.1:99999" or "http://127.0.0.1:24100"
// were dialled and retried for --reconnect_for_s.
std::string AddressProblem(const std::string& address) {
  if (address.size() > 5 && address.rfind("unix:", 0) == 0) return "";
  const std::string form =
      "is HOST:PORT (PORT 1 to 65535; an IPv6 host in brackets, as "
      "[::1]:50051) or unix:PATH";
  const std::string quoted = "\"" + address + "\"";
  std::string host;
  std::string port;
  bool shaped = false;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find(']');
    if (close != std::string::npos && close + 1 < address.size() &&
        address[close + 1] == ':') {
      host = address.substr(1, close - 1);
      port = address.substr(close + 2);
      shaped = !host.empty() &&
               std::all_of(host.begin(), host.end(),
                           [](char c) {
                             // Hex digits, colons and dots, with a
                             // zone (%eth0).
                             return absl::ascii_isalnum(c) || c == ':' ||
                                    c == '.' || c == '%' || c == '_' ||
                                    c == '-';
                           }) &&
               host.find(':') != std::string::npos;
    }
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string::npos) {
      if (address.find("//") == std::string::npos) {
        return form + ": no port in " + quoted;
      }
    } else {
      host = address.substr(0, colon);
      port = address.substr(colon + 1);
      shaped =
          !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
            return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-';
          });
    }
  }
  shaped = shaped && !port.empty() && port.size() <= 5 &&
           std::all_of(port.begin(), port.end(), absl::ascii_isdigit);
  if (!shaped) {
    if (address.find("://") != std::string::npos) {
      return form + ", not a URL: " + quoted;
    }
    return form + ", not " + quoted;
  }
  int number = 0;
  if (!absl::SimpleAtoi(port, &number) || number < 1 || number > 65535) {
    return form + ": port " + port + " is out of range in " + quoted;
  }
  return "";
}

// The token in the file --token_file names, else in the file
// $PYRAMID_TOKEN_FILE names, else in $PYRAMID_TOKEN, as the client kits
// read it; empty (after a message) when there is none.
std::string ReadToken() {
  std::string file = absl::GetFlag(FLAGS_token_file);
  if (file.empty()) file = Env("PYRAMID_TOKEN_FILE");
  const std::string env = Env("PYRAMID_TOKEN");
  if (file.empty() && env.empty()) {
    std::cerr << "bot: no token: give --token_file, or set "
                 "$PYRAMID_TOKEN_FILE or $PYRAMID_TOKEN\n";
    return "";
  }
  absl::StatusOr<std::string> token =
      file.empty() ? TokenFromText(env, "$PYRAMID_TOKEN") : ReadTokenFile(file);
  if (!token.ok()) {
    // Named as the kits name it: the flag, or the variable, that gave it.
    std::cerr << "bot: ";
    if (!file.empty()) {
      std::cerr << (absl::GetFlag(FLAGS_token_file).empty()
                        ? "$PYRAMID_TOKEN_FILE: "
                        : "--token_file: ");
    }
    std::cerr << token.status().message() << "\n";
    return "";
  }
  return *std::move(token);
}

// SIGINT and SIGTERM stop the bot (PlayClient::Stop). The handler only records
// the signal and posts a semaphore, both async-signal-safe; the thread of a
// StopOnSignals waits on the semaphore and calls Stop. A second signal
// changes nothing.
std::atomic<int> stop_signal{0};
sem_t stop_semaphore;

extern "C" void OnStopSignal(int signal) {
  const int saved_errno = errno;
  stop_signal.store(signal);
  sem_post(&stop_semaphore);
  errno = saved_errno;
}

class StopOnSignals {
 public:
  // Installs the handler for SIGINT and SIGTERM; once either arrives
  // (before or after this), `bot`.Stop() is called, once.
  explicit StopOnSignals(PlayClient& bot) : bot_(bot) {
    thread_ = std::thread([this] {
      while (sem_wait(&stop_semaphore) != 0) {  // EINTR: a signal came.
      }
      if (stop_signal.load() == 0) return;  // Destroyed before any signal.
      if (!absl::GetFlag(FLAGS_quiet)) {
        std::cerr << "bot: stopping on signal " << stop_signal.load() << "\n";
      }
      bot_.Stop();
    });
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  ~StopOnSignals() {
    sem_post(&stop_semaphore);  // Wakes the thread if no signal did.
    thread_.join();
  }

  // Call once, before any signal can be wanted: from then on SIGINT and
  // SIGTERM no longer end the process but are recorded for the thread.
  static void InstallHandler() {
    sem_init(&stop_semaphore, 0, 0);
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }

 private:
  PlayClient& bot_;
  std::thread thread_;
};

int Main() {
  StopOnSignals::InstallHandler();
  for (const auto& [name, value] :
       {std::pair{"matches", absl::GetFlag(FLAGS_matches)},
        std::pair{"reconnect_for_s", absl::GetFlag(FLAGS_reconnect_for_s)},
        std::pair{"crash_after_commits",
                  absl::GetFlag(FLAGS_crash_after_commits)}}) {
    if (value < 0) {
      std::cerr << "bot: --" << name << " is 0 or more, not " << value << "\n";
      return 2;
    }
  }
  // A game the bot does not know would have it refuse every decision.
  const std::string game = absl::GetFlag(FLAGS_game);
  if (!game.empty() && std::find(BotGames().begin(), BotGames().end(), game) ==
                           BotGames().end()) {
    std::cerr << "bot: unknown --game \"" << game << "\": the games are "
              << absl::StrJoin(BotGames(), ", ") << " (empty: any game)\n";
    return 2;
  }
  if (const std::string problem = AddressProblem(RefereeAddress());
      !problem.empty()) {
    std::cerr << "bot: "
              << (absl::GetFlag(FLAGS_referee).empty() ? "$PYRAMID_REFEREE "
                                                       : "--referee ")
              << problem << "\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<Strategy>> strategy =
      MakeStrategy(game, absl::GetFlag(FLAGS_strategy));
  if (!strategy.ok()) {
    std::cerr << "bot: --strategy: " << strategy.status().message() << "\n";
    return 2;
  }
  const std::string token = ReadToken();
  if (token.empty()) return 2;
  std::optional<SigningKey> key;
  if (!absl::GetFlag(FLAGS_key_file).empty()) {
    absl::StatusOr<SigningKey> read =
        ReadSigningKey(absl::GetFlag(FLAGS_key_file));
    if (!read.ok()) {
      std::cerr << "bot: --key_file: " << read.status().message() << "\n";
      return 2;
    }
    key = *read;
  }
  std::string state_dir = absl::GetFlag(FLAGS_state_dir);
  const char* state_dir_flag = "--state_dir";
  if (state_dir.empty()) {
    state_dir = Env("PYRAMID_STATE_DIR");
    state_dir_flag = "$PYRAMID_STATE_DIR";
  }
  if (!state_dir.empty()) {
    if (const absl::Status made = MakeStateDir(state_dir); !made.ok()) {
      std::cerr << "bot: " << state_dir_flag << ": cannot use " << state_dir
                << ": " << made.message() << "\n";
      return 2;
    }
  }
  std::string seed_bytes = SystemRandomBytes(32);
  if (!absl::GetFlag(FLAGS_seed).empty()) {
    absl::StatusOr<std::string> parsed = FromHex(absl::GetFlag(FLAGS_seed));
    if (!parsed.ok()) {
      std::cerr << "bot: --seed is hex\n";
      return 2;
    }
    seed_bytes = *parsed;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ClientCredentials(absl::GetFlag(FLAGS_tls_ca));
  if (!credentials.ok()) {
    std::cerr << "bot: --tls_ca: " << credentials.status().message() << "\n";
    return 2;
  }
  // A bot waiting out a referee restart must not miss its deadlines.
  auto channel = FastReconnectChannel(RefereeAddress(), *credentials);
  auto stub = v1::Referee::NewStub(channel);
  PlayClientOptions options;
  options.matches = absl::GetFlag(FLAGS_matches);
  options.reconnect_for = absl::Seconds(absl::GetFlag(FLAGS_reconnect_for_s));
  options.referee = RefereeAddress();
  options.game = game;
  options.observation_once = absl::GetFlag(FLAGS_observation_once);
  options.batch = absl::GetFlag(FLAGS_batch);
  options.quiet = absl::GetFlag(FLAGS_quiet);
  options.verbose = absl::GetFlag(FLAGS_verbose);
  options.crash_after_commits = absl::GetFlag(FLAGS_crash_after_commits);
  options.state_dir = state_dir;
  PlayClient bot(std::move(options), *std::move(strategy), Sha256(seed_bytes),
                 std::move(key));
  StopOnSignals stop_on_signals(bot);
  return bot.Run(*channel, *stub, token);
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(
      argc, argv,
      "The reference bot for the pyramid referee. SIGINT or SIGTERM stops "
      "it cleanly: it prints its summary line and exits 0 (1 if the referee "
      "reported an error to it).");
  return pyramid::Main();
}

// referee: the gRPC referee service (proto/pyramid/referee/v1/
// referee_service.proto). With no flags it listens on 127.0.0.1:50051, keeps
// everything under ./referee-data (created mode 0700 when missing: running
// logs hold seeds), generates a referee key and an admin token there if none
// exist, and prints where everything is. SIGINT/SIGTERM shut it down cleanly:
// every running match gets a checkpoint, so each log verifies as a prefix.
//
// A referee that cannot start exits with status 2 and one line saying why
// ("referee: cannot listen on 127.0.0.1:50051: Address already in use"),
// and leaves nothing new behind: the flags, the files they name and the
// address (bound once by a socket of our own, then let go) are checked
// before DATA_DIR is touched, and what a start made after that (DATA_DIR
// itself, the key, the admin token, the databases) is removed again when a
// later step fails, the server's own bind included (StartRollback).
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "referee/cli/accept_guard.h"
#include "referee/cli/library_log.h"
#include "referee/cli/listen_address.h"
#include "referee/cli/program.h"
#include "referee/cli/start_rollback.h"
#include "referee/cli/tls_files.h"
#include "referee/cli/token_text.h"
#include "referee/core/clock_settings.h"
#include "referee/core/log_files.h"
#include "referee/core/log_journal.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/service/directory_lock.h"
#include "referee/service/health_service.h"
#include "referee/service/lobby.h"
#include "referee/service/messages.h"
#include "referee/service/public_reason.h"
#include "referee/service/referee_service.h"
#include "referee/service/registry.h"
#include "referee/service/token.h"
#include "referee/service/transparency_log.h"
#include "referee/tlog/note.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Address to listen on (host:port, port 0 picking a free one; or a "
          "Unix socket, unix:PATH). One that cannot be listened on (in use, "
          "another server's socket, not this host's) stops the referee "
          "before it writes anything.");
ABSL_FLAG(std::string, port_file, "",
          "If set, write the port actually bound to this file: written "
          "atomically once the referee serves and has printed its banner, "
          "the port in decimal and a newline (0 for a Unix socket, which "
          "has no port).");
ABSL_FLAG(std::string, data_dir, "referee-data",
          "Directory for logs, the key and the admin token (created 0700 when "
          "missing, an existing one keeps its mode; a start that fails "
          "removes what it made there).");
ABSL_FLAG(std::string, log_dir, "", "Match logs; default DATA_DIR/logs.");
ABSL_FLAG(bool, public_watch, true,
          "Whether Watch, GetMatch, ListMatches, the transparency log's calls "
          "and GetLog of a finished match answer anyone (they expose only "
          "public views, and logs once the match is over). false: they need "
          "a token this referee issued (admin, seat or bot).");
ABSL_FLAG(std::string, key_file, "",
          "Referee Ed25519 secret key (keygen format), which must exist: a "
          "file, or a pipe such as <(pass show referee-key), read once; "
          "default DATA_DIR/referee.key, generated on first start (when "
          "DATA_DIR holds no transparency log yet).");
ABSL_FLAG(std::string, admin_token_file, "",
          "File holding the admin token. Default: the environment variable "
          "PYRAMID_ADMIN_TOKEN if set and not empty, else DATA_DIR/admin.token "
          "(generated "
          "0600 when missing).");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain: serve TLS (with --tls_key; neither: "
          "plaintext).");
ABSL_FLAG(std::string, tls_key, "",
          "PEM private key for --tls_cert (the two go together).");
ABSL_FLAG(std::string, fsync, "checkpoints",
          "When logs are fsynced: never, checkpoints, or every_record.");
ABSL_FLAG(int32_t, sync_threads, 16,
          "Threads that fsync the running matches' checkpoints, so that "
          "serving clients never waits on the disk (what a checkpoint's step "
          "sends waits for its sync); 0: sync on the serving thread; at most "
          "1024.");
ABSL_FLAG(bool, journal, true,
          "With --fsync=checkpoints and --sync_threads above 0: make "
          "checkpoints durable through one journal shared by every log "
          "(DATA_DIR/journal), synced once for all the checkpoints reached "
          "meanwhile, instead of an fdatasync of each log. A journal left by "
          "an earlier run is replayed at start either way.");
ABSL_FLAG(uint32_t, commit_timeout_ms, 30000,
          "Default commit deadline for matches that set no clocks (0: none).");
ABSL_FLAG(uint32_t, reveal_timeout_ms, 30000,
          "Default reveal deadline for matches that set no clocks (0: none).");
ABSL_FLAG(uint32_t, seed_timeout_ms, 0,
          "Default commit deadline of the seed decision, from the match's "
          "creation: the time seats have to connect (0: --commit_timeout_ms).");
ABSL_FLAG(uint32_t, time_bank_ms, 0, "Default time bank per seat.");
ABSL_FLAG(uint32_t, time_bank_increment_ms, 0,
          "Default time bank increment per decision.");
ABSL_FLAG(uint32_t, checkpoint_interval, pyramid::kDefaultCheckpointInterval,
          "Records between signed checkpoints in every log. 0: none but the "
          "one after the header, those forced at shutdown and the seal, so "
          "that with --fsync=checkpoints a match's moves are synced only when "
          "it ends, and a log cut short verifies no further than its header.");
ABSL_FLAG(std::string, tlog_origin, "",
          "The transparency log's origin (its name in checkpoints and their "
          "note key name); default pyramid-referee/ and the first 16 hex "
          "digits of the referee's public key.");
ABSL_FLAG(uint32_t, checkpoint_every_matches, 100,
          "Sign a transparency log checkpoint once this many sealed logs "
          "await one (0: only on time and at shutdown).");
ABSL_FLAG(uint32_t, checkpoint_every_s, 60,
          "Sign a transparency log checkpoint at least this often while "
          "sealed logs await one, and as often try again to record the end "
          "of a match that broke when the registry could not (a full disk; "
          "docs/durability.md). 0: checkpoints only on count and at "
          "shutdown; such ends when the next match is created and at "
          "shutdown.");
ABSL_FLAG(int, max_message_bytes, 1 << 20,
          "Largest message accepted from a client.");
ABSL_FLAG(uint32_t, max_live_matches, 0,
          "Matches live at once (created or resumed, not ended); one more "
          "CreateMatch is refused UNAVAILABLE until one ends, so that "
          "the live ones keep to their clocks (0: no limit but the open-file "
          "limit, a log per live match).");
ABSL_FLAG(bool, unique_labels, true,
          "A non-empty label names at most one match that did not break: a "
          "CreateMatch whose label a running or finished match carries is "
          "refused ALREADY_EXISTS, naming that match (a retry of its "
          "request_id still gets it; a broken match frees its label), so that "
          "whoever holds the admin token cannot play a tournament's match "
          "again under its label until its result suits them. Also for the "
          "matches recorded before a restart. The tournament runner's "
          "--replay_lost_logs is refused by such a referee: fetch the lost "
          "log from it instead (refctl get-log).");
ABSL_FLAG(uint32_t, max_watchers, 10000,
          "Spectators' Watch streams served at once; one more is refused "
          "RESOURCE_EXHAUSTED (0: no spectators at all, every spectator's "
          "Watch refused saying so; not unlimited). A spectator is any "
          "caller but the admin token: its streams (the operator's, the "
          "tournament runner's) are neither refused nor counted.");
ABSL_FLAG(uint32_t, max_watchers_per_match, 1000,
          "Spectators' Watch streams of one match at once (the admin "
          "token's are neither refused nor counted); one more is refused "
          "RESOURCE_EXHAUSTED (0: no spectators of any match, every "
          "spectator's Watch refused saying so; not unlimited).");
ABSL_FLAG(uint32_t, max_watchers_per_peer, 100,
          "Watch streams of callers without the admin token (anonymous "
          "spectators, seat and bot tokens) from one IP address (an IPv6 "
          "one's /64) at once; one more is refused RESOURCE_EXHAUSTED. Only "
          "the admin token (the tournament runner's) is not limited so (0: "
          "no watcher without the admin token). Behind NAT or a proxy, every "
          "spectator shares one address: raise it.");
ABSL_FLAG(uint32_t, max_calls_per_peer, 100,
          "Calls of callers without the admin token (anonymous, seat and bot "
          "tokens) from one IP address (an IPv6 one's /64) in progress at "
          "once: unary calls (answered, the answer not yet delivered) and "
          "GetLog downloads together (Play streams are not counted); one "
          "more is refused RESOURCE_EXHAUSTED. Only the admin token is not "
          "limited so (at least 1). Behind NAT or a proxy, every client "
          "shares one address: raise it.");
ABSL_FLAG(uint32_t, max_log_readers, 256,
          "GetLog downloads served at once (at least 1); one more is refused "
          "UNAVAILABLE (retry with backoff) until one ends. Each holds a "
          "64 KiB chunk or two.");
ABSL_FLAG(uint32_t, log_stall_timeout_s, 60,
          "A GetLog download whose client takes no chunk for this many "
          "seconds is cancelled, freeing its place (0: never).");
ABSL_FLAG(uint32_t, write_stall_timeout_s, 60,
          "Any call but GetLog (Play, Watch, health Watch, the unary calls) "
          "whose response, or a message of its stream, stays unsent this many "
          "seconds (a client that takes nothing, e.g. one that grants no "
          "HTTP/2 flow-control window) is cancelled, freeing what it holds "
          "and its place; a stream with nothing to send is never cancelled "
          "however long it waits (0: never; at most 86400).");
ABSL_FLAG(uint32_t, max_health_watchers, 10000,
          "grpc.health.v1.Health Watch streams served at once (at least 1); "
          "one more is refused RESOURCE_EXHAUSTED.");
ABSL_FLAG(uint32_t, max_health_watchers_per_peer, 100,
          "grpc.health.v1.Health Watch streams from one IP address (an IPv6 "
          "one's /64) at once, every caller counted (the health service has "
          "no tokens; at least 1); one more is refused RESOURCE_EXHAUSTED.");
ABSL_FLAG(uint32_t, max_health_checks_per_peer, 100,
          "grpc.health.v1.Health Check calls in progress (answered, the "
          "answer not yet taken) from one IP address (an IPv6 one's /64), "
          "every caller counted (at least 1); one more is refused "
          "RESOURCE_EXHAUSTED.");
ABSL_FLAG(int32_t, max_reflection_threads, 64,
          "Threads serving server reflection (gRPC's synchronous API, which "
          "serves nothing else here): each open reflection stream holds one, "
          "its pollers one or two; a stream beyond them is refused "
          "RESOURCE_EXHAUSTED (\"Server Threadpool Exhausted\"). 4 to "
          "4096.");
ABSL_FLAG(
    int, play_queues, 8,
    "Completion queues, each with its thread, that the Play and Watch "
    "streams are spread over (1 to 64). More keep each one's list of waiting "
    "operations short, which gRPC scans on every completion when built "
    "with its debug checks (as Debian's is): 8 suits tens of thousands "
    "of streams.");
ABSL_FLAG(uint32_t, batch_linger_us, 4000,
          "How long a bot's Play stream with the feature batch holds back a "
          "message sent to it while nothing else waits, to send what follows "
          "in the same write (0: never).");
ABSL_FLAG(uint32_t, ack_hold_ms, 250,
          "How long a Play stream with the feature batch (a seat's or a "
          "bot's) may hold back an acknowledgement (CommitAck, RevealAck) for "
          "the next message of that match to carry it (0: never).");
ABSL_FLAG(uint32_t, handshake_timeout_s, 20,
          "A connection that has not completed its TLS handshake and sent "
          "HTTP/2's opening (the client preface and SETTINGS) this many "
          "seconds after it was accepted is closed, freeing its file "
          "descriptor (1 to 3600).");
ABSL_FLAG(uint32_t, max_connection_idle_s, 900,
          "A connection with no call open (no Play, Watch or other stream) "
          "for this many seconds is closed with a GOAWAY, freeing its file "
          "descriptor; gRPC clients connect again at their next call (0: "
          "never).");
ABSL_FLAG(uint32_t, watch_queue_bytes, 32 << 10,
          "Bytes of events a watcher may have unsent; one that falls further "
          "behind loses them and gets a fresh snapshot instead.");

namespace pyramid {
namespace {

// The names of what the referee keeps in DATA_DIR, each spelled here once
// (PathsFromFlags makes their paths).
constexpr char kAdminTokenName[] = "admin.token";
constexpr char kCheckpointName[] = "checkpoint";
constexpr char kJournalName[] = "journal";
constexpr char kLockName[] = "lock";
constexpr char kLogsName[] = "logs";
constexpr char kKeyName[] = "referee.key";
constexpr char kPublicKeyName[] = "referee.key.pub";
constexpr char kRegistryName[] = "registry.sqlite3";
constexpr char kTlogName[] = "tlog.sqlite3";
constexpr char kTlogVkeyName[] = "tlog.vkey";

// The admin token, and where it came from (never the token itself):
// FindAdminToken's (--admin_token_file, $PYRAMID_ADMIN_TOKEN, then
// `default_file`, DATA_DIR/admin.token, minted there when none of them
// gives one).
absl::StatusOr<std::pair<std::string, std::string>> AdminToken(
    const std::string& default_file) {
  // A token no client could send (gRPC metadata) would lock the operator
  // out: FindAdminToken refuses it here.
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken(absl::GetFlag(FLAGS_admin_token_file),
                     "--admin_token_file", default_file);
  if (!found.ok()) return found.status();
  if (found->from == FoundAdminToken::From::kNone) {
    const MintedToken minted = MintToken();
    if (absl::Status s = WriteSecretFile(default_file, minted.token + "\n");
        !s.ok()) {
      return s;
    }
    found = FindAdminToken("", "", default_file);
    if (!found.ok()) return found.status();
  }
  if (found->token.size() < 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        found->source, ": an admin token has at least 16 characters"));
  }
  return std::make_pair(std::move(found->token), std::move(found->source));
}

int Fail(const absl::Status& status) {
  std::cerr << "referee: " << status.message() << "\n";
  return 2;
}

// Where the referee keeps its state: DATA_DIR (made mode 0700) and what it
// holds, the logs, the key file. Nothing is made here (Main and Run make
// them).
struct Paths {
  std::filesystem::path data_dir;
  std::string log_dir;              // --log_dir, default DATA_DIR/logs.
  std::string key_file;             // --key_file, default default_key_file.
  std::string default_key_file;     // DATA_DIR/referee.key.
  std::string public_key_file;      // DATA_DIR/referee.key.pub.
  std::string admin_token_file;     // DATA_DIR/admin.token (AdminToken).
  std::string registry;             // DATA_DIR/registry.sqlite3.
  std::string tlog;                 // DATA_DIR/tlog.sqlite3.
  std::string tlog_vkey;            // DATA_DIR/tlog.vkey.
  std::string checkpoint;           // DATA_DIR/checkpoint.
  std::string journal_dir;          // DATA_DIR/journal.
  std::filesystem::path lock_file;  // DATA_DIR/lock.
};

Paths PathsFromFlags() {
  Paths paths;
  paths.data_dir = absl::GetFlag(FLAGS_data_dir);
  const auto in_data_dir = [&](const char* name) {
    return (paths.data_dir / name).string();
  };
  paths.log_dir = absl::GetFlag(FLAGS_log_dir).empty()
                      ? in_data_dir(kLogsName)
                      : absl::GetFlag(FLAGS_log_dir);
  paths.default_key_file = in_data_dir(kKeyName);
  paths.key_file = absl::GetFlag(FLAGS_key_file).empty()
                       ? paths.default_key_file
                       : absl::GetFlag(FLAGS_key_file);
  paths.public_key_file = in_data_dir(kPublicKeyName);
  paths.admin_token_file = in_data_dir(kAdminTokenName);
  paths.registry = in_data_dir(kRegistryName);
  paths.tlog = in_data_dir(kTlogName);
  paths.tlog_vkey = in_data_dir(kTlogVkeyName);
  paths.checkpoint = in_data_dir(kCheckpointName);
  paths.journal_dir = in_data_dir(kJournalName);
  paths.lock_file = paths.data_dir / kLockName;
  return paths;
}

// The referee's key: the one --key_file named (`named_key`, read by
// CheckFlags), else DATA_DIR/referee.key's. Only that default file is
// generated when missing, and only while DATA_DIR holds no transparency
// log: that log signs with the key it was started with and refuses any
// other, so a new key there would be written only to be refused.
absl::StatusOr<SigningKey> RefereeKey(
    const Paths& paths, const std::optional<SigningKey>& named_key) {
  if (named_key.has_value()) return *named_key;
  if (!std::filesystem::exists(paths.key_file)) {
    if (std::filesystem::exists(paths.tlog)) {
      return absl::FailedPreconditionError(absl::StrCat(
          paths.key_file, " is missing, but ", paths.tlog,
          " holds a transparency log signed with the key it was started "
          "with (",
          paths.tlog_vkey,
          " names it): restore that key file, or give it with --key_file"));
    }
    if (absl::Status s = WriteKeyFiles(paths.key_file, SigningKey::Generate());
        !s.ok()) {
      return s;
    }
  }
  return ReadSigningKey(paths.key_file);
}

// The default clocks of the flags, validated.
absl::StatusOr<v1::ClockSettings> DefaultClocks() {
  v1::ClockSettings clocks;
  clocks.set_commit_timeout_ms(absl::GetFlag(FLAGS_commit_timeout_ms));
  clocks.set_reveal_timeout_ms(absl::GetFlag(FLAGS_reveal_timeout_ms));
  clocks.set_seed_timeout_ms(absl::GetFlag(FLAGS_seed_timeout_ms));
  clocks.set_time_bank_ms(absl::GetFlag(FLAGS_time_bank_ms));
  clocks.set_time_bank_increment_ms(
      absl::GetFlag(FLAGS_time_bank_increment_ms));
  if (absl::Status s = ValidateClockSettings(clocks); !s.ok()) return s;
  return clocks;
}

// What to do when DATA_DIR's transparency log, started with the key
// `started_key`, refuses this start's identity (`public_key` and the
// origin): start with the key it was started with, naming where its public
// half is (DATA_DIR/referee.key.pub when the referee made that key), or
// with the origin it was started with when the key is that one.
std::string AnotherIdentityNextStep(const Paths& paths,
                                    const std::string& public_key,
                                    const std::string& started_key) {
  if (started_key == public_key) {
    return absl::StrCat(
        "give --tlog_origin the origin it was started as (leave --tlog_origin "
        "out if that is ",
        TransparencyLog::DefaultOrigin(public_key), ", this key's default)");
  }
  const std::string& pub = paths.public_key_file;
  absl::StatusOr<std::string> made_here = ParsePublicKey(pub);
  if (!absl::GetFlag(FLAGS_key_file).empty() && made_here.ok() &&
      *made_here == started_key) {
    return absl::StrCat(
        "leave --key_file out to use the key it was started with, ",
        paths.default_key_file, " (its public half is ", pub, ")");
  }
  return absl::StrCat(
      "give --key_file the key it was started with (its public half is the "
      "key above, which ",
      paths.tlog_vkey, " names)");
}

// Opens DATA_DIR/tlog.sqlite3 and writes the verifier key of its
// checkpoints to DATA_DIR/tlog.vkey (also returned in `verifier_key`)
// unless that file holds it already.
absl::StatusOr<std::unique_ptr<TransparencyLog>> OpenTlog(
    const Paths& paths, const SigningKey& key, std::string* verifier_key) {
  const std::string origin =
      absl::GetFlag(FLAGS_tlog_origin).empty()
          ? TransparencyLog::DefaultOrigin(key.public_key())
          : absl::GetFlag(FLAGS_tlog_origin);
  absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog =
      TransparencyLog::Open(paths.tlog, key, origin, paths.checkpoint);
  if (std::optional<std::string> started =
          TransparencyLog::StartedKeyOf(tlog.status())) {
    return absl::Status(
        tlog.status().code(),
        absl::StrCat(tlog.status().message(), ": ",
                     AnotherIdentityNextStep(paths, key.public_key(), *started),
                     ", or give another --data_dir to start "
                     "a new identity"));
  }
  if (!tlog.ok()) return tlog.status();
  *verifier_key = tlog::FormatVerifierKey((*tlog)->verifier());
  // Every start but the first (or one with a new --tlog_origin) finds the
  // file as it would write it: rewritten, it took space, and a start on a
  // full disk failed there ("No space left on device") before it could
  // serve what needs none (docs/durability.md).
  const std::string& vkey_file = paths.tlog_vkey;
  const std::string vkey = *verifier_key + "\n";
  if (absl::StatusOr<std::string> current =
          ReadFileToString(vkey_file, vkey.size());
      current.ok() && *current == vkey) {
    return tlog;
  }
  if (absl::Status s = WriteFileAtomically(vkey_file, vkey); !s.ok()) {
    return s;
  }
  return tlog;
}

// A first start makes DATA_DIR/registry.sqlite3 before any match, log or
// checkpoint exists (and the transparency log just before it, empty). A
// registry missing beside what a start that ran left (a tree with
// `tree_size` sealed logs, DATA_DIR/checkpoint, logs in the log directory)
// was lost: a new, empty one would answer NOT_FOUND for every match and
// bot it held and give their labels again. Refused, saying what is there;
// a new DATA_DIR, or one holding only a key (keygen's), starts.
absl::Status CheckRegistryNotLost(const Paths& paths, uint64_t tree_size) {
  if (std::filesystem::exists(paths.registry)) return absl::OkStatus();
  std::vector<std::string> found;
  if (tree_size > 0) {
    found.push_back(
        absl::StrCat(paths.tlog, " holds ", tree_size, " sealed logs"));
  }
  if (std::filesystem::exists(paths.checkpoint)) {
    found.push_back(absl::StrCat(paths.checkpoint,
                                 " holds the transparency log's checkpoint"));
  }
  if (const uint64_t logs = CountLogFiles(paths.log_dir); logs > 0) {
    found.push_back(
        absl::StrCat(paths.log_dir, " holds ", logs, " match logs"));
  }
  if (found.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "registry: ", paths.registry,
      " is missing, but a referee has run on this data directory (",
      absl::StrJoin(found, ", "),
      "): the registry of its matches, bots and tokens was lost; restore it "
      "from a backup (a new, empty one would answer NOT_FOUND for every "
      "match and bot it held), or give another --data_dir to start anew"));
}

// The mirror of CheckRegistryNotLost: a log directory missing, or there
// but holding no log (the mount point of a disk not mounted yet, a wrong
// --log_dir), while the registry names logs that must be in it (of
// finished matches, and of running ones CreateMatch answered for:
// Registry::CountLoggedMatches). Served, every such running match would
// end broken for good and every finished one's GetLog answer DATA_LOSS.
// Refused, before anything is recovered (a log directory this start made
// goes with the refusal). A registry whose only matches are creations cut
// short (no log yet), or ended broken, starts.
absl::Status CheckLogsNotMissing(const Paths& paths, const Registry& registry,
                                 bool log_dir_existed) {
  if (CountLogFiles(paths.log_dir, 1) > 0) return absl::OkStatus();
  absl::StatusOr<int64_t> logged = registry.CountLoggedMatches();
  if (!logged.ok()) return logged.status();
  if (*logged == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the log directory ", paths.log_dir, " (--log_dir) ",
      log_dir_existed ? "holds no match logs (*.pyrlog)" : "is missing",
      ", but the registry ", paths.registry, " names the logs of ", *logged,
      " matches (finished, or running and acknowledged): mount the disk that "
      "holds them, or give the right --log_dir; nothing was changed "
      "(docs/durability.md, \"A start that refuses\")"));
}

// The flags whose values their parser cannot judge alone, and the files
// and address they name, checked before the referee touches DATA_DIR, so
// that a mistyped command line, or an address another process listens on,
// changes nothing on disk.
// A numeric flag's bounds: "--NAME is MIN to MAX, not VALUE", MIN said
// with `min_means` when it is a word's worth (0: "never").
struct FlagRange {
  const char* flag;
  int64_t value;
  int64_t min;
  int64_t max;
  const char* min_means = nullptr;
};

absl::Status CheckRanges(std::initializer_list<FlagRange> ranges) {
  for (const FlagRange& range : ranges) {
    if (range.value >= range.min && range.value <= range.max) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        range.flag, " is ", range.min,
        range.min_means == nullptr ? ""
                                   : absl::StrCat(" (", range.min_means, ")"),
        " to ", range.max, ", not ", range.value));
  }
  return absl::OkStatus();
}

// The numeric flags' values, each within what the referee can serve.
absl::Status CheckNumericFlags() {
  if (absl::Status s = CheckRanges({
          {"--sync_threads", absl::GetFlag(FLAGS_sync_threads), 0, 1024},
          {"--play_queues", absl::GetFlag(FLAGS_play_queues), 1, 64},
          {"--write_stall_timeout_s",
           absl::GetFlag(FLAGS_write_stall_timeout_s), 0, 86400, "never"},
          // In milliseconds, both must fit gRPC's int channel arguments.
          {"--handshake_timeout_s", absl::GetFlag(FLAGS_handshake_timeout_s), 1,
           3600},
          {"--max_connection_idle_s",
           absl::GetFlag(FLAGS_max_connection_idle_s), 0, 86400},
          // Below 4 the pollers could leave no thread for a stream.
          {"--max_reflection_threads",
           absl::GetFlag(FLAGS_max_reflection_threads), 4, 4096},
      });
      !s.ok()) {
    return s;
  }
  // Zero would refuse every call of its kind: no host means that.
  for (const auto& [value, flag, refused] :
       {std::tuple<uint32_t, const char*, const char*>{
            absl::GetFlag(FLAGS_max_log_readers), "--max_log_readers",
            "every GetLog"},
        {absl::GetFlag(FLAGS_max_calls_per_peer), "--max_calls_per_peer",
         "every call without the admin token"},
        {absl::GetFlag(FLAGS_max_health_watchers), "--max_health_watchers",
         "every health Watch"},
        {absl::GetFlag(FLAGS_max_health_watchers_per_peer),
         "--max_health_watchers_per_peer", "every health Watch"},
        {absl::GetFlag(FLAGS_max_health_checks_per_peer),
         "--max_health_checks_per_peer", "every health Check"}}) {
    if (value == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " must be at least 1, not 0 (0 would refuse ", refused, ")"));
    }
  }
  const int max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  if (max_message_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_message_bytes must be positive, not ", max_message_bytes));
  }
  return absl::OkStatus();
}

// --tls_cert and --tls_key: both or neither, and readable as a pair.
absl::Status CheckTlsFlags() {
  if (absl::GetFlag(FLAGS_tls_cert).empty() !=
      absl::GetFlag(FLAGS_tls_key).empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together: give both to serve TLS, or "
        "neither for plaintext");
  }
  if (absl::GetFlag(FLAGS_tls_cert).empty()) return absl::OkStatus();
  return CheckTlsFiles(absl::GetFlag(FLAGS_tls_cert),
                       absl::GetFlag(FLAGS_tls_key));
}

// The key --key_file names, into `named_key` (left empty without the
// flag). An explicitly named key that is not there is a mistake (a
// mistyped path): generating a key there would sign with one nobody
// pinned. It is read here once, and kept: a pipe (`--key_file=<(pass show
// ...)`) gives its bytes only once.
absl::Status ReadNamedKey(std::optional<SigningKey>& named_key) {
  const std::string key_file = absl::GetFlag(FLAGS_key_file);
  if (key_file.empty()) return absl::OkStatus();
  absl::StatusOr<SigningKey> key = ReadSigningKey(key_file);
  if (!key.ok()) {
    const bool unread = absl::IsNotFound(key.status()) ||
                        absl::IsPermissionDenied(key.status());
    return absl::Status(
        key.status().code(),
        absl::StrCat("--key_file: ", key.status().message(),
                     unread ? "; create a key with keygen, or leave "
                              "--key_file out to use DATA_DIR/referee.key "
                              "(made on first start)"
                            : ""));
  }
  named_key = *std::move(key);
  return absl::OkStatus();
}

absl::Status CheckFlags(std::optional<SigningKey>& named_key) {
  if (absl::StatusOr<FsyncPolicy> fsync =
          ParseFsyncPolicy(absl::GetFlag(FLAGS_fsync));
      !fsync.ok()) {
    return fsync.status();
  }
  if (absl::Status s = CheckNumericFlags(); !s.ok()) return s;
  if (absl::StatusOr<v1::ClockSettings> clocks = DefaultClocks();
      !clocks.ok()) {
    return clocks.status();
  }
  if (absl::Status s = CheckTlsFlags(); !s.ok()) return s;
  if (absl::Status s = ReadNamedKey(named_key); !s.ok()) return s;
  // Last: whether the address can be listened on now (the server's own
  // bind, later, stays the judge).
  return CheckListenAddress(absl::GetFlag(FLAGS_listen));
}

// Everything the lobby takes, from the flags and DATA_DIR.
// `log_dir_existed`: whether the log directory was there before this start
// (CheckLogsNotMissing).
absl::StatusOr<LobbyOptions> MakeLobbyOptions(
    const Paths& paths, bool log_dir_existed, const SigningKey& key,
    const std::string& admin_token, std::string* verifier_key,
    LogJournal::Recovery* journal_recovery) {
  LobbyOptions options;
  options.log_dir = paths.log_dir;
  options.referee_key = key;
  options.admin_token = admin_token;
  options.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  absl::StatusOr<FsyncPolicy> fsync =
      ParseFsyncPolicy(absl::GetFlag(FLAGS_fsync));
  if (!fsync.ok()) return fsync.status();
  options.fsync = *fsync;
  options.sync_threads = absl::GetFlag(FLAGS_sync_threads);  // CheckFlags.
  // Opened (and so replayed) whether it is used or not: a power loss may
  // have left logs that need it, whatever this run's flags. Its entries
  // name logs by their file names, replayed into this run's log directory
  // wherever --log_dir is: a log directory renamed after a crash is
  // repaired under its new name, and one that lacks a log the journal
  // holds bytes of stops the start, the journal kept.
  LogJournal::Options journal_options;
  journal_options.log_dir = paths.log_dir;
  absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(paths.journal_dir, std::move(journal_options));
  if (absl::IsDataLoss(journal.status())) {
    return absl::DataLossError(
        absl::StrCat(journal.status().message(),
                     "; the logs are looked for in --log_dir ", paths.log_dir));
  }
  if (!journal.ok()) return journal.status();
  *journal_recovery = (*journal)->recovery();
  if (absl::GetFlag(FLAGS_journal) && *fsync == FsyncPolicy::kCheckpoints &&
      options.sync_threads > 0) {
    options.journal = *std::move(journal);
  }
  options.ack_hold = absl::Milliseconds(absl::GetFlag(FLAGS_ack_hold_ms));
  absl::StatusOr<v1::ClockSettings> clocks = DefaultClocks();
  if (!clocks.ok()) return clocks.status();
  options.default_clocks = *clocks;
  // The tree first: whether it holds logs tells a lost registry from a
  // new one.
  absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog =
      OpenTlog(paths, key, verifier_key);
  if (!tlog.ok()) return tlog.status();
  if (absl::Status s = CheckRegistryNotLost(paths, (*tlog)->size()); !s.ok()) {
    return s;
  }
  options.tlog = *std::move(tlog);
  absl::StatusOr<std::unique_ptr<Registry>> registry =
      OpenSqliteRegistry(paths.registry);
  if (!registry.ok()) return registry.status();
  if (absl::Status s = CheckLogsNotMissing(paths, **registry, log_dir_existed);
      !s.ok()) {
    return s;
  }
  options.registry = *std::move(registry);
  options.checkpoint_every_matches =
      absl::GetFlag(FLAGS_checkpoint_every_matches);
  options.checkpoint_every =
      absl::Seconds(absl::GetFlag(FLAGS_checkpoint_every_s));
  options.max_live_matches = static_cast<int>(std::min<uint32_t>(
      absl::GetFlag(FLAGS_max_live_matches), std::numeric_limits<int>::max()));
  options.unique_labels = absl::GetFlag(FLAGS_unique_labels);
  return options;
}

ServiceLimits LimitsFromFlags() {
  ServiceLimits limits;
  limits.public_watch = absl::GetFlag(FLAGS_public_watch);
  limits.max_watchers = absl::GetFlag(FLAGS_max_watchers);
  limits.max_watchers_per_match = absl::GetFlag(FLAGS_max_watchers_per_match);
  limits.max_watchers_per_peer = absl::GetFlag(FLAGS_max_watchers_per_peer);
  limits.max_calls_per_peer =
      absl::GetFlag(FLAGS_max_calls_per_peer);  // CheckFlags.
  limits.watch_queue_bytes = absl::GetFlag(FLAGS_watch_queue_bytes);
  limits.batch_linger =
      absl::Microseconds(absl::GetFlag(FLAGS_batch_linger_us));
  limits.play_queues = absl::GetFlag(FLAGS_play_queues);          // CheckFlags.
  limits.max_log_readers = absl::GetFlag(FLAGS_max_log_readers);  // Ditto.
  limits.log_stall_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_log_stall_timeout_s));
  limits.write_stall_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_write_stall_timeout_s));  // CheckFlags.
  return limits;
}

// TLS with --tls_cert and --tls_key, else plaintext.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials() {
  if (absl::GetFlag(FLAGS_tls_cert).empty()) {
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<std::string> cert =
      ReadFileToString(absl::GetFlag(FLAGS_tls_cert));
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> pem_key =
      ReadFileToString(absl::GetFlag(FLAGS_tls_key));
  if (!pem_key.ok()) return pem_key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*pem_key, *cert});
  return grpc::SslServerCredentials(ssl);
}

// Serves `referee` and `health` on --listen; the port it got (for :0) in
// `port`.
absl::StatusOr<std::unique_ptr<grpc::Server>> Serve(RefereeService& referee,
                                                    HealthService& health,
                                                    int* port) {
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      Credentials();
  if (!credentials.ok()) return credentials.status();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, so that a second referee started on
  // an address already served would share its connections unnoticed: an
  // address in use is an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // A connection costs a file descriptor (accept_guard.h keeps the last of
  // them for the referee's files): one that never completes its opening,
  // or that holds no call for long, gives it back (docs/protocol.md).
  builder.AddChannelArgument(
      GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
      static_cast<int>(absl::GetFlag(FLAGS_handshake_timeout_s) * 1000));
  if (const uint32_t idle = absl::GetFlag(FLAGS_max_connection_idle_s);
      idle > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                               static_cast<int>(idle * 1000));  // CheckFlags.
  }
  // Server reflection, on gRPC's synchronous API, would start a thread per
  // open stream without bound; Play, Watch and the rest run on our own
  // queues and gRPC's callback threads, which this quota leaves alone.
  builder.SetResourceQuota(grpc::ResourceQuota("referee").SetMaxThreads(
      absl::GetFlag(FLAGS_max_reflection_threads)));  // CheckFlags.
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), *credentials, port);
  builder.SetMaxReceiveMessageSize(absl::GetFlag(FLAGS_max_message_bytes));
  referee.RegisterWith(builder);
  builder.RegisterService(&health);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || *port == 0) {
    // CheckFlags found the address free and the TLS files sound: the
    // address was taken since (asked again here, to say so), or gRPC
    // refused for a reason its log line above gives.
    if (absl::Status now = CheckListenAddress(absl::GetFlag(FLAGS_listen));
        !now.ok()) {
      return now;
    }
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen),
                     " (gRPC refused; its log line above says why)"));
  }
  referee.Start();
  return server;
}

// Writes --port_file, when set: the referee's last step of its start, after
// its banner, so that a script that waits for the file finds the banner
// whole on stdout (the registry's counts among it).
absl::Status WritePortFile(int port) {
  if (absl::GetFlag(FLAGS_port_file).empty()) return absl::OkStatus();
  if (!ListensOnPort(absl::GetFlag(FLAGS_listen))) port = 0;
  absl::Status s = WriteFileAtomically(absl::GetFlag(FLAGS_port_file),
                                       absl::StrCat(port, "\n"));
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("--port_file: ", s.message()));
}

void PrintBanner(int port, const Paths& paths, const Lobby& lobby,
                 const AcceptGuardSettings& descriptors,
                 const std::string& admin_source,
                 const RecoveryReport& recovered,
                 const LogJournal::Recovery& journal,
                 const std::string& verifier_key) {
  // The address as given with the port bound in place of 0; a Unix
  // socket's as given.
  std::string address = absl::GetFlag(FLAGS_listen);
  if (ListensOnPort(address)) {
    address = absl::StrCat(address.substr(0, address.rfind(':')), ":", port);
  }
  const std::string data_dir = paths.data_dir.string();
  std::cout << "referee listening on " << address
            << (absl::GetFlag(FLAGS_tls_cert).empty() ? " (plaintext)"
                                                      : " (TLS)")
            << "\n"
            << "  data dir:     " << data_dir << "\n"
            << "  logs:         " << paths.log_dir << "\n"
            << "  referee key:  " << paths.key_file << " (public "
            << ToHex(lobby.referee_public_key()) << ")\n"
            << "  admin token:  " << admin_source << "\n"
            << "  registry:     " << data_dir << "/registry.sqlite3 ("
            << recovered.finished << " ended, " << recovered.resumed
            << " resumed, " << recovered.broken
            << " found broken (not resumed), " << recovered.forgotten
            << " forgotten (their creation cut short), " << recovered.bots
            << " bots)\n"
            << "  tlog:         " << data_dir << "/tlog.sqlite3 ("
            << lobby.transparency_log()->size() << " sealed logs; checkpoints "
            << data_dir << "/checkpoint, verifier key " << verifier_key << ")\n"
            << "  journal:      " << data_dir << "/journal ("
            << (lobby.journal_in_use() ? "in use" : "not used") << "; replayed "
            << journal.files << " files left by the last run, "
            << journal.logs_repaired << " logs repaired)\n";
  for (const std::string& note : journal.notes) {
    std::cout << "  journal note: " << note << "\n";
  }
  // What a client can take of the file descriptors (accept_guard.h).
  std::cout << "  connections:  on file descriptors below "
            << descriptors.ceiling << " of the open-file limit "
            << descriptors.limit;
  if (descriptors.previous_limit != descriptors.limit) {
    std::cout << " (raised from " << descriptors.previous_limit << ")";
  }
  std::cout << "; the last " << descriptors.reserve
            << " are kept for logs and databases, a connection beyond is "
               "reset; one idle ";
  if (const uint32_t idle = absl::GetFlag(FLAGS_max_connection_idle_s);
      idle > 0) {
    std::cout << "for " << idle << " s is closed\n";
  } else {
    std::cout << "is never closed\n";
  }
  std::cout << std::flush;
}

// Says on stderr what its rate limits and a stalled stderr held back
// (accept_guard.h, library_log.h, messages.h): every 10 s, and at the end
// the rest, on a thread of its own. Its lines never wait for stderr's
// reader where stderr allows it (referee/files/stderr_line.h); a pipe /proc
// cannot open again (another user's) may block that thread, but neither
// the main thread's wait for SIGINT and SIGTERM nor the referee's exit:
// the final counts are waited for at most kFinalWait, then left unsaid.
class HeldBackReporter {
 public:
  static constexpr absl::Duration kEvery = absl::Seconds(10);
  static constexpr absl::Duration kFinalWait = absl::Seconds(5);

  // Start it once the rate limits are installed (InstallAcceptGuard,
  // LimitLibraryLogs: before any thread) and the signals blocked.
  HeldBackReporter() : thread_([state = state_] { Report(*state); }) {}
  // The final counts, waited for at most kFinalWait.
  ~HeldBackReporter() {
    state_->stop.Notify();
    if (state_->done.WaitForNotificationWithTimeout(kFinalWait)) {
      thread_.join();
    } else {
      thread_.detach();  // Blocked on stderr; its state is shared.
    }
  }
  HeldBackReporter(const HeldBackReporter&) = delete;
  HeldBackReporter& operator=(const HeldBackReporter&) = delete;

 private:
  struct State {
    absl::Notification stop;
    absl::Notification done;
  };
  static void Report(State& state) {
    while (!state.stop.WaitForNotificationWithTimeout(kEvery)) {
      FlushAcceptGuardReport(/*final=*/false);
      FlushLibraryLogs();
      FlushMessages();
    }
    FlushAcceptGuardReport(/*final=*/true);
    FlushLibraryLogs();
    FlushMessages();
    state.done.Notify();
  }

  // Shared with the thread, which may outlive the reporter (detached).
  const std::shared_ptr<State> state_ = std::make_shared<State>();
  std::thread thread_;
};

// Makes the referee's files, serves until SIGINT or SIGTERM, and returns
// the exit status; once it serves, keeps what it made (`rollback`).
int Run(const Paths& paths, const std::optional<SigningKey>& named_key,
        StartRollback& rollback, const sigset_t& signals,
        const AcceptGuardSettings& descriptors) {
  std::error_code looked;  // CreateDirectories names why it cannot make it.
  const bool log_dir_existed = std::filesystem::exists(paths.log_dir, looked);
  if (absl::Status s =
          rollback.CreateDirectories(paths.log_dir, "the log directory");
      !s.ok()) {
    return Fail(s);
  }
  absl::StatusOr<SigningKey> key = RefereeKey(paths, named_key);
  if (!key.ok()) return Fail(key.status());
  absl::StatusOr<std::pair<std::string, std::string>> admin =
      AdminToken(paths.admin_token_file);
  if (!admin.ok()) return Fail(admin.status());
  std::string verifier_key;
  LogJournal::Recovery journal_recovery;
  absl::StatusOr<LobbyOptions> options =
      MakeLobbyOptions(paths, log_dir_existed, *key, admin->first,
                       &verifier_key, &journal_recovery);
  if (!options.ok()) return Fail(options.status());
  Lobby lobby(*std::move(options));
  absl::StatusOr<RecoveryReport> recovered = lobby.Recover();
  if (!recovered.ok()) return Fail(recovered.status());
  RefereeService service(&lobby, LimitsFromFlags());
  // Our own health service (with descriptors reflection can serve) instead
  // of gRPC's built-in one.
  HealthService health({referee::v1::Referee::service_full_name(),
                        grpc::health::v1::Health::service_full_name(),
                        "grpc.reflection.v1alpha.ServerReflection"},
                       absl::GetFlag(FLAGS_max_health_watchers),
                       "--max_health_watchers", service.write_stalls());
  health.LimitWatchersPerPeer(
      absl::GetFlag(FLAGS_max_health_watchers_per_peer),  // CheckFlags.
      "--max_health_watchers_per_peer");
  health.LimitChecksPerPeer(
      absl::GetFlag(FLAGS_max_health_checks_per_peer),  // CheckFlags.
      "--max_health_checks_per_peer");
  int port = 0;
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      Serve(service, health, &port);
  if (!server.ok()) return Fail(server.status());
  PrintBanner(port, paths, lobby, descriptors, admin->second, *recovered,
              journal_recovery, verifier_key);
  if (absl::Status s = WritePortFile(port); !s.ok()) {
    (*server)->Shutdown();
    service.Stop();  // Before the server goes (RefereeService::Stop).
    return Fail(s);
  }
  rollback.Keep();

  // Until SIGINT or SIGTERM, and nothing else: what the rate limits on
  // stderr held back is said by the HeldBackReporter's thread, so that a
  // stalled stderr cannot keep this wait from taking the signal.
  int signal_number = -1;
  while (sigwait(&signals, &signal_number) != 0) {
  }
  health.SetServing(false);
  lobby.connections().CloseAll(grpc::StatusCode::UNAVAILABLE,
                               "the referee is shutting down");
  (*server)->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(2));
  service.Stop();
  // Last, once no Play message can arrive: no match seals after the
  // checkpoints it makes, so the transparency log's covers every sealed log.
  lobby.SuspendAll();
  // Only now, with every running match checkpointed: a stdout that does
  // not take the line (a pipe shared with a stalled stderr, `2>&1 |
  // collector`) may keep the referee from exiting, but loses nothing.
  std::cout << "referee: stopped (signal " << signal_number
            << "); running matches checkpointed\n"
            << std::flush;
  return 0;
}

int Main() {
  // Signals are taken by sigwait (Run); block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // Output piped into a program that ended (`referee | head`, a log
  // shipper restarting) must not kill the referee at its next stderr line,
  // in the middle of whatever it was doing: the write fails, the referee
  // goes on. (gRPC's sockets never raise SIGPIPE: MSG_NOSIGNAL.)
  signal(SIGPIPE, SIG_IGN);
  // Before any thread starts, as both ask: the soft open-file limit raised
  // to the hard one, and the guard on the listener's accept4; the messages
  // of protobuf and gRPC, which any client can cause, rate-limited
  // (library_log.h).
  const AcceptGuardSettings descriptors = InstallAcceptGuard();
  LimitLibraryLogs();
  // Until Main returns: the final counts after everything else.
  HeldBackReporter held_back;

  std::optional<SigningKey> named_key;  // --key_file's.
  if (absl::Status s = CheckFlags(named_key); !s.ok()) return Fail(s);
  const Paths paths = PathsFromFlags();
  // A broken match's reason, which anyone may read, names the files of the
  // journal and the data directory without their directories.
  SetPrivateDirectories({paths.journal_dir, paths.data_dir.string()});
  // What this start adds to the disk goes again if it fails (from the
  // first file on, once the lock is held): a referee that cannot start
  // leaves no new DATA_DIR, key or admin token behind.
  StartRollback rollback;
  // A DATA_DIR this start makes is 0700 (running logs hold seeds); an
  // existing one keeps its mode, for it may be shared ("." or a home
  // directory): what the referee writes there is 0600 itself.
  std::error_code looked;  // CreateDirectories names why it cannot make it.
  const bool data_dir_existed = std::filesystem::exists(paths.data_dir, looked);
  if (absl::Status s = rollback.CreateDirectories(paths.data_dir, "--data_dir");
      !s.ok()) {
    return Fail(s);
  }
  if (!data_dir_existed) chmod(paths.data_dir.c_str(), 0700);
  const bool had_lock_file = std::filesystem::exists(paths.lock_file);
  // Held until the process ends: no second referee on this DATA_DIR. (One
  // that holds it may have made DATA_DIR: refused, this start removes
  // nothing.)
  absl::StatusOr<DirectoryLock> lock =
      DirectoryLock::Acquire(paths.data_dir.string());
  if (!lock.ok()) return Fail(lock.status());
  // The names a start writes in DATA_DIR (with their temporary and SQLite
  // side files): nothing else there is removed if it fails, for DATA_DIR
  // may be shared with other programs' files.
  rollback.WatchDirectory(
      paths.data_dir,
      {kAdminTokenName, kCheckpointName, kJournalName, kLogsName, kKeyName,
       kRegistryName, kTlogName, kTlogVkeyName});
  if (!had_lock_file) rollback.Made(paths.lock_file);
  const int status = Run(paths, named_key, rollback, signals, descriptors);
  // Everything Run made is gone (its files closed) and the lock still held.
  rollback.Undo();
  return status;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(argc, argv,
                                "The pyramid referee gRPC service.");
  // Whatever ends it, the counts the rate limits on stderr held back are
  // said as Main returns (HeldBackReporter).
  return pyramid::Main();
}

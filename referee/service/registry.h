// What the referee keeps about its matches, bots and credentials so that a
// restart loses none of them (docs/durability.md): every match with its
// public description, log file name, status and (until its seed decision
// closes, the only secret) the referee's seed contribution; every bot; and
// every token, hashed. No plain-text token is ever stored.
//
// Behind this small interface so that a shared database could back a fleet
// of referees later; OpenSqliteRegistry is the embedded default. Every write
// is durable when it returns. Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_REGISTRY_H_
#define PYRAMID_REFEREE_SERVICE_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/service/token.h"

namespace pyramid {

struct StoredToken {
  std::string id;
  Digest secret_hash;
  Principal principal;  // Its route is not stored (routes are per process).
};

struct StoredBot {
  std::string bot_id;
  std::string name;
  std::string public_key;
  StoredToken token;
};

struct StoredMatch {
  // Its number in creation order (set when read back: LoadMatches,
  // FindMatch, ListMatches; increasing, not necessarily consecutive).
  int64_t seq = 0;
  // The match as GetMatch describes it: status (RUNNING until it ends),
  // outcome once finished (MATCH_BROKEN: why, broken_reason), seats,
  // clocks, policy, creation time.
  referee::v1::MatchInfo info;
  // The log's file name within the referee's log directory (--log_dir),
  // resolved against the log directory of the process that opens it, so
  // that a data directory moved or copied names its own logs. Written as a
  // file name, and a row an older referee wrote with a path holds its file
  // name since the registry's migration 4; whatever a row holds, a reader
  // takes its file name alone (log_format::LogFileName, Lobby::LogPath),
  // and a row holding none ("", a path ending in '/') names no log.
  std::string log_name;
  std::string referee_contribution;  // Empty once the match has ended.
  std::vector<StoredToken> seat_tokens;
  // Whether CreateMatch answered for the match (Registry::MarkAcknowledged,
  // once its log held its first checkpoint, before the answer): a restart
  // forgets a match whose log is missing or short only if it was not
  // (Lobby::RecoverMatch). kUnknown: recorded by a referee older than the
  // mark (before the SQLite registry's migration 5), which never said.
  enum class Acknowledged { kUnknown, kNo, kYes };
  Acknowledged acknowledged = Acknowledged::kNo;
};

class Registry {
 public:
  virtual ~Registry() = default;
  virtual absl::Status AddBot(const StoredBot& bot) = 0;
  // Records a new match (status RUNNING) before its log is written, with
  // its `acknowledged` as given (kNo for a new match).
  virtual absl::Status AddMatch(const StoredMatch& match) = 0;
  // Records that CreateMatch answered for the match `match_id` (its log
  // holds its first checkpoint, synced): StoredMatch::acknowledged kYes.
  virtual absl::Status MarkAcknowledged(const std::string& match_id) = 0;
  // Forgets a match and its seat tokens: one whose creation did not
  // complete (its log never reached its first checkpoint). The lobby
  // calls it after removing whatever log the creation wrote (at a restart,
  // only once that removal is durable).
  virtual absl::Status RemoveMatch(const std::string& match_id) = 0;
  // Records a match's end: `info` holds its final status and outcome (and
  // a broken match's reason). The seed contribution is forgotten (the log
  // holds it now).
  virtual absl::Status EndMatch(const referee::v1::MatchInfo& info) = 0;
  // Every bot, in registration order.
  virtual absl::StatusOr<std::vector<StoredBot>> LoadBots() const = 0;
  // At most `limit` matches, those created after the one whose seq is
  // `after` (0: from the first), in creation order, each with its seat
  // tokens: a restart reads the matches a page at a time, so that it never
  // holds every match the registry has ever recorded at once.
  virtual absl::StatusOr<std::vector<StoredMatch>> LoadMatches(
      int64_t after, int limit) const = 0;

  // Point queries: the referee keeps only its running matches in memory
  // and asks these of the matches that ended (Lobby), so that what it holds
  // does not grow with the matches it has hosted.
  //
  // The match `match_id`, without its seat tokens; NOT_FOUND when unknown.
  virtual absl::StatusOr<StoredMatch> FindMatch(
      const std::string& match_id) const = 0;
  // The id of the newest match created with `request_id`
  // (MatchInfo.request_id, not empty); NOT_FOUND when none.
  virtual absl::StatusOr<std::string> FindRequest(
      const std::string& request_id) const = 0;
  // Newest first: at most `limit` matches labelled `label` (not empty)
  // whose recorded status is not MATCH_BROKEN, created before the one whose
  // seq is `before` (0: from the newest), each with its seq and without its
  // seat tokens: the matches that may hold the label (Lobby, with
  // LobbyOptions::unique_labels). More than one only in a registry written
  // without that rule (unique_labels false, or a referee older than it).
  virtual absl::StatusOr<std::vector<StoredMatch>> FindLabelled(
      const std::string& label, int64_t before, int limit) const = 0;
  // The seat or bot token whose id is `id`; NOT_FOUND when unknown.
  virtual absl::StatusOr<StoredToken> FindToken(
      const std::string& id) const = 0;
  // Newest first: at most `limit` matches created before the one whose seq
  // is `before` (0: from the newest), only those whose recorded status is
  // `status` unless it is MATCH_STATUS_UNSPECIFIED, each with its seq and
  // without its seat tokens.
  virtual absl::StatusOr<std::vector<StoredMatch>> ListMatches(
      int64_t before, int limit, referee::v1::MatchStatus status) const = 0;

  // How many matches name a log that must be in the log directory: every
  // FINISHED match, and every RUNNING one not recorded as unacknowledged
  // (acknowledged kYes, or kUnknown: an older referee's, almost always
  // answered), each naming a log file (log_name neither empty nor ending
  // in '/'). A start refuses a log directory that holds no log while this
  // is above 0 (referee/main.cc): a disk not mounted, a wrong --log_dir.
  virtual absl::StatusOr<int64_t> CountLoggedMatches() const = 0;

  // The directory the registry's files are in, whose file system must have
  // room for it to record anything; empty for a registry in memory.
  virtual std::string dir() const { return ""; }
};

// A registry in memory: what a lobby without a durable registry keeps (its
// matches then end with the process). The same interface, so the lobby has
// one path for the matches that ended.
std::unique_ptr<Registry> NewMemoryRegistry();

// The embedded registry: a SQLite database at `path` (created 0600 if
// missing; WAL journal; synchronous writes), its schema versioned and
// migrated on open.
absl::StatusOr<std::unique_ptr<Registry>> OpenSqliteRegistry(
    const std::string& path);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_REGISTRY_H_

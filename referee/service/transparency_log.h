// The referee's transparency log (docs/transparency-log.md): an append-only
// RFC 9162 Merkle tree with one leaf per sealed match log, in the order the
// matches were sealed. A leaf's data is the 32-byte SHA-256 of the log file
// (canonical, so the hash identifies the match); its hash is
// SHA-256(0x00 ‖ that). The tree and every checkpoint it signed live in a
// SQLite database (DATA_DIR/tlog.sqlite3) and survive restarts; each append
// is durable when it returns. Checkpoints are C2SP signed notes by the
// referee's key under the log's origin. Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_TRANSPARENCY_LOG_H_
#define PYRAMID_REFEREE_SERVICE_TRANSPARENCY_LOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/sqlite_db.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/note.h"

namespace pyramid {

struct TlogLeaf {
  uint64_t index = 0;
  std::string match_id;  // 32 hex digits, as the API names matches.
  Digest log_sha256{};   // The leaf data.
};

class TransparencyLog {
 public:
  // Opens (or creates) the tree at `path`, owner-only (0600, see
  // SqliteDb::Open: its checkpoints are published elsewhere). `origin` names
  // the log in its checkpoints and is the note key name; the database remembers
  // the origin and key it was created with and refuses others (a log must never
  // sign under two identities), and refuses an origin of the referee's own
  // form that names another key (tlog::NamesAnotherRefereeKey).
  // `checkpoint_file`, if not empty, always
  // holds the latest signed checkpoint (replaced atomically), and the tree
  // opened must extend the checkpoint it holds, if any: hold at least its
  // size, with its root at that size. Else the tree was lost or replaced
  // (an older copy, one rebuilt in another order), and signing it would
  // fork the log: FAILED_PRECONDITION naming both files, both sizes and
  // the checkpoint's root, "restore PATH from a backup" (likewise when
  // the file holds no checkpoint signed by this identity).
  static absl::StatusOr<std::unique_ptr<TransparencyLog>> Open(
      const std::string& path, const SigningKey& key, std::string origin,
      std::string checkpoint_file = "");

  // When `status` is Open's refusal of another identity (FAILED_PRECONDITION,
  // naming both), the public key the log was started with (32 bytes), which
  // its caller may name where its users know it (the referee: a key file);
  // nullopt for any other status.
  static std::optional<std::string> StartedKeyOf(const absl::Status& status);

  // The default origin for a referee key: "pyramid-referee/" and the first
  // 16 hex digits of the key.
  static std::string DefaultOrigin(std::string_view public_key);

  // Appends the sealed log of `match_id` whose file hashes to `log_sha256`.
  // Idempotent: appending the same pair again returns the existing leaf.
  // FAILED_PRECONDITION when the match is already in the tree with another
  // hash, or the hash under another match.
  absl::StatusOr<TlogLeaf> Append(const std::string& match_id,
                                  const Digest& log_sha256);
  // Appends many in one transaction (benchmarks, recovery); same rules.
  absl::Status AppendAll(
      const std::vector<std::pair<std::string, Digest>>& leaves);

  uint64_t size() const;
  // Leaves not covered by the latest signed checkpoint.
  uint64_t unsigned_leaves() const;
  bool Contains(const std::string& match_id) const;
  // By match id (32 hex digits) or log SHA-256 (64 hex digits).
  absl::StatusOr<TlogLeaf> FindLeaf(std::string_view id_or_hash) const;

  // Signs a checkpoint of the current tree unless the latest one already
  // covers it; returns true when it signed.
  absl::StatusOr<bool> CheckpointIfGrown();
  // The signed checkpoint of exactly `tree_size` leaves, or with 0 the
  // latest, after CheckpointIfGrown (so it covers every sealed match).
  // NOT_FOUND when no checkpoint was signed at that size.
  absl::StatusOr<std::string> Checkpoint(uint64_t tree_size = 0);

  // The inclusion proof of `leaf` against the checkpoint of `tree_size`
  // (0: the latest, as Checkpoint(0)), as a tlog-proof (extra data: the
  // match id).
  absl::StatusOr<tlog::TlogProof> InclusionProof(const TlogLeaf& leaf,
                                                 uint64_t tree_size = 0);
  // RFC 9162 consistency proof; 0 < old_size <= new_size <= size().
  // INVALID_ARGUMENT when old_size is 0 or past new_size (wrong whatever
  // the tree); OUT_OF_RANGE, naming both sizes, when new_size is past
  // size() (valid once the tree has grown to it).
  absl::StatusOr<std::vector<Digest>> ConsistencyProof(uint64_t old_size,
                                                       uint64_t new_size);
  absl::StatusOr<Digest> RootHash(uint64_t tree_size);

  // The checkpoints' note verifier: the origin and the referee's key.
  const tlog::NoteVerifier& verifier() const { return verifier_; }

 private:
  TransparencyLog(std::unique_ptr<SqliteDb> db, SigningKey key,
                  std::string origin, std::string checkpoint_file);
  absl::Status Load();
  // Open's check of the tree at `path` against checkpoint_file_.
  absl::Status CheckExtendsCheckpointFile(const std::string& path);
  absl::StatusOr<TlogLeaf> AppendLocked(const std::string& match_id,
                                        const Digest& log_sha256)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Digest> Node(int level, uint64_t index) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PutNode(int level, uint64_t index, const Digest& hash)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `compute` with a SubtreeSource reading stored nodes; a storage
  // error becomes the result.
  template <typename T, typename F>
  absl::StatusOr<T> WithNodes(F compute) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<bool> CheckpointIfGrownLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::string> CheckpointLocked(uint64_t tree_size)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TlogLeaf> LeafWhere(const char* sql,
                                     std::string_view key) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SigningKey key_;
  const tlog::NoteVerifier verifier_;
  const std::string checkpoint_file_;

  mutable absl::Mutex mu_;
  const std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
  uint64_t size_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t checkpoint_size_ ABSL_GUARDED_BY(mu_) = 0;  // Latest signed.
  bool has_checkpoint_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_TRANSPARENCY_LOG_H_

#include "referee/service/transparency_log.h"

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/core/log_sink.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/merkle.h"
#include "referee/tlog/text.h"

namespace pyramid {
namespace {

// The schema, version by version (see SqliteDb::Open).
//   leaves: one row per sealed log, idx from 0 with no gaps.
//   nodes: every complete subtree hash; (level, idx) covers leaves
//     [idx << level, (idx + 1) << level). Level 0 holds the leaf hashes.
//   checkpoints: every signed checkpoint note, by tree size.
//   identity: the origin and key the log signs as (one row).
constexpr const char* kMigrations[] = {
    R"sql(
    CREATE TABLE leaves (
      idx INTEGER PRIMARY KEY,
      match_id TEXT NOT NULL UNIQUE,
      log_sha256 BLOB NOT NULL UNIQUE,
      appended_unix_ms INTEGER NOT NULL);
    CREATE TABLE nodes (
      level INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      hash BLOB NOT NULL,
      PRIMARY KEY (level, idx)) WITHOUT ROWID;
    CREATE TABLE checkpoints (
      size INTEGER PRIMARY KEY,
      note TEXT NOT NULL,
      signed_unix_ms INTEGER NOT NULL);
    CREATE TABLE identity (
      origin TEXT NOT NULL,
      public_key BLOB NOT NULL);
    )sql",
};

// The payload of Open's refusal of another identity: the key the log was
// started with (StartedKeyOf).
constexpr char kStartedKeyPayload[] = "pyramid.referee/tlog-started-key";

// A checkpoint note is a few hundred bytes; a checkpoint file larger than
// this holds no checkpoint (and is not read whole).
constexpr uint64_t kMaxCheckpointFileBytes = 64 << 10;

}  // namespace

std::optional<std::string> TransparencyLog::StartedKeyOf(
    const absl::Status& status) {
  if (!absl::IsFailedPrecondition(status)) return std::nullopt;
  const auto key = status.GetPayload(kStartedKeyPayload);
  if (!key.has_value()) return std::nullopt;
  return std::string(*key);
}

std::string TransparencyLog::DefaultOrigin(std::string_view public_key) {
  return tlog::RefereeOrigin(public_key);
}

TransparencyLog::TransparencyLog(std::unique_ptr<SqliteDb> db, SigningKey key,
                                 std::string origin,
                                 std::string checkpoint_file)
    : key_(std::move(key)),
      verifier_{std::move(origin), key_.public_key()},
      checkpoint_file_(std::move(checkpoint_file)),
      db_(std::move(db)) {}

absl::StatusOr<std::unique_ptr<TransparencyLog>> TransparencyLog::Open(
    const std::string& path, const SigningKey& key, std::string origin,
    std::string checkpoint_file) {
  if (!tlog::IsValidKeyName(origin)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad transparency log origin \"", origin,
                     "\": it must be non-empty, without spaces or '+'"));
  }
  if (tlog::NamesAnotherRefereeKey(origin, key.public_key())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad transparency log origin \"", origin,
        "\": an origin beginning pyramid-referee/ names a referee's key, and "
        "this referee's is ",
        DefaultOrigin(key.public_key()),
        " (a verifier that pins its key refuses checkpoints under another)"));
  }
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(path, kMigrations, "transparency log");
  if (!db.ok()) return db.status();
  std::unique_ptr<TransparencyLog> log(new TransparencyLog(
      *std::move(db), key, std::move(origin), std::move(checkpoint_file)));
  if (absl::Status s = log->Load(); !s.ok()) return s;
  if (absl::Status s = log->CheckExtendsCheckpointFile(path); !s.ok()) {
    return s;
  }
  return log;
}

absl::Status TransparencyLog::CheckExtendsCheckpointFile(
    const std::string& path) {
  if (checkpoint_file_.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> note =
      ReadFileToString(checkpoint_file_, kMaxCheckpointFileBytes);
  if (absl::IsNotFound(note.status())) return absl::OkStatus();
  if (!note.ok()) {
    return absl::Status(note.status().code(),
                        absl::StrCat("transparency log: the last checkpoint: ",
                                     note.status().message()));
  }
  const std::string next_step =
      absl::StrCat("restore ", path,
                   " from a backup (signing a new tree would fork the "
                   "log)");
  absl::StatusOr<tlog::Checkpoint> last =
      tlog::OpenCheckpoint(*note, verifier_);
  if (!last.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "transparency log: ", checkpoint_file_,
        " holds no checkpoint this log signed (", verifier_.name, " with key ",
        ToHex(verifier_.public_key), "; ", last.status().message(),
        "), yet it is the last one signed here: ", next_step,
        ", with the key and origin that signed it"));
  }
  absl::MutexLock lock(&mu_);
  std::string tree = absl::StrCat(path, " holds ", size_, " logs");
  if (size_ >= last->size) {
    absl::StatusOr<Digest> root =
        WithNodes<Digest>([&](tlog::SubtreeSource source) {
          return tlog::RootHash(last->size, source);
        });
    if (!root.ok()) return root.status();
    if (*root == last->root) return absl::OkStatus();
    absl::StrAppend(&tree, ", whose first ", last->size, " have another root,");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("transparency log: ", tree, " but ", checkpoint_file_,
                   ", signed by this key, holds ", last->size, " with root ",
                   absl::Base64Escape(absl::string_view(
                       AsView(last->root).data(), last->root.size())),
                   ": the tree was lost or replaced; ", next_step));
}

absl::Status TransparencyLog::Load() {
  absl::MutexLock lock(&mu_);
  SqliteStatement identity(db_->get(),
                           "SELECT origin, public_key FROM identity;");
  if (!identity.ok()) return db_->Error("identity");
  if (const int rc = identity.Step(); rc == SQLITE_ROW) {
    const std::string origin = identity.ColumnBytes(0);
    const std::string key = identity.ColumnBytes(1);
    if (origin != verifier_.name || key != verifier_.public_key) {
      absl::Status refused = absl::FailedPreconditionError(absl::StrCat(
          "the transparency log was started as ", origin, " with key ",
          ToHex(key), "; this referee signs as ", verifier_.name, " with key ",
          ToHex(verifier_.public_key),
          " (a log must never sign under two identities)"));
      refused.SetPayload(kStartedKeyPayload, absl::Cord(key));
      return refused;
    }
  } else if (rc == SQLITE_DONE) {
    SqliteStatement insert(
        db_->get(), "INSERT INTO identity (origin, public_key) VALUES (?, ?);");
    if (!insert.ok() ||
        insert.Text(1, verifier_.name).Blob(2, verifier_.public_key).Step() !=
            SQLITE_DONE) {
      return db_->Error("identity");
    }
  } else {
    return db_->Error("identity");
  }
  SqliteStatement count(db_->get(), "SELECT COUNT(*) FROM leaves;");
  if (!count.ok() || count.Step() != SQLITE_ROW) return db_->Error("size");
  size_ = static_cast<uint64_t>(count.ColumnInt(0));
  SqliteStatement latest(db_->get(), "SELECT MAX(size) FROM checkpoints;");
  if (!latest.ok() || latest.Step() != SQLITE_ROW) {
    return db_->Error("checkpoints");
  }
  const std::string max = latest.ColumnBytes(0);
  has_checkpoint_ = !max.empty();
  checkpoint_size_ = has_checkpoint_ ? latest.ColumnInt(0) : 0;
  return absl::OkStatus();
}

uint64_t TransparencyLog::size() const {
  absl::MutexLock lock(&mu_);
  return size_;
}

uint64_t TransparencyLog::unsigned_leaves() const {
  absl::MutexLock lock(&mu_);
  return size_ - checkpoint_size_;
}

absl::StatusOr<TlogLeaf> TransparencyLog::Append(const std::string& match_id,
                                                 const Digest& log_sha256) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = db_->Begin(); !s.ok()) return s;
  const uint64_t size_before = size_;
  absl::StatusOr<TlogLeaf> leaf = AppendLocked(match_id, log_sha256);
  if (absl::Status s = db_->Finish(leaf.status()); !s.ok()) {
    size_ = size_before;
    return s;
  }
  return leaf;
}

absl::Status TransparencyLog::AppendAll(
    const std::vector<std::pair<std::string, Digest>>& leaves) {
  absl::MutexLock lock(&mu_);
  if (absl::Status s = db_->Begin(); !s.ok()) return s;
  const uint64_t size_before = size_;
  absl::Status status;
  for (const auto& [match_id, hash] : leaves) {
    if (status = AppendLocked(match_id, hash).status(); !status.ok()) break;
  }
  if (absl::Status s = db_->Finish(status); !s.ok()) {
    size_ = size_before;
    return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<TlogLeaf> TransparencyLog::AppendLocked(
    const std::string& match_id, const Digest& log_sha256) {
  // Already there?
  ScopedStatement existing = db_->Prepared(
      "SELECT idx, match_id, log_sha256 FROM leaves "
      "WHERE match_id = ? OR log_sha256 = ?;");
  if (!existing->ok()) return db_->Error("append");
  existing->Text(1, match_id).Blob(2, AsView(log_sha256));
  if (const int rc = existing->Step(); rc == SQLITE_ROW) {
    TlogLeaf leaf{static_cast<uint64_t>(existing->ColumnInt(0)),
                  existing->ColumnBytes(1),
                  {}};
    DigestFromBytes(existing->ColumnBytes(2), &leaf.log_sha256);
    if (leaf.match_id == match_id && leaf.log_sha256 == log_sha256) {
      return leaf;
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "the transparency log already holds ",
        leaf.match_id == match_id
            ? absl::StrCat("match ", match_id, " with another log hash (",
                           ToHex(AsView(leaf.log_sha256)), ")")
            : absl::StrCat("log hash ", ToHex(AsView(log_sha256)),
                           " under match ", leaf.match_id)));
  } else if (rc != SQLITE_DONE) {
    return db_->Error("append");
  }
  const uint64_t index = size_;
  ScopedStatement insert = db_->Prepared(
      "INSERT INTO leaves (idx, match_id, log_sha256, "
      "appended_unix_ms) VALUES (?, ?, ?, ?);");
  if (!insert->ok() || insert->Int(1, static_cast<int64_t>(index))
                               .Text(2, match_id)
                               .Blob(3, AsView(log_sha256))
                               .Int(4, absl::ToUnixMillis(absl::Now()))
                               .Step() != SQLITE_DONE) {
    return db_->Error("append");
  }
  // The leaf, then every subtree it completes.
  Digest hash = tlog::LeafHash(AsView(log_sha256));
  if (absl::Status s = PutNode(0, index, hash); !s.ok()) return s;
  for (int level = 0; ((index >> level) & 1) == 1; ++level) {
    absl::StatusOr<Digest> left = Node(level, (index >> level) - 1);
    if (!left.ok()) return left.status();
    hash = tlog::NodeHash(*left, hash);
    if (absl::Status s = PutNode(level + 1, index >> (level + 1), hash);
        !s.ok()) {
      return s;
    }
  }
  size_ = index + 1;
  return TlogLeaf{index, match_id, log_sha256};
}

absl::StatusOr<Digest> TransparencyLog::Node(int level, uint64_t index) const {
  ScopedStatement select =
      db_->Prepared("SELECT hash FROM nodes WHERE level = ? AND idx = ?;");
  Digest hash{};
  if (!select->ok() ||
      select->Int(1, level).Int(2, static_cast<int64_t>(index)).Step() !=
          SQLITE_ROW ||
      !DigestFromBytes(select->ColumnBytes(0), &hash)) {
    return absl::DataLossError(
        absl::StrCat("transparency log: the tree node at level ", level,
                     " index ", index, " is missing or damaged"));
  }
  return hash;
}

absl::Status TransparencyLog::PutNode(int level, uint64_t index,
                                      const Digest& hash) {
  ScopedStatement insert =
      db_->Prepared("INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?);");
  if (!insert->ok() || insert->Int(1, level)
                               .Int(2, static_cast<int64_t>(index))
                               .Blob(3, AsView(hash))
                               .Step() != SQLITE_DONE) {
    return db_->Error("append");
  }
  return absl::OkStatus();
}

template <typename T, typename F>
absl::StatusOr<T> TransparencyLog::WithNodes(F compute) const {
  absl::Status error;
  auto source = [&](int level, uint64_t index) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    absl::StatusOr<Digest> node = Node(level, index);
    if (!node.ok()) {
      error.Update(node.status());
      return Digest{};
    }
    return *node;
  };
  T result = compute(tlog::SubtreeSource(source));
  if (!error.ok()) return error;
  return result;
}

bool TransparencyLog::Contains(const std::string& match_id) const {
  absl::MutexLock lock(&mu_);
  return LeafWhere("match_id = ?", match_id).ok();
}

absl::StatusOr<TlogLeaf> TransparencyLog::LeafWhere(
    const char* sql, std::string_view key) const {
  ScopedStatement select = db_->Prepared(absl::StrCat(
      "SELECT idx, match_id, log_sha256 FROM leaves WHERE ", sql, ";"));
  if (!select->ok()) return db_->Error("find");
  if (std::string_view(sql).find("log_sha256") != std::string_view::npos) {
    select->Blob(1, key);
  } else {
    select->Text(1, key);
  }
  const int rc = select->Step();
  if (rc == SQLITE_DONE) return absl::NotFoundError("not in the tree");
  if (rc != SQLITE_ROW) return db_->Error("find");
  TlogLeaf leaf{
      static_cast<uint64_t>(select->ColumnInt(0)), select->ColumnBytes(1), {}};
  if (!DigestFromBytes(select->ColumnBytes(2), &leaf.log_sha256)) {
    return absl::DataLossError("transparency log: a leaf hash is damaged");
  }
  return leaf;
}

absl::StatusOr<TlogLeaf> TransparencyLog::FindLeaf(
    std::string_view id_or_hash) const {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<TlogLeaf> leaf = absl::NotFoundError("");
  if (id_or_hash.size() == 64) {
    absl::StatusOr<std::string> hash = FromHex(id_or_hash);
    if (hash.ok()) leaf = LeafWhere("log_sha256 = ?", *hash);
  } else {
    leaf = LeafWhere("match_id = ?", id_or_hash);
  }
  if (absl::IsNotFound(leaf.status())) {
    // Named as what it was taken for (a caller of the API gave a hash as
    // its 32 bytes, which arrive here in hex); longer than a hash is
    // neither: named by its length, not repeated.
    const std::string named =
        id_or_hash.size() == 64
            ? absl::StrCat("SHA-256 ", std::string(id_or_hash))
        : id_or_hash.size() < 64
            ? absl::StrCat("match ", std::string(id_or_hash))
            : absl::StrCat("a key of ", id_or_hash.size(), " bytes");
    return absl::NotFoundError(absl::StrCat(
        "no sealed log of ", named,
        " is in the transparency log (a match enters when its log is "
        "sealed)"));
  }
  return leaf;
}

absl::StatusOr<bool> TransparencyLog::CheckpointIfGrown() {
  absl::MutexLock lock(&mu_);
  return CheckpointIfGrownLocked();
}

absl::StatusOr<bool> TransparencyLog::CheckpointIfGrownLocked() {
  if (has_checkpoint_ && checkpoint_size_ == size_) return false;
  absl::StatusOr<Digest> root =
      WithNodes<Digest>([&](tlog::SubtreeSource source) {
        return tlog::RootHash(size_, source);
      });
  if (!root.ok()) return root.status();
  absl::StatusOr<std::string> note =
      tlog::SignNote(tlog::FormatCheckpoint({verifier_.name, size_, *root}),
                     verifier_.name, key_);
  if (!note.ok()) return note.status();
  SqliteStatement insert(db_->get(),
                         "INSERT OR REPLACE INTO checkpoints (size, note, "
                         "signed_unix_ms) VALUES (?, ?, ?);");
  if (!insert.ok() || insert.Int(1, static_cast<int64_t>(size_))
                              .Text(2, *note)
                              .Int(3, absl::ToUnixMillis(absl::Now()))
                              .Step() != SQLITE_DONE) {
    return db_->Error("checkpoint");
  }
  has_checkpoint_ = true;
  checkpoint_size_ = size_;
  if (!checkpoint_file_.empty()) {
    if (absl::Status s = WriteFileAtomically(checkpoint_file_, *note);
        !s.ok()) {
      return s;
    }
  }
  return true;
}

absl::StatusOr<std::string> TransparencyLog::Checkpoint(uint64_t tree_size) {
  absl::MutexLock lock(&mu_);
  return CheckpointLocked(tree_size);
}

absl::StatusOr<std::string> TransparencyLog::CheckpointLocked(
    uint64_t tree_size) {
  if (tree_size == 0) {
    if (absl::StatusOr<bool> s = CheckpointIfGrownLocked(); !s.ok()) {
      return s.status();
    }
    tree_size = checkpoint_size_;
  }
  SqliteStatement select(db_->get(),
                         "SELECT note FROM checkpoints WHERE size = ?;");
  if (!select.ok()) return db_->Error("checkpoint");
  const int rc = select.Int(1, static_cast<int64_t>(tree_size)).Step();
  if (rc == SQLITE_ROW) return select.ColumnBytes(0);
  if (rc != SQLITE_DONE) return db_->Error("checkpoint");
  return absl::NotFoundError(
      absl::StrCat("no checkpoint was signed at tree size ", tree_size,
                   "; the latest is at size ", checkpoint_size_));
}

absl::StatusOr<tlog::TlogProof> TransparencyLog::InclusionProof(
    const TlogLeaf& leaf, uint64_t tree_size) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::string> note = CheckpointLocked(tree_size);
  if (!note.ok()) return note.status();
  absl::StatusOr<tlog::Checkpoint> checkpoint = tlog::ParseCheckpoint(
      std::string_view(*note).substr(0, note->rfind("\n\n") + 1));
  if (!checkpoint.ok()) return checkpoint.status();
  if (leaf.index >= checkpoint->size) {
    return absl::FailedPreconditionError(
        absl::StrCat("match ", leaf.match_id, " is leaf ", leaf.index,
                     ", after the checkpoint of size ", checkpoint->size));
  }
  absl::StatusOr<std::vector<Digest>> hashes =
      WithNodes<std::vector<Digest>>([&](tlog::SubtreeSource source) {
        return tlog::InclusionProof(leaf.index, checkpoint->size, source);
      });
  if (!hashes.ok()) return hashes.status();
  return tlog::TlogProof{leaf.match_id, leaf.index, *std::move(hashes),
                         *std::move(note)};
}

absl::StatusOr<std::vector<Digest>> TransparencyLog::ConsistencyProof(
    uint64_t old_size, uint64_t new_size) {
  absl::MutexLock lock(&mu_);
  if (old_size == 0 || old_size > new_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("a consistency proof needs 0 < OLD <= NEW <= ", size_,
                     " (the tree's size); got ", old_size, " and ", new_size));
  }
  // A size the tree may still reach: OUT_OF_RANGE, not a request that is
  // wrong whatever the tree.
  if (new_size > size_) {
    return absl::OutOfRangeError(
        absl::StrCat("the new size ", new_size, " is past the tree's size ",
                     size_, " (a consistency proof needs NEW <= ", size_,
                     "; the tree grows as matches seal)"));
  }
  return WithNodes<std::vector<Digest>>([&](tlog::SubtreeSource source) {
    return tlog::ConsistencyProof(old_size, new_size, source);
  });
}

absl::StatusOr<Digest> TransparencyLog::RootHash(uint64_t tree_size) {
  absl::MutexLock lock(&mu_);
  if (tree_size > size_) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tree has ", size_, " leaves, not ", tree_size));
  }
  return WithNodes<Digest>([&](tlog::SubtreeSource source) {
    return tlog::RootHash(tree_size, source);
  });
}

}  // namespace pyramid

// TransparencyLog: the stored tree agrees with an in-memory one at every
// size, its proofs verify against its signed checkpoints, it survives a
// reopen, refuses to fork or to sign under another identity, and keeps the
// latest checkpoint in a file, which a tree opened must extend.
#include "referee/service/transparency_log.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/sha256.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/merkle.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::HasSubstr;

std::string MatchId(int i) {
  std::string id = ToHex(AsView(Sha256("match " + std::to_string(i))));
  return id.substr(0, 32);
}

Digest LogHash(int i) { return Sha256("log " + std::to_string(i)); }

class TransparencyLogTest : public ::testing::Test {
 protected:
  TransparencyLogTest() : key_(SigningKey::Generate()) {}

  std::unique_ptr<TransparencyLog> Open(
      const std::string& origin = "test/log") {
    absl::StatusOr<std::unique_ptr<TransparencyLog>> log =
        TransparencyLog::Open(dir_.File("tlog.sqlite3"), key_, origin,
                              dir_.File("checkpoint"));
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? *std::move(log) : nullptr;
  }

  TempDir dir_{"tlogtest"};
  SigningKey key_;
};

TEST_F(TransparencyLogTest, ProofsAtEverySizeVerifyAgainstSignedCheckpoints) {
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_NE(log, nullptr);
  tlog::MemoryTree reference;
  std::vector<tlog::Checkpoint> checkpoints;
  for (int i = 0; i < 40; ++i) {
    absl::StatusOr<TlogLeaf> leaf = log->Append(MatchId(i), LogHash(i));
    ASSERT_TRUE(leaf.ok()) << leaf.status();
    EXPECT_EQ(leaf->index, static_cast<uint64_t>(i));
    reference.Append(tlog::LeafHash(AsView(LogHash(i))));
    ASSERT_EQ(*log->RootHash(i + 1), reference.Root());

    absl::StatusOr<std::string> note = log->Checkpoint();
    ASSERT_TRUE(note.ok()) << note.status();
    absl::StatusOr<tlog::Checkpoint> checkpoint =
        tlog::OpenCheckpoint(*note, log->verifier());
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
    EXPECT_EQ(checkpoint->size, static_cast<uint64_t>(i + 1));
    EXPECT_EQ(checkpoint->root, reference.Root());
    EXPECT_EQ(*ReadFileToString(dir_.File("checkpoint")), *note);
    checkpoints.push_back(*checkpoint);

    // Every earlier leaf is included in this checkpoint.
    for (int j = 0; j <= i; ++j) {
      absl::StatusOr<TlogLeaf> found = log->FindLeaf(MatchId(j));
      ASSERT_TRUE(found.ok());
      absl::StatusOr<tlog::TlogProof> proof = log->InclusionProof(*found);
      ASSERT_TRUE(proof.ok()) << proof.status();
      EXPECT_EQ(proof->extra, MatchId(j));
      EXPECT_EQ(proof->checkpoint, *note);
      EXPECT_TRUE(tlog::VerifyInclusion(proof->index, checkpoint->size,
                                        tlog::LeafHash(AsView(LogHash(j))),
                                        proof->hashes, checkpoint->root));
    }
    // Every earlier checkpoint is consistent with this one.
    for (const tlog::Checkpoint& old : checkpoints) {
      absl::StatusOr<std::vector<Digest>> proof =
          log->ConsistencyProof(old.size, checkpoint->size);
      ASSERT_TRUE(proof.ok()) << proof.status();
      EXPECT_TRUE(tlog::VerifyConsistency(old.size, checkpoint->size, old.root,
                                          checkpoint->root, *proof));
    }
  }
  // An older checkpoint is still served, and proofs against it verify.
  absl::StatusOr<TlogLeaf> leaf = log->FindLeaf(MatchId(3));
  absl::StatusOr<tlog::TlogProof> proof = log->InclusionProof(*leaf, 10);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_TRUE(tlog::VerifyInclusion(3, 10, tlog::LeafHash(AsView(LogHash(3))),
                                    proof->hashes, checkpoints[9].root));
  EXPECT_THAT(
      log->InclusionProof(*log->FindLeaf(MatchId(20)), 10).status().message(),
      HasSubstr("after the checkpoint of size 10"));
}

TEST_F(TransparencyLogTest, FindsLeavesByMatchIdOrLogHash) {
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_TRUE(log->Append(MatchId(0), LogHash(0)).ok());
  ASSERT_TRUE(log->Append(MatchId(1), LogHash(1)).ok());
  EXPECT_EQ(log->FindLeaf(MatchId(1))->index, 1u);
  EXPECT_EQ(log->FindLeaf(ToHex(AsView(LogHash(1))))->index, 1u);
  EXPECT_TRUE(absl::IsNotFound(log->FindLeaf(MatchId(2)).status()));
  EXPECT_TRUE(absl::IsNotFound(log->FindLeaf("nonsense").status()));
  // Named as what it was taken for.
  EXPECT_EQ(log->FindLeaf(MatchId(2)).status().message(),
            absl::StrCat("no sealed log of match ", MatchId(2),
                         " is in the transparency log (a match enters when "
                         "its log is sealed)"));
  const std::string other_hash = ToHex(AsView(LogHash(2)));
  EXPECT_EQ(log->FindLeaf(other_hash).status().message(),
            absl::StrCat("no sealed log of SHA-256 ", other_hash,
                         " is in the transparency log (a match enters when "
                         "its log is sealed)"));
}

TEST_F(TransparencyLogTest, SurvivesAReopen) {
  Digest root;
  std::string note;
  {
    std::unique_ptr<TransparencyLog> log = Open();
    for (int i = 0; i < 13; ++i)
      ASSERT_TRUE(log->Append(MatchId(i), LogHash(i)).ok());
    note = *log->Checkpoint();
    root = *log->RootHash(13);
  }
  std::unique_ptr<TransparencyLog> log = Open();
  EXPECT_EQ(log->size(), 13u);
  EXPECT_EQ(*log->RootHash(13), root);
  // Nothing grew: the same checkpoint, not a new signature.
  EXPECT_FALSE(*log->CheckpointIfGrown());
  EXPECT_EQ(*log->Checkpoint(), note);
  ASSERT_TRUE(log->Append(MatchId(13), LogHash(13)).ok());
  EXPECT_TRUE(*log->CheckpointIfGrown());
  EXPECT_EQ(*log->Checkpoint(13), note);
}

// The tree as opened must extend the last checkpoint it signed, which
// the checkpoint file keeps outside the database: a tree lost (a new, empty
// one), replaced by an older copy or by another tree of the same size
// (rebuilt in another order) would sign a second checkpoint of a size
// already signed, with another root: a fork of the log, under its key.
// Each is refused, naming both sizes and the checkpoint's root; a tree
// that grew past the checkpoint (a checkpoint not yet signed) opens.
class TransparencyLogCheckpointFileTest : public TransparencyLogTest {
 protected:
  // Signs a checkpoint of a tree of the leaves `order` names, in that
  // order, and closes it.
  void MakeTree(const std::vector<int>& order) {
    std::unique_ptr<TransparencyLog> log = Open();
    ASSERT_NE(log, nullptr);
    for (int i : order) ASSERT_TRUE(log->Append(MatchId(i), LogHash(i)).ok());
    ASSERT_TRUE(log->CheckpointIfGrown().ok());
  }
  // Removes the tree's database (and its side files).
  void RemoveTree() {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(dir_.File("tlog.sqlite3") + suffix);
    }
  }
  // Copies the tree's database (closed: no side file) to or from `name`.
  void CopyTree(const std::string& from, const std::string& to) {
    std::filesystem::copy_file(
        dir_.File(from), dir_.File(to),
        std::filesystem::copy_options::overwrite_existing);
  }
  absl::Status OpenStatus() {
    return TransparencyLog::Open(dir_.File("tlog.sqlite3"), key_, "test/log",
                                 dir_.File("checkpoint"))
        .status();
  }
  // The root, in base64, of the checkpoint in the checkpoint file.
  std::string CheckpointRoot() {
    absl::StatusOr<std::string> note =
        ReadFileToString(dir_.File("checkpoint"));
    EXPECT_TRUE(note.ok()) << note.status();
    std::vector<std::string> lines;
    for (size_t at = 0, end; note.ok() && at < note->size(); at = end + 1) {
      end = note->find('\n', at);
      lines.push_back(note->substr(at, end - at));
    }
    return lines.size() > 2 ? lines[2] : "";
  }
};

TEST_F(TransparencyLogCheckpointFileTest, ALostTreeIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeTree({0, 1, 2}));
  RemoveTree();
  const absl::Status refused = OpenStatus();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(
      refused.message(),
      absl::StrCat("transparency log: ", dir_.File("tlog.sqlite3"),
                   " holds 0 logs but ", dir_.File("checkpoint"),
                   ", signed by this key, holds 3 with root ", CheckpointRoot(),
                   ": the tree was lost or replaced; restore ",
                   dir_.File("tlog.sqlite3"),
                   " from a backup (signing a new tree would fork the "
                   "log)"));
  // A tree that was never checkpointed (no file) is a new one.
  std::filesystem::remove(dir_.File("checkpoint"));
  RemoveTree();
  EXPECT_TRUE(OpenStatus().ok());
}

TEST_F(TransparencyLogCheckpointFileTest, AnOlderCopyIsRefusedANewerOneOpens) {
  ASSERT_NO_FATAL_FAILURE(MakeTree({0, 1}));
  CopyTree("tlog.sqlite3", "old.sqlite3");
  const std::string old_checkpoint = *ReadFileToString(dir_.File("checkpoint"));
  ASSERT_NO_FATAL_FAILURE(MakeTree({2, 3, 4}));  // Now 5.
  CopyTree("tlog.sqlite3", "new.sqlite3");
  CopyTree("old.sqlite3", "tlog.sqlite3");
  const absl::Status refused = OpenStatus();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr(" holds 2 logs but " + dir_.File("checkpoint") +
                        ", signed by this key, holds 5 with root "));
  // The newer tree, with the file of an older checkpoint (the newer's
  // signature lost): it extends it.
  CopyTree("new.sqlite3", "tlog.sqlite3");
  ASSERT_TRUE(
      WriteFileAtomically(dir_.File("checkpoint"), old_checkpoint).ok());
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->size(), 5u);
}

TEST_F(TransparencyLogCheckpointFileTest, ATreeRebuiltInAnotherOrderIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeTree({0, 1, 2}));
  const std::string root = CheckpointRoot();
  RemoveTree();
  // As the referee would have rebuilt it from its registry: the same logs
  // in another order, another root at the same size.
  {
    absl::StatusOr<std::unique_ptr<TransparencyLog>> log =
        TransparencyLog::Open(dir_.File("tlog.sqlite3"), key_, "test/log");
    ASSERT_TRUE(log.ok()) << log.status();
    for (int i : {2, 0, 1}) {
      ASSERT_TRUE((*log)->Append(MatchId(i), LogHash(i)).ok());
    }
  }
  const absl::Status refused = OpenStatus();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr(" holds 3 logs, whose first 3 have another root, but " +
                        dir_.File("checkpoint") +
                        ", signed by this key, holds 3 with root " + root));
}

// A checkpoint file that no key of this log signed (here one of another
// key: the tree and the key both lost) is the last checkpoint of this data
// directory all the same: refused, not overwritten.
TEST_F(TransparencyLogCheckpointFileTest, ACheckpointOfAnotherKeyIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeTree({0}));
  RemoveTree();
  key_ = SigningKey::Generate();
  const absl::Status refused = OpenStatus();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr("transparency log: " + dir_.File("checkpoint") +
                        " holds no checkpoint this log signed"));
  EXPECT_THAT(refused.message(), HasSubstr("(signing a new tree would fork"));
}

// Owner-only: another user who could open it read-only could take a shared
// fcntl lock on it, which SQLite honours, and stall every append. Opened
// through SqliteDb::Open, whose test (sqlite_db_test.cc) checks the modes,
// side files included.
TEST_F(TransparencyLogTest, IsOpenedOwnerOnly) {
  ASSERT_NE(Open(), nullptr);
  EXPECT_EQ(
      static_cast<int>(
          std::filesystem::status(dir_.File("tlog.sqlite3")).permissions()),
      0600);
}

TEST_F(TransparencyLogTest, AppendIsIdempotentAndNeverForks) {
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_TRUE(log->Append(MatchId(0), LogHash(0)).ok());
  absl::StatusOr<TlogLeaf> again = log->Append(MatchId(0), LogHash(0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->index, 0u);
  EXPECT_EQ(log->size(), 1u);
  EXPECT_THAT(log->Append(MatchId(0), LogHash(1)).status().message(),
              HasSubstr("with another log hash"));
  EXPECT_THAT(log->Append(MatchId(1), LogHash(0)).status().message(),
              HasSubstr("under match"));
  EXPECT_EQ(log->size(), 1u);
  // A failed batch appends nothing.
  EXPECT_FALSE(
      log->AppendAll({{MatchId(1), LogHash(1)}, {MatchId(2), LogHash(0)}})
          .ok());
  EXPECT_EQ(log->size(), 1u);
  ASSERT_TRUE(
      log->AppendAll({{MatchId(1), LogHash(1)}, {MatchId(2), LogHash(2)}})
          .ok());
  EXPECT_EQ(log->size(), 3u);
  tlog::MemoryTree reference;
  for (int i = 0; i < 3; ++i)
    reference.Append(tlog::LeafHash(AsView(LogHash(i))));
  EXPECT_EQ(*log->RootHash(3), reference.Root());
}

TEST_F(TransparencyLogTest, RefusesAnotherIdentity) {
  ASSERT_NE(Open("test/log"), nullptr);
  absl::StatusOr<std::unique_ptr<TransparencyLog>> other_origin =
      TransparencyLog::Open(dir_.File("tlog.sqlite3"), key_, "test/other");
  EXPECT_THAT(other_origin.status().message(), HasSubstr("two identities"));
  absl::StatusOr<std::unique_ptr<TransparencyLog>> other_key =
      TransparencyLog::Open(dir_.File("tlog.sqlite3"), SigningKey::Generate(),
                            "test/log");
  EXPECT_THAT(other_key.status().message(), HasSubstr("two identities"));
  // Either way, the key it was started with, for the caller's next step.
  EXPECT_EQ(TransparencyLog::StartedKeyOf(other_origin.status()),
            key_.public_key());
  EXPECT_EQ(TransparencyLog::StartedKeyOf(other_key.status()),
            key_.public_key());
  EXPECT_EQ(TransparencyLog::StartedKeyOf(absl::FailedPreconditionError("x")),
            std::nullopt);
  EXPECT_FALSE(
      TransparencyLog::Open(dir_.File("x.sqlite3"), key_, "has space").ok());
}

// An origin of the referee's own form names its key: one naming another
// key is refused (verifiers pinning this key refuse its checkpoints), the
// key's own and a name of another form are taken.
TEST_F(TransparencyLogTest, RefusesARefereeOriginOfAnotherKey) {
  const std::string own = TransparencyLog::DefaultOrigin(key_.public_key());
  EXPECT_EQ(own, tlog::RefereeOrigin(key_.public_key()));
  const std::string other = own.back() == '0'
                                ? own.substr(0, own.size() - 1) + "1"
                                : own.substr(0, own.size() - 1) + "0";
  absl::StatusOr<std::unique_ptr<TransparencyLog>> refused =
      TransparencyLog::Open(dir_.File("a.sqlite3"), key_, other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(std::string(refused.status().message()),
            absl::StrCat("bad transparency log origin \"", other,
                         "\": an origin beginning pyramid-referee/ names a "
                         "referee's key, and this referee's is ",
                         own,
                         " (a verifier that pins its key refuses checkpoints "
                         "under another)"));
  EXPECT_FALSE(std::filesystem::exists(dir_.File("a.sqlite3")));
  EXPECT_TRUE(TransparencyLog::Open(dir_.File("b.sqlite3"), key_, own).ok());
  EXPECT_TRUE(
      TransparencyLog::Open(dir_.File("c.sqlite3"), key_, "example.com/league")
          .ok());
  for (const std::string& look_alike :
       {std::string("pyramid-referee/league-2026"), own + "X",
        own.substr(0, own.size() - 1)}) {
    EXPECT_FALSE(
        TransparencyLog::Open(dir_.File("d.sqlite3"), key_, look_alike).ok())
        << look_alike;
  }
}

TEST_F(TransparencyLogTest, RefusesBadProofRequests) {
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_TRUE(log->Append(MatchId(0), LogHash(0)).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(log->ConsistencyProof(0, 1).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(log->ConsistencyProof(2, 1).status()));
  // A size the tree has not reached yet, but may: OUT_OF_RANGE, naming
  // both sizes.
  const absl::Status beyond = log->ConsistencyProof(1, 2).status();
  EXPECT_TRUE(absl::IsOutOfRange(beyond)) << beyond;
  EXPECT_THAT(beyond.message(), HasSubstr("new size 2"));
  EXPECT_THAT(beyond.message(), HasSubstr("tree's size 1"));
  EXPECT_TRUE(
      absl::IsNotFound(log->Checkpoint(1).status()));  // Not signed yet.
  EXPECT_TRUE(log->Checkpoint().ok());
  EXPECT_TRUE(log->Checkpoint(1).ok());
  // Valid once the tree has grown to it.
  ASSERT_TRUE(log->Append(MatchId(1), LogHash(1)).ok());
  EXPECT_TRUE(log->ConsistencyProof(1, 2).ok());
}

// The referee's proof path (GetInclusionProof: a proof, then its
// checkpoint opened with the log's verifier) checks the checkpoint's
// signature once per checkpoint, not once per proof; a checkpoint changed
// in the database under the open log is still checked, and refused.
TEST_F(TransparencyLogTest, AProofsCheckpointIsCheckedOncePerChange) {
  std::unique_ptr<TransparencyLog> log = Open();
  ASSERT_NE(log, nullptr);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(log->Append(MatchId(i), LogHash(i)).ok());
  }
  auto prove = [&](int i) -> absl::StatusOr<tlog::Checkpoint> {
    absl::StatusOr<tlog::TlogProof> proof =
        log->InclusionProof(*log->FindLeaf(MatchId(i)));
    if (!proof.ok()) return proof.status();
    return tlog::OpenCheckpoint(proof->checkpoint, log->verifier());
  };
  uint64_t checks = tlog::NoteSignatureChecks();
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<tlog::Checkpoint> checkpoint = prove(i);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
    EXPECT_EQ(checkpoint->size, 50u);
  }
  EXPECT_EQ(tlog::NoteSignatureChecks(), checks + 1);

  // The stored note's signature changed by another writer of the file.
  const std::string note = *log->Checkpoint();
  std::string forged = note;
  // A base64 digit inside the signature, all six of its bits the
  // signature's (the last digit before the padding also carries padding
  // bits: a change there may make the note malformed, not forged).
  const size_t digit = forged.size() - 10;
  forged[digit] = forged[digit] == 'A' ? 'B' : 'A';
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("tlog.sqlite3").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* update = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE checkpoints SET note = ?;", -1,
                               &update, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(update, 1, forged.data(), forged.size(), SQLITE_STATIC);
  EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
  sqlite3_finalize(update);
  sqlite3_close(db);
  checks = tlog::NoteSignatureChecks();
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(prove(i).status().message(), HasSubstr("does not verify"));
  }
  EXPECT_EQ(tlog::NoteSignatureChecks(), checks + 3);

  // A new checkpoint, once grown: checked once again.
  ASSERT_TRUE(log->Append(MatchId(50), LogHash(50)).ok());
  checks = tlog::NoteSignatureChecks();
  for (int i = 0; i < 51; ++i) {
    absl::StatusOr<tlog::Checkpoint> checkpoint = prove(i);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
    EXPECT_EQ(checkpoint->size, 51u);
  }
  EXPECT_EQ(tlog::NoteSignatureChecks(), checks + 1);
}

}  // namespace
}  // namespace pyramid

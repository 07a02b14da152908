// Writes a match log: frames each record, keeps the hash chain, and signs
// checkpoints and the seal with the referee key (docs/log-format.md).
//
// Usage: construct, Append the header first and every later record in order,
// then Seal. The writer fills in prev_hash itself and inserts a checkpoint
// after every `checkpoint_interval` records (0: none). Not thread-safe.
#ifndef PYRAMID_REFEREE_CORE_LOG_WRITER_H_
#define PYRAMID_REFEREE_CORE_LOG_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"

namespace pyramid {

class LogWriter {
 public:
  // `key` signs checkpoints and the seal; `match_id` is bound into them.
  LogWriter(std::unique_ptr<LogSink> sink, SigningKey key, std::string match_id,
            uint32_t checkpoint_interval, FsyncPolicy fsync);

  // Appends `record` (its prev_hash is overwritten) and, when one is due, a
  // checkpoint after it. On error the log must be considered broken.
  absl::Status Append(const referee::v1::LogRecord& record);

  // Appends a checkpoint now, unless the last record written is already a
  // signature. Restarts the interval count.
  absl::Status Checkpoint();

  // Appends the seal and syncs unless the policy is kNever (with
  // DeferCheckpointSyncs, that sync is owed instead, as a checkpoint's).
  // Nothing may be appended afterwards.
  absl::Status Seal();

  // Makes everything appended so far durable (writing a batch first).
  absl::Status Sync();

  // Between BeginBatch and EndBatch the records appended are framed into
  // one buffer, which reaches the sink in a single Append at EndBatch (one
  // write(2) for a whole protocol step instead of one per record), or
  // earlier when a Sync or the seal needs it (so the fsync policy holds as
  // without a batch). A caller that batches must act on no record (ack,
  // forward) before EndBatch returns OK: until then it may not be written.
  // An error from EndBatch means the log is broken, as from Append.
  void BeginBatch() { batching_ = true; }
  absl::Status EndBatch();

  // From now on a checkpoint due within a batch, and the seal, are written
  // but not synced: the sync is owed, and TakeOwedSync hands it to the
  // caller, which must act on nothing of that batch (nor of any later one)
  // before the job it gets has run and returned OK. (A caller with a pool
  // of threads to sync on then keeps its own thread free of the device's
  // latency.) Sync and a Checkpoint outside a batch still sync at once, and
  // pay any sync owed.
  void DeferCheckpointSyncs() { defer_syncs_ = true; }
  // After EndBatch: the job that pays the sync the batch owes, if it owes
  // one (see DeferCheckpointSyncs).
  std::optional<SyncJob> TakeOwedSync();
  // Whether a sync is owed (TakeOwedSync would return a job): already
  // within a batch, once a checkpoint in it owes one.
  bool sync_owed() const { return sync_owed_; }

  uint64_t record_count() const { return record_count_; }
  // SHA-256 of the last record's stored bytes (zero before any).
  const Digest& chain_hash() const { return chain_; }
  // SHA-256 of the stored bytes of the last record given to Append, not of
  // the checkpoint Append may have written after it (zero before any): the
  // header's hash, after the header was appended, whatever the interval.
  const Digest& appended_hash() const { return appended_; }
  // Bytes the writer holds for records not yet written: none between
  // batches, so that an idle match costs no buffer.
  size_t buffer_capacity() const { return pending_.capacity(); }

 private:
  absl::Status Write(const referee::v1::LogRecord& record);
  // Hands the framed records not yet written to the sink.
  absl::Status Flush();
  referee::v1::Signature Sign() const;

  std::unique_ptr<LogSink> sink_;
  SigningKey key_;
  std::string match_id_;
  uint32_t checkpoint_interval_;
  FsyncPolicy fsync_;
  uint64_t record_count_ = 0;
  uint32_t since_checkpoint_ = 0;
  Digest chain_{};     // Hash of the last record written; zero before any.
  Digest appended_{};  // Hash of the last record given to Append.
  bool sealed_ = false;
  bool batching_ = false;
  bool defer_syncs_ = false;
  bool sync_owed_ = false;
  std::string pending_;  // Framed records not yet handed to the sink.
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CORE_LOG_WRITER_H_

#include "referee/core/log_writer.h"

#include <string_view>
#include <tuple>
#include <utility>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "referee/core/log_format.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

constexpr size_t kDigestSize = std::tuple_size_v<Digest>;

LogWriter::LogWriter(std::unique_ptr<LogSink> sink, SigningKey key,
                     std::string match_id, uint32_t checkpoint_interval,
                     FsyncPolicy fsync)
    : sink_(std::move(sink)),
      key_(std::move(key)),
      match_id_(std::move(match_id)),
      checkpoint_interval_(checkpoint_interval),
      fsync_(fsync) {}

absl::Status LogWriter::Append(const v1::LogRecord& record) {
  if (sealed_) return absl::FailedPreconditionError("log is sealed");
  if (absl::Status status = Write(record); !status.ok()) return status;
  appended_ = chain_;
  ++since_checkpoint_;
  if (checkpoint_interval_ == 0 || since_checkpoint_ < checkpoint_interval_) {
    return absl::OkStatus();
  }
  return Checkpoint();
}

absl::Status LogWriter::Checkpoint() {
  if (sealed_) return absl::FailedPreconditionError("log is sealed");
  if (since_checkpoint_ == 0) return absl::OkStatus();  // Just signed.
  v1::LogRecord checkpoint;
  *checkpoint.mutable_checkpoint() = Sign();
  if (absl::Status status = Write(checkpoint); !status.ok()) return status;
  since_checkpoint_ = 0;
  if (fsync_ == FsyncPolicy::kNever) return absl::OkStatus();
  if (defer_syncs_ && batching_) {
    sync_owed_ = true;
    return absl::OkStatus();
  }
  return Sync();
}

absl::Status LogWriter::Seal() {
  if (sealed_) return absl::FailedPreconditionError("log is already sealed");
  v1::LogRecord seal;
  *seal.mutable_seal() = Sign();
  if (absl::Status status = Write(seal); !status.ok()) return status;
  sealed_ = true;
  batching_ = false;
  if (absl::Status status = Flush(); !status.ok()) return status;
  if (fsync_ == FsyncPolicy::kNever) return absl::OkStatus();
  if (defer_syncs_) {
    sync_owed_ = true;
    return absl::OkStatus();
  }
  sync_owed_ = false;
  return sink_->Sync();
}

absl::Status LogWriter::Sync() {
  if (absl::Status status = Flush(); !status.ok()) return status;
  sync_owed_ = false;
  return sink_->Sync();
}

std::optional<SyncJob> LogWriter::TakeOwedSync() {
  if (!sync_owed_) return std::nullopt;
  sync_owed_ = false;
  return sink_->SyncLater();
}

absl::Status LogWriter::EndBatch() {
  batching_ = false;
  return Flush();
}

absl::Status LogWriter::Flush() {
  if (pending_.empty()) return absl::OkStatus();
  absl::Status status = sink_->Append(pending_);
  // An idle match holds no buffer. (Assigning an empty string would keep
  // the capacity: libstdc++ copies a short string into the buffer it has.)
  std::string().swap(pending_);
  return status;
}

v1::Signature LogWriter::Sign() const {
  v1::Signature signature;
  signature.set_record_count(record_count_);
  signature.set_chain_hash(std::string(AsView(chain_)));
  signature.set_signature(
      key_.Sign(LogSignatureMessage(match_id_, record_count_, AsView(chain_))));
  return signature;
}

// Frames `record` with prev_hash set to the chain. The record is not copied:
// prev_hash is field 1, which deterministic serialization writes first, so
// its bytes are the field's tag and length and the chain hash, followed by
// the rest of the record as it stands (when its own prev_hash is empty, as
// the records of Match are; another is copied without it).
absl::Status LogWriter::Write(const v1::LogRecord& record) {
  if (!record.prev_hash().empty()) {  // Overwritten: write it without.
    v1::LogRecord copy = record;
    copy.clear_prev_hash();
    return Write(copy);
  }
  const size_t rest = record.ByteSizeLong();  // Caches every size.
  const size_t body_size = 2 + kDigestSize + rest;
  if (body_size > log_format::kMaxRecordSize) {
    return absl::InvalidArgumentError("log record too large");
  }
  const size_t start = pending_.size();
  if (record_count_ == 0) pending_.append(log_format::kMagic);
  for (uint64_t n = body_size;; n >>= 7) {
    if (n < 0x80) {
      pending_.push_back(static_cast<char>(n));
      break;
    }
    pending_.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  const size_t body = pending_.size();
  pending_.push_back(static_cast<char>(0x0a));  // Field 1, length-delimited.
  pending_.push_back(static_cast<char>(kDigestSize));
  pending_.append(AsView(chain_));
  pending_.resize(body + body_size);
  {
    google::protobuf::io::ArrayOutputStream array(
        pending_.data() + body + 2 + kDigestSize, static_cast<int>(rest));
    google::protobuf::io::CodedOutputStream coded(&array);
    coded.SetSerializationDeterministic(true);
    record.SerializeWithCachedSizes(&coded);
    if (coded.HadError()) {
      pending_.resize(start);
      return absl::InternalError("a log record did not serialize");
    }
  }
  const Digest chain =
      Sha256(std::string_view(pending_).substr(body, body_size));
  if (!batching_ || fsync_ == FsyncPolicy::kEveryRecord) {
    // Not counted unless written.
    if (absl::Status status = Flush(); !status.ok()) return status;
  }
  chain_ = chain;
  ++record_count_;
  return fsync_ == FsyncPolicy::kEveryRecord ? sink_->Sync() : absl::OkStatus();
}

}  // namespace pyramid

#include "referee/core/log_writer.h"

#include <utility>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "referee/core/log_format.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

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
  return fsync_ == FsyncPolicy::kNever ? absl::OkStatus() : sink_->Sync();
}

absl::Status LogWriter::Seal() {
  if (sealed_) return absl::FailedPreconditionError("log is already sealed");
  v1::LogRecord seal;
  *seal.mutable_seal() = Sign();
  if (absl::Status status = Write(seal); !status.ok()) return status;
  sealed_ = true;
  return fsync_ == FsyncPolicy::kNever ? absl::OkStatus() : sink_->Sync();
}

v1::Signature LogWriter::Sign() const {
  v1::Signature signature;
  signature.set_record_count(record_count_);
  signature.set_chain_hash(std::string(AsView(chain_)));
  signature.set_signature(
      key_.Sign(LogSignatureMessage(match_id_, record_count_, AsView(chain_))));
  return signature;
}

absl::Status LogWriter::Write(v1::LogRecord record) {
  record.set_prev_hash(std::string(AsView(chain_)));
  std::string body;
  {
    google::protobuf::io::StringOutputStream stream(&body);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    record.SerializeToCodedStream(&coded);
  }
  if (body.size() > log_format::kMaxRecordSize) {
    return absl::InvalidArgumentError("log record too large");
  }
  std::string framed;
  framed.reserve(body.size() + log_format::kMaxLengthPrefix +
                 (record_count_ == 0 ? log_format::kMagic.size() : 0));
  if (record_count_ == 0) framed.append(log_format::kMagic);
  for (uint64_t n = body.size();; n >>= 7) {
    if (n < 0x80) {
      framed.push_back(static_cast<char>(n));
      break;
    }
    framed.push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  framed.append(body);
  if (absl::Status status = sink_->Append(framed); !status.ok()) return status;
  chain_ = Sha256(body);
  ++record_count_;
  if (fsync_ == FsyncPolicy::kEveryRecord) return sink_->Sync();
  return absl::OkStatus();
}

}  // namespace pyramid

#include "tools/bench_load/echo_phase.h"

#include <string>

namespace pyramid::bench_load {

namespace bench = ::pyramid::bench::v1;

// One echo stream: writes the message and reads the reply, again and again
// until the phase stops.
class EchoStream final : public Handler {
 public:
  enum Kind { kStart, kRead, kWrite, kWritesDone, kFinish };
  EchoStream(EchoPhase* phase, Worker* worker,
             const bench::EchoMessage* message)
      : phase_(phase), worker_(worker), message_(message) {}
  void Start(bench::BenchEcho::Stub* stub) {
    stream_ = stub->PrepareAsyncEcho(&context_, worker_->cq());
    stream_->StartCall(&tags_[kStart]);
  }
  void OnEvent(int kind, bool ok) override;

 private:
  EchoPhase* const phase_;
  Worker* const worker_;
  const bench::EchoMessage* const message_;
  Tag tags_[5] = {{this, kStart},
                  {this, kRead},
                  {this, kWrite},
                  {this, kWritesDone},
                  {this, kFinish}};
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<bench::EchoMessage, bench::EchoMessage>>
      stream_;
  bench::EchoMessage reply_;
  bool first_ = true;
  grpc::Status status_;
};

EchoPhase::EchoPhase(
    int streams, size_t message_bytes,
    std::vector<std::unique_ptr<bench::BenchEcho::Stub>>* stubs,
    std::vector<std::unique_ptr<Worker>>* workers)
    : streams_(streams), stubs_(stubs), workers_(workers) {
  // An EchoMessage of `message_bytes` serialized bytes (tag + length +
  // payload), like the mean referee message.
  size_t payload = 0;
  if (message_bytes >= 2 + 128) {
    payload = message_bytes - 3;
  } else if (message_bytes > 2) {
    payload = message_bytes - 2;
  }
  message_.set_payload(std::string(payload, 'x'));
}

EchoPhase::~EchoPhase() = default;

void EchoPhase::Begin() {
  for (int i = 0; i < streams_; ++i) {
    Worker* worker = (*workers_)[i % workers_->size()].get();
    streams_list_.push_back(
        std::make_unique<EchoStream>(this, worker, &message_));
  }
  for (int i = 0; i < streams_; ++i) {
    streams_list_[i]->Start((*stubs_)[i % stubs_->size()].get());
  }
}

void EchoStream::OnEvent(int kind, bool ok) {
  Stats& stats = worker_->stats();
  switch (kind) {
    case kStart:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stats.Add(stats.sent);
      stream_->Write(*message_, &tags_[kWrite]);
      return;
    case kWrite:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stream_->Read(&reply_, &tags_[kRead]);
      return;
    case kRead:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      stats.Add(stats.received);
      if (first_) {
        first_ = false;
        phase_->OnAnswered();
      }
      if (phase_->stopping()) {
        stream_->WritesDone(&tags_[kWritesDone]);
        return;
      }
      stats.Add(stats.sent);
      stream_->Write(*message_, &tags_[kWrite]);
      return;
    case kWritesDone:
      stream_->Finish(&status_, &tags_[kFinish]);
      return;
    case kFinish:
      phase_->OnFinished(status_);
      return;
  }
}

}  // namespace pyramid::bench_load

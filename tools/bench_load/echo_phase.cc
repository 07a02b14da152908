#include "tools/bench_load/echo_phase.h"

#include <memory>
#include <string>
#include <vector>

#include "grpcpp/alarm.h"

namespace pyramid::bench_load {

namespace bench = ::pyramid::bench::v1;

// One echo stream: writes the message and reads the reply, for as many
// round trips as its release allows, then waits for the next release.
class EchoStream final : public Handler {
 public:
  enum Kind { kStart, kRead, kWrite, kWritesDone, kFinish, kRelease };
  EchoStream(EchoPhase* phase, Worker* worker,
             const bench::EchoMessage* message)
      : phase_(phase), worker_(worker), message_(message) {}
  void Start(bench::BenchEcho::Stub* stub) {
    stream_ = stub->PrepareAsyncEcho(&context_, worker_->cq());
    stream_->StartCall(&tags_[kStart]);
  }
  // Wakes the stream on its worker's thread (kRelease). Called from the
  // phase's thread; each call has an alarm of its own.
  void Release() {
    alarms_.push_back(std::make_unique<grpc::Alarm>());
    alarms_.back()->Set(worker_->cq(), gpr_now(GPR_CLOCK_MONOTONIC),
                        &tags_[kRelease]);
  }
  void OnEvent(int kind, bool ok) override;

 private:
  void Send() {
    Stats& stats = worker_->stats();
    stats.Add(stats.sent);
    stream_->Write(*message_, &tags_[kWrite]);
  }
  void Close() { stream_->WritesDone(&tags_[kWritesDone]); }

  EchoPhase* const phase_;
  Worker* const worker_;
  const bench::EchoMessage* const message_;
  Tag tags_[6] = {{this, kStart},      {this, kRead},   {this, kWrite},
                  {this, kWritesDone}, {this, kFinish}, {this, kRelease}};
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientAsyncReaderWriter<bench::EchoMessage, bench::EchoMessage>>
      stream_;
  std::vector<std::unique_ptr<grpc::Alarm>> alarms_;
  bench::EchoMessage reply_;
  // Worker thread only: round trips left in this release (-1: until the
  // phase stops), whether it is a race, whether the stream waits, and
  // whether it has answered since its release.
  int left_ = 1;
  bool racing_ = false;
  bool waiting_ = false;
  bool answered_ = false;
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

Clock::time_point EchoPhase::Race(int round_trips) {
  raced_.store(0);
  race_end_ns_.store(0);
  const Clock::time_point at = Clock::now();
  Release(round_trips);
  return at;
}

void EchoPhase::OnRaced(Clock::time_point at) {
  const int64_t ns = at.time_since_epoch().count();
  int64_t last = race_end_ns_.load();
  while (ns > last && !race_end_ns_.compare_exchange_weak(last, ns)) {
  }
  raced_.fetch_add(1);
}

void EchoPhase::Stop() {
  stop_.store(true);
  for (const auto& stream : streams_list_) stream->Release();
}

void EchoPhase::Release(int round_trips) {
  round_trips_.store(round_trips);
  answered_.store(0);
  for (const auto& stream : streams_list_) stream->Release();
}

void EchoStream::OnEvent(int kind, bool ok) {
  Stats& stats = worker_->stats();
  switch (kind) {
    case kStart:
      if (!ok) {
        stream_->Finish(&status_, &tags_[kFinish]);
        return;
      }
      Send();
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
      if (!answered_) {
        answered_ = true;
        phase_->OnAnswered();
      }
      if (left_ > 0 && --left_ == 0) {
        if (racing_) phase_->OnRaced(Clock::now());
        if (phase_->stopping()) {
          Close();
        } else {
          waiting_ = true;
        }
        return;
      }
      if (phase_->stopping()) {
        Close();
        return;
      }
      Send();
      return;
    case kRelease:
      // A stream that is not waiting (it failed, or runs until Stop and
      // sees the stop at its next answer) has nothing to do.
      if (!ok || !waiting_) return;
      waiting_ = false;
      if (phase_->stopping()) {
        Close();
        return;
      }
      left_ = phase_->round_trips() > 0 ? phase_->round_trips() : -1;
      racing_ = left_ > 0;
      answered_ = false;
      Send();
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

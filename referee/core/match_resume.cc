// Match::Resume: a match rebuilt by re-running its log (docs/durability.md).
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/core/log_reader.h"
#include "referee/core/match.h"

namespace pyramid {
namespace {

// The time the re-run reads: each record's logged time while replaying,
// then the referee's clock.
class ReplayClock final : public Clock {
 public:
  explicit ReplayClock(const Clock* live) : live_(live) {}
  absl::Time Now() const override { return replaying_ ? at_ : live_->Now(); }
  void Set(int64_t unix_ms) { at_ = absl::FromUnixMillis(unix_ms); }
  void GoLive() { replaying_ = false; }

 private:
  const Clock* const live_;
  absl::Time at_;
  bool replaying_ = true;
};

// How far a re-run has come: records written (the writer appends one
// record per call) and bytes matched against the log.
struct ReplayProgress {
  uint64_t records = 0;
  size_t offset = 0;
  size_t size = 0;  // Of the log re-run.
  bool replaying() const { return offset < size; }
};

// Checks that the re-run writes the log's bytes again, then appends to the
// file's sink what comes after them. The re-run never batches, so each of
// its Appends is one record (ReplayProgress counts them). Keeps its own copy of
// the log: the live sink may append to the very buffer the caller's view points
// into.
class ReplaySink final : public LogSink {
 public:
  ReplaySink(std::string_view expected, std::unique_ptr<LogSink> live,
             std::shared_ptr<ReplayProgress> progress)
      : expected_(expected), live_(std::move(live)), progress_(progress) {
    progress_->size = expected_.size();
  }

  absl::Status Append(std::string_view bytes) override {
    ++progress_->records;
    size_t& offset = progress_->offset;
    if (offset >= expected_.size()) return live_->Append(bytes);
    if (std::string_view(expected_).substr(offset, bytes.size()) != bytes) {
      return absl::DataLossError(absl::StrCat(
          "the re-run writes other bytes than the log at byte ", offset));
    }
    offset += bytes.size();
    return absl::OkStatus();
  }
  absl::Status Sync() override {
    return progress_->replaying() ? absl::OkStatus() : live_->Sync();
  }
  // The live sink's own deferred sync (its journal or its pool's thread),
  // not the default, which would sync at once on the caller's thread.
  SyncJob SyncLater() override {
    if (progress_->replaying()) {
      return [](SyncDone done) { done(absl::OkStatus()); };
    }
    return live_->SyncLater();
  }

 private:
  const std::string expected_;
  const std::unique_ptr<LogSink> live_;
  const std::shared_ptr<ReplayProgress> progress_;
};

// The time a record carries, or -1 for a record without one.
int64_t TimeOf(const v1::LogRecord& record) {
  switch (record.kind_case()) {
    case v1::LogRecord::kHeader:
      return record.header().created_unix_ms();
    case v1::LogRecord::kDecisionOpened:
      return record.decision_opened().opened_unix_ms();
    case v1::LogRecord::kCommit:
      return record.commit().received_unix_ms();
    case v1::LogRecord::kReveal:
      return record.reveal().received_unix_ms();
    case v1::LogRecord::kFault:
      return record.fault().at_unix_ms();
    case v1::LogRecord::kRestart:
      return record.restart().restarted_unix_ms();
    default:
      return -1;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Match>> Match::Resume(
    std::string_view log, std::string_view referee_contribution,
    SigningKey referee_key, FsyncPolicy fsync, std::unique_ptr<LogSink> sink,
    const Clock* clock) {
  const SplitLogResult split = SplitLog(log);
  if (absl::Status tail = TailStatus(split); !tail.ok()) {
    return absl::DataLossError(absl::StrCat(
        "cannot resume a log that does not end after a complete record (",
        tail.message(), ")"));
  }
  absl::StatusOr<std::vector<v1::LogRecord>> parsed = ParseLogRecords(split);
  if (!parsed.ok()) return parsed.status();
  const std::vector<v1::LogRecord>& records = *parsed;
  if (records.empty() || !records[0].has_header()) {
    return absl::DataLossError("the log has no header");
  }
  const v1::Header& header = records[0].header();
  MatchConfig config = ConfigFromHeader(header, fsync);
  auto replay_clock = std::make_unique<ReplayClock>(clock);
  replay_clock->Set(header.created_unix_ms());
  auto progress = std::make_shared<ReplayProgress>();
  auto replay_sink =
      std::make_unique<ReplaySink>(log, std::move(sink), progress);
  std::string ids = header.match_id();
  ids.append(referee_contribution);
  absl::StatusOr<std::unique_ptr<Match>> created =
      Create(std::move(config), referee_key, std::move(replay_sink),
             replay_clock.get(), FixedEntropy(std::move(ids)));
  if (!created.ok()) {
    return absl::DataLossError(
        absl::StrCat("the log does not re-run: ", created.status().message()));
  }
  std::unique_ptr<Match> match = *std::move(created);
  ReplayClock* const rerun_clock = replay_clock.get();
  match->owned_clock_ = std::move(replay_clock);

  int64_t last_ms = header.created_unix_ms();
  for (const v1::LogRecord& record : records) {
    last_ms = std::max(last_ms, TimeOf(record));
  }
  // Once the re-run writes the outcome and the seal, the match lets its log
  // go; the loop stops there too.
  for (uint64_t index = progress->records;
       index < records.size() && !match->finished_; index = progress->records) {
    const v1::LogRecord& record = records[index];
    const int64_t at = TimeOf(record);
    if (at >= 0) rerun_clock->Set(at);
    // Errors here are expected (a faulted reveal reports its fault); what
    // counts is that the call wrote the record again.
    const absl::Status status = match->Replay(record);
    if (!match->broken_.ok()) {
      return absl::DataLossError(
          absl::StrCat("record ", index, ": ", match->broken_.message()));
    }
    if (progress->records <= index) {
      return absl::DataLossError(absl::StrCat(
          "record ", index, " does not follow from the records before it",
          status.ok() ? "" : absl::StrCat(" (", status.message(), ")")));
    }
  }
  if (progress->replaying()) {
    return absl::DataLossError(
        "the log goes on after the re-run's seal, or the re-run stopped "
        "short of its end");
  }
  rerun_clock->GoLive();
  if (!match->finished_) {
    if (absl::Status s = match->Restart(last_ms); !s.ok()) return s;
  }
  return match;
}

absl::Status Match::Replay(const v1::LogRecord& record) {
  switch (record.kind_case()) {
    case v1::LogRecord::kCommit:
      return Commit(record.commit().seat(), record.commit().decision_id(),
                    record.commit().commitment(), record.commit().signature());
    case v1::LogRecord::kReveal:
      return Reveal(record.reveal().seat(), record.reveal().decision_id(),
                    record.reveal().salt(), record.reveal().action());
    case v1::LogRecord::kFault:  // A timeout: the others come with a reveal.
      return CheckDeadlines();
    case v1::LogRecord::kCheckpoint:  // Forced (a shutdown).
      return Checkpoint();
    case v1::LogRecord::kRestart:
      return Restart(record.restart().last_record_unix_ms());
    default:  // Every other record follows from one of these.
      return absl::DataLossError(
          "a record that no commit, reveal or deadline produces");
  }
}

absl::Status Match::Restart(int64_t last_record_ms) {
  Tick();
  const bool reveal_phase = decision_.reveal_phase();
  const absl::Time base = PhaseDeadline(
      reveal_phase ? config_.clocks.reveal_timeout_ms() : CommitTimeoutMs());
  for (size_t i = 0; i < decision_.seats().size(); ++i) {
    deadlines_[i] =
        reveal_phase
            ? base
            : base + absl::Milliseconds(bank_ms_[decision_.seats()[i]]);
  }
  // Time before the restart is not taken from any bank.
  if (!reveal_phase) opened_ = now_;
  v1::LogRecord record;
  v1::Restart* restart = record.mutable_restart();
  restart->set_last_record_unix_ms(last_record_ms);
  restart->set_restarted_unix_ms(NowMs());
  restart->set_deadline_unix_ms(
      base == absl::InfiniteFuture() ? 0 : absl::ToUnixMillis(base));
  return Log(std::move(record));
}

}  // namespace pyramid

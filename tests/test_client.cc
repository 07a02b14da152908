#include "tests/test_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/unknown_field_set.h"
#include "grpcpp/impl/client_unary_call.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/service/play_features.h"

namespace pyramid::svctest {
namespace {

std::chrono::system_clock::time_point Until(absl::Duration timeout) {
  return absl::ToChronoTime(absl::Now() + timeout);
}

// The method the generated stub calls, but with raw bytes both ways.
const grpc::internal::RpcMethod& RawPlayMethod() {
  static const auto* const method =
      new grpc::internal::RpcMethod("/pyramid.referee.v1.Referee/Play",
                                    grpc::internal::RpcMethod::BIDI_STREAMING);
  return *method;
}

// The path of the Referee's method named `method` ("GetMatch").
std::string RefereeMethodPath(const std::string& method) {
  return absl::StrCat("/pyramid.referee.v1.Referee/", method);
}

}  // namespace

uint64_t EventLog::Add(Event event) {
  std::lock_guard<std::mutex> lock(mu_);
  event.seq = events_.size() + 1;
  events_.push_back(std::move(event));
  return events_.back().seq;
}

std::vector<EventLog::Event> EventLog::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

Move NewMove(const v1::Action& action) {
  return Move{SystemRandomBytes(kSaltSize), action.SerializeAsString()};
}

v1::Action SeedAction() {
  v1::Action action;
  action.mutable_seed()->set_contribution(
      SystemRandomBytes(kSeedContributionSize));
  return action;
}

v1::Action Piece(v1::RppColour colour, v1::RppSize size) {
  v1::Action action;
  v1::RppPiece* piece = action.mutable_rock_paper_pyramid()->mutable_piece();
  piece->set_colour(colour);
  piece->set_size(size);
  return action;
}

v1::PlayRequest CommitMsg(const std::string& match_id, uint32_t seat,
                          uint64_t decision_id, const Move& move) {
  v1::PlayRequest request;
  v1::CommitMove* commit = request.mutable_commit();
  commit->set_match_id(match_id);
  commit->set_seat(seat);
  commit->set_decision_id(decision_id);
  commit->set_commitment(std::string(AsView(CommitmentHash(
      *FromHex(match_id), seat, decision_id, move.salt, move.action))));
  return request;
}

v1::PlayRequest RevealMsg(const std::string& match_id, uint32_t seat,
                          uint64_t decision_id, const Move& move) {
  v1::PlayRequest request;
  v1::RevealMove* reveal = request.mutable_reveal();
  reveal->set_match_id(match_id);
  reveal->set_seat(seat);
  reveal->set_decision_id(decision_id);
  reveal->set_salt(move.salt);
  reveal->set_action(move.action);
  return request;
}

Pred IsDecision(const std::string& match_id, uint32_t seat, uint64_t decision) {
  return [=](const v1::PlayResponse& m) {
    return m.has_decision() && m.decision().match_id() == match_id &&
           m.decision().seat() == seat &&
           m.decision().decision_id() == decision;
  };
}

Pred IsRevealRequest(const std::string& match_id, uint32_t seat,
                     uint64_t decision) {
  return [=](const v1::PlayResponse& m) {
    return m.has_reveal_request() &&
           m.reveal_request().match_id() == match_id &&
           m.reveal_request().seat() == seat &&
           m.reveal_request().decision_id() == decision;
  };
}

Pred IsCommitAck(const std::string& match_id, uint32_t seat,
                 uint64_t decision) {
  return [=](const v1::PlayResponse& m) {
    return m.has_commit_ack() && m.commit_ack().match_id() == match_id &&
           m.commit_ack().seat() == seat &&
           m.commit_ack().decision_id() == decision;
  };
}

Pred IsRevealAck(const std::string& match_id, uint32_t seat,
                 uint64_t decision) {
  return [=](const v1::PlayResponse& m) {
    return m.has_reveal_ack() && m.reveal_ack().match_id() == match_id &&
           m.reveal_ack().seat() == seat &&
           m.reveal_ack().decision_id() == decision;
  };
}

Pred IsResult(const std::string& match_id, uint32_t seat, uint64_t decision) {
  return [=](const v1::PlayResponse& m) {
    return m.has_result() && m.result().match_id() == match_id &&
           m.result().seat() == seat && m.result().decision_id() == decision;
  };
}

Pred IsEnded(const std::string& match_id, uint32_t seat) {
  return [=](const v1::PlayResponse& m) {
    return m.has_match_ended() && m.match_ended().match_id() == match_id &&
           m.match_ended().seat() == seat;
  };
}

Pred IsError(const std::string& match_id, uint32_t seat, uint64_t decision,
             int code) {
  return [=](const v1::PlayResponse& m) {
    return m.has_error() && m.error().match_id() == match_id &&
           m.error().seat() == seat && m.error().decision_id() == decision &&
           (code < 0 || m.error().code() == code);
  };
}

Pred IsAnyError(int code) {
  return [=](const v1::PlayResponse& m) {
    return m.has_error() && (code < 0 || m.error().code() == code);
  };
}

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string FromBuffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const grpc::Slice& slice : slices) {
    out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return out;
}

std::vector<std::string> Fields(const std::string& message, int number) {
  google::protobuf::UnknownFieldSet fields;
  std::vector<std::string> out;
  if (!fields.ParseFromString(message)) return out;
  for (int i = 0; i < fields.field_count(); ++i) {
    if (fields.field(i).number() == number &&
        fields.field(i).type() ==
            google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      out.push_back(fields.field(i).length_delimited());
    }
  }
  return out;
}

int HealthStatus(const std::shared_ptr<grpc::Channel>& channel,
                 const std::string& service) {
  // HealthCheckRequest{service (1)}: empty for ""; the response's field 1 is
  // the status.
  const grpc::internal::RpcMethod method("/grpc.health.v1.Health/Check",
                                         grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ClientContext context;
  context.set_deadline(Until(kWait));
  grpc::ByteBuffer response;
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          channel.get(), method, &context,
          ToBuffer(service.empty()
                       ? ""
                       : absl::StrCat(
                             "\x0a",
                             std::string(1, static_cast<char>(service.size())),
                             service)),
          &response);
  if (!status.ok()) return -1;
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromString(FromBuffer(response))) return -1;
  for (int i = 0; i < fields.field_count(); ++i) {
    if (fields.field(i).number() == 1 &&
        fields.field(i).type() == google::protobuf::UnknownField::TYPE_VARINT) {
      return static_cast<int>(fields.field(i).varint());
    }
  }
  return 0;  // UNKNOWN (the default value is not sent).
}

std::set<std::string> ReflectedServices(
    const std::shared_ptr<grpc::Channel>& channel) {
  const grpc::internal::RpcMethod method(
      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      grpc::internal::RpcMethod::BIDI_STREAMING);
  grpc::ClientContext context;
  context.set_deadline(Until(kWait));
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<
             grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel.get(), method,
                                                         &context));
  std::set<std::string> services;
  // ServerReflectionRequest{list_services (7): ""}.
  grpc::ByteBuffer response;
  if (stream->Write(ToBuffer(std::string("\x3a\x00", 2))) &&
      stream->Read(&response)) {
    // list_services_response (6) -> service (1) -> name (1).
    for (const std::string& list : Fields(FromBuffer(response), 6)) {
      for (const std::string& service : Fields(list, 1)) {
        for (const std::string& name : Fields(service, 1)) {
          services.insert(name);
        }
      }
    }
  }
  stream->WritesDone();
  stream->Finish().IgnoreError();
  return services;
}

void Authorize(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
}

// --- PlayClient -------------------------------------------------------------

PlayClient::PlayClient(std::shared_ptr<grpc::Channel> channel,
                       const std::string& token, std::string name,
                       EventLog* log, std::optional<std::string> authorization,
                       const std::string& features)
    : channel_(std::move(channel)), name_(std::move(name)), log_(log) {
  if (authorization) {
    context_.AddMetadata("authorization", *authorization);
  } else {
    Authorize(context_, token);
  }
  if (!features.empty()) context_.AddMetadata(kPlayFeatures, features);
  stream_.reset(grpc::internal::ClientReaderWriterFactory<
                grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel_.get(),
                                                            RawPlayMethod(),
                                                            &context_));
  reader_ = std::thread([this] { ReadLoop(); });
}

PlayClient::~PlayClient() { Disconnect(); }

void PlayClient::Disconnect() {
  context_.TryCancel();
  if (reader_.joinable()) reader_.join();
}

void PlayClient::ReadLoop() {
  grpc::ByteBuffer buffer;
  while (stream_->Read(&buffer)) {
    std::string raw = FromBuffer(buffer);
    v1::PlayResponse message;
    const bool parsed = message.ParseFromString(raw);
    // A batch ("batch" feature) is recorded as the messages it carries.
    std::vector<v1::PlayResponse> messages;
    if (parsed && message.has_batch()) {
      std::lock_guard<std::mutex> lock(mu_);
      batch_sizes_.push_back(message.batch().responses_size());
      messages.assign(message.batch().responses().begin(),
                      message.batch().responses().end());
    } else {
      messages.push_back(std::move(message));
    }
    for (v1::PlayResponse& m : messages) {
      uint64_t seq = 0;
      if (log_ != nullptr) {
        EventLog::Event event;
        event.at = absl::Now();
        event.who = name_;
        event.raw = messages.size() == 1 ? raw : m.SerializeAsString();
        if (parsed) event.play = m;
        seq = log_->Add(std::move(event));
      }
      std::lock_guard<std::mutex> lock(mu_);
      received_.emplace_back(seq, m);
      AutoAnswer(m);
      cv_.notify_all();
    }
  }
  grpc::Status status;
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    finished_ = true;
    status = stream_->Finish();
  }
  std::lock_guard<std::mutex> lock(mu_);
  ended_ = true;
  status_ = status;
  cv_.notify_all();
}

bool PlayClient::WriteLocked(const std::string& bytes) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (finished_) return false;
  return stream_->Write(ToBuffer(bytes));
}

bool PlayClient::CloseSending() {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (finished_) return false;
  return stream_->WritesDone();
}

bool PlayClient::Send(const v1::PlayRequest& request) {
  NoteSecrets(request);
  return WriteLocked(request.SerializeAsString());
}

void PlayClient::NoteSecrets(const v1::PlayRequest& request) {
  for (const v1::PlayRequest& inner : request.batch().requests()) {
    NoteSecrets(inner);
  }
  if (!request.has_reveal()) return;
  std::lock_guard<std::mutex> lock(mu_);
  secrets_.push_back(request.reveal().salt());
  v1::Action action;
  if (action.ParseFromString(request.reveal().action()) && action.has_seed()) {
    secrets_.push_back(action.seed().contribution());
  }
}

std::vector<int> PlayClient::BatchSizes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batch_sizes_;
}

bool PlayClient::SendRaw(const std::string& bytes) {
  return WriteLocked(bytes);
}

void PlayClient::AutoAnswer(const v1::PlayResponse& message) {
  if (!auto_) return;
  if (message.has_decision()) {
    const v1::DecisionRequest& d = message.decision();
    if (d.committed() || d.decision_id() < start_at_ ||
        d.decision_id() >= stop_at_) {
      return;
    }
    const auto key = std::make_tuple(d.match_id(), d.seat(), d.decision_id());
    if (pending_.count(key)) return;
    v1::Action action;
    if (d.decision_id() == 0) {
      action = SeedAction();
    } else if (d.legal_actions_size() > 0) {
      action = d.legal_actions((d.decision_id() * 7 + d.seat()) %
                               d.legal_actions_size());
    } else {
      return;  // Nothing this client knows how to play.
    }
    const Move move = NewMove(action);
    pending_[key] = move;
    secrets_.push_back(move.salt);
    if (action.has_seed()) secrets_.push_back(action.seed().contribution());
    WriteLocked(CommitMsg(d.match_id(), d.seat(), d.decision_id(), move)
                    .SerializeAsString());
    if (d.acting_seats_size() == 1) {
      WriteLocked(RevealMsg(d.match_id(), d.seat(), d.decision_id(), move)
                      .SerializeAsString());
    }
  } else if (message.has_reveal_request()) {
    const v1::RevealRequest& r = message.reveal_request();
    auto it =
        pending_.find(std::make_tuple(r.match_id(), r.seat(), r.decision_id()));
    if (it == pending_.end()) return;
    WriteLocked(RevealMsg(r.match_id(), r.seat(), r.decision_id(), it->second)
                    .SerializeAsString());
  }
}

void PlayClient::AutoPlay(uint64_t start_at, uint64_t stop_at) {
  std::lock_guard<std::mutex> lock(mu_);
  auto_ = true;
  start_at_ = start_at;
  stop_at_ = stop_at;
  // Answer what already arrived, in order; a reveal request is answered
  // only if its commit was made (pending_).
  for (const auto& [seq, message] : received_) AutoAnswer(message);
}

std::vector<std::string> PlayClient::Secrets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return secrets_;
}

std::optional<v1::PlayResponse> PlayClient::Await(const Pred& pred,
                                                  absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  std::optional<v1::PlayResponse> found;
  cv_.wait_until(lock, Until(timeout), [&] {
    for (const auto& [seq, message] : received_) {
      if (pred(message)) {
        found = message;
        return true;
      }
    }
    return false;
  });
  return found;
}

bool PlayClient::AwaitCount(const Pred& pred, int n, absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_until(lock, Until(timeout), [&] {
    int count = 0;
    for (const auto& [seq, message] : received_) count += pred(message);
    return count >= n;
  });
}

int PlayClient::Count(const Pred& pred) const {
  std::lock_guard<std::mutex> lock(mu_);
  int count = 0;
  for (const auto& [seq, message] : received_) count += pred(message);
  return count;
}

std::vector<v1::PlayResponse> PlayClient::Messages() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<v1::PlayResponse> out;
  for (const auto& [seq, message] : received_) out.push_back(message);
  return out;
}

std::vector<v1::PlayResponse> PlayClient::AwaitAfter(size_t n,
                                                     absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, Until(timeout),
                 [&] { return received_.size() > n || ended_; });
  std::vector<v1::PlayResponse> out;
  for (size_t i = n; i < received_.size(); ++i) {
    out.push_back(received_[i].second);
  }
  return out;
}

uint64_t PlayClient::SeqOf(const Pred& pred) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [seq, message] : received_) {
    if (pred(message)) return seq;
  }
  return 0;
}

grpc::Status PlayClient::AwaitEnd(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, Until(timeout), [&] { return ended_; })) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        "the stream did not end");
  }
  return status_;
}

bool PlayClient::ended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ended_;
}

// --- RandomPlayer -----------------------------------------------------------

RandomPlayer::RandomPlayer(PlayClient& client, const Digest& seed)
    : client_(client), stream_(seed), thread_([this] { Run(); }) {}

RandomPlayer::~RandomPlayer() {
  stop_ = true;
  thread_.join();
}

void RandomPlayer::Run() {
  size_t answered = 0;
  while (!stop_) {
    const std::vector<v1::PlayResponse> fresh =
        client_.AwaitAfter(answered, absl::Milliseconds(20));
    for (const v1::PlayResponse& message : fresh) Answer(message);
    answered += fresh.size();
    if (fresh.empty() && client_.ended()) return;
  }
}

void RandomPlayer::Answer(const v1::PlayResponse& message) {
  if (message.has_decision()) {
    const v1::DecisionRequest& d = message.decision();
    const auto key = std::make_tuple(d.match_id(), d.seat(), d.decision_id());
    if (d.committed() || !committed_.insert(key).second) return;
    v1::Action action;
    if (d.decision_id() == 0) {
      action = SeedAction();
    } else if (d.legal_actions_size() > 0) {
      action = d.legal_actions(
          static_cast<int>(stream_.Uniform(d.legal_actions_size())));
    } else {
      return;  // Nothing this player knows how to play.
    }
    const Move move = NewMove(action);
    client_.Send(CommitMsg(d.match_id(), d.seat(), d.decision_id(), move));
    if (d.acting_seats_size() == 1) {
      client_.Send(RevealMsg(d.match_id(), d.seat(), d.decision_id(), move));
    } else {
      pending_[key] = move;
    }
  } else if (message.has_reveal_request()) {
    const v1::RevealRequest& r = message.reveal_request();
    auto it =
        pending_.find(std::make_tuple(r.match_id(), r.seat(), r.decision_id()));
    if (it == pending_.end()) return;  // Revealed with the commit.
    client_.Send(
        RevealMsg(r.match_id(), r.seat(), r.decision_id(), it->second));
    pending_.erase(it);
  }
}

// --- WatchClient ------------------------------------------------------------

WatchClient::WatchClient(std::shared_ptr<grpc::Channel> channel,
                         const std::string& match_id, std::string name,
                         EventLog* log)
    : channel_(std::move(channel)), name_(std::move(name)), log_(log) {
  v1::WatchRequest request;
  request.set_match_id(match_id);
  auto stub = v1::Referee::NewStub(channel_);
  reader_stream_ = stub->Watch(&context_, request);
  reader_ = std::thread([this] {
    v1::WatchEvent event;
    while (reader_stream_->Read(&event)) {
      if (log_ != nullptr) {
        EventLog::Event e;
        e.at = absl::Now();
        e.who = name_;
        e.raw = event.SerializeAsString();
        e.watch = event;
        log_->Add(std::move(e));
      }
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(event);
      cv_.notify_all();
    }
    grpc::Status status = reader_stream_->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
    status_ = status;
    cv_.notify_all();
  });
}

WatchClient::~WatchClient() {
  context_.TryCancel();
  if (reader_.joinable()) reader_.join();
}

std::vector<v1::WatchEvent> WatchClient::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

bool WatchClient::AwaitEvent(
    const std::function<bool(const v1::WatchEvent&)>& pred,
    absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  bool found = false;
  cv_.wait_until(lock, Until(timeout), [&] {
    for (const v1::WatchEvent& e : events_) {
      if (pred(e)) return found = true;
    }
    return ended_;  // No event comes after the end.
  });
  return found;
}

grpc::Status WatchClient::AwaitEnd(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, Until(timeout), [&] { return ended_; })) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        "the watch did not end");
  }
  return status_;
}

// --- Logs -------------------------------------------------------------------

grpc::Status FetchLog(v1::Referee::Stub& stub, const std::string& match_id,
                      const std::string& token, std::string* bytes) {
  grpc::ClientContext context;
  Authorize(context, token);
  context.set_deadline(Until(kWait));
  v1::GetLogRequest request;
  request.set_match_id(match_id);
  auto reader = stub.GetLog(&context, request);
  v1::LogChunk chunk;
  bytes->clear();
  while (reader->Read(&chunk)) *bytes += chunk.data();
  return reader->Finish();
}

grpc::Status RawRefereeCall(const std::shared_ptr<grpc::Channel>& channel,
                            const std::string& method,
                            const std::string& request,
                            const std::string& token) {
  const std::string path = RefereeMethodPath(method);
  const grpc::internal::RpcMethod rpc(path.c_str(),
                                      grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ClientContext context;
  Authorize(context, token);
  context.set_deadline(Until(kWait));
  grpc::ByteBuffer response;
  return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      channel.get(), rpc, &context, ToBuffer(request), &response);
}

grpc::Status RawRefereeStream(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& method,
                              const std::string& request,
                              const std::string& token, int* responses) {
  const std::string path = RefereeMethodPath(method);
  const grpc::internal::RpcMethod rpc(
      path.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING);
  grpc::ClientContext context;
  Authorize(context, token);
  context.set_deadline(Until(kWait));
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
          channel.get(), rpc, &context, ToBuffer(request)));
  grpc::ByteBuffer response;
  *responses = 0;
  while (reader->Read(&response)) ++*responses;
  return reader->Finish();
}

std::vector<v1::LogRecord> ParseRecords(const std::string& bytes) {
  std::vector<v1::LogRecord> records;
  for (const RawRecord& raw : SplitLog(bytes).records) {
    v1::LogRecord& record = records.emplace_back();
    record.ParseFromArray(raw.bytes.data(), static_cast<int>(raw.bytes.size()));
  }
  return records;
}

Verdict VerifyBytes(const std::string& bytes, const std::string& public_key) {
  VerifyOptions options;
  options.pinned_key = public_key;
  return VerifyLog(bytes, options);
}

}  // namespace pyramid::svctest

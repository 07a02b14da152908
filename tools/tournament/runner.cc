#include "tools/tournament/runner.h"

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/games/registry.h"
#include "referee/service/embedded_referee.h"
#include "replay/verifier.h"
#include "tools/tournament/bot_process.h"
#include "tools/tournament/schedule.h"
#include "tools/tournament/standings.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
namespace fs = std::filesystem;

constexpr int kMaxRestarts = 20;

absl::Status WriteSecret(const std::string& path, const std::string& secret) {
  std::ofstream out(path, std::ios::trunc);
  out << secret << "\n";
  out.close();
  chmod(path.c_str(), 0600);
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// The bot's command with the placeholders filled in (or the connection
// flags appended when it names none).
std::vector<std::string> BotArgv(const v1::TournamentBot& bot,
                                 const std::string& referee,
                                 const std::string& token_file) {
  std::vector<std::string> argv;
  bool placeholders = false;
  for (std::string arg : bot.command()) {
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{
             {"{referee}", referee},
             {"{token_file}", token_file},
             {"{key_file}", bot.key_file()}}) {
      for (size_t at; (at = arg.find(name)) != std::string::npos;) {
        arg.replace(at, name.size(), value);
        placeholders = placeholders || name != "{key_file}";
      }
    }
    argv.push_back(std::move(arg));
  }
  if (!placeholders) {
    argv.push_back("--referee=" + referee);
    argv.push_back("--token_file=" + token_file);
  }
  return argv;
}

// An in-process watcher that only waits for the end of its match.
class EndWaiter final : public WatchSink {
 public:
  void Send(v1::WatchEvent event) override {}
  void Close(int code, std::string message) override {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  void Wait() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&closed_));
  }

 private:
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class Runner {
 public:
  Runner(v1::Tournament t, std::ostream& progress, bool live)
      : t_(std::move(t)), progress_(progress), live_(live) {}

  absl::StatusOr<v1::TournamentResults> Run() {
    if (absl::Status s = Prepare(); !s.ok()) return s;
    if (absl::Status s = StartReferee(); !s.ok()) return s;
    if (absl::Status s = StartBots(); !s.ok()) return s;
    PlayAll();
    StopBots();
    return Report();
  }

 private:
  absl::Status Prepare() {
    if (t_.name().empty()) t_.set_name("tournament");
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(t_.game());
    if (!game.ok()) return game.status();
    if (t_.seats() == 0) t_.set_seats((*game)->min_seats());
    if (static_cast<int>(t_.seats()) < (*game)->min_seats() ||
        static_cast<int>(t_.seats()) > (*game)->max_seats()) {
      return absl::InvalidArgumentError(absl::StrCat(
          t_.game().game(), " takes ", (*game)->min_seats(), " to ",
          (*game)->max_seats(), " seats"));
    }
    if (t_.rounds() == 0) t_.set_rounds(1);
    if (t_.concurrency() == 0) t_.set_concurrency(8);
    if (t_.clocks().commit_timeout_ms() == 0 &&
        t_.clocks().reveal_timeout_ms() == 0) {
      t_.mutable_clocks()->set_commit_timeout_ms(5000);
      t_.mutable_clocks()->set_reveal_timeout_ms(5000);
    }
    if (t_.output_dir().empty()) t_.set_output_dir("out/" + t_.name());
    const std::regex name_pattern("[A-Za-z0-9._-]+");
    std::map<std::string, int> seen;
    for (const v1::TournamentBot& bot : t_.bots()) {
      if (!std::regex_match(bot.name(), name_pattern)) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad bot name \"", bot.name(), "\""));
      }
      if (seen[bot.name()]++ > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("two bots are named ", bot.name()));
      }
      if (bot.command().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("bot ", bot.name(), " has no command"));
      }
      names_.push_back(bot.name());
    }
    absl::StatusOr<std::vector<ScheduledMatch>> schedule =
        MakeSchedule(t_.format(), t_.bots_size(), t_.seats(), t_.rounds(),
                     t_.seed());
    if (!schedule.ok()) return schedule.status();
    schedule_ = *std::move(schedule);
    out_ = t_.output_dir();
    std::error_code error;
    for (const char* sub : {"logs", "bots", "tokens"}) {
      fs::create_directories(out_ / sub, error);
      if (error) return absl::InternalError(error.message());
    }
    chmod((out_ / "tokens").c_str(), 0700);
    return absl::OkStatus();
  }

  absl::Status StartReferee() {
    if (t_.referee().empty()) {
      const std::string key_path = (out_ / "referee.key").string();
      if (!fs::exists(key_path)) {
        if (absl::Status s = WriteKeyFiles(key_path, SigningKey::Generate());
            !s.ok()) {
          return s;
        }
      }
      absl::StatusOr<SigningKey> key = ReadSigningKey(key_path);
      if (!key.ok()) return key.status();
      LobbyOptions options;
      options.log_dir = (out_ / "logs").string();
      options.referee_key = *key;
      absl::StatusOr<std::unique_ptr<EmbeddedReferee>> embedded =
          EmbeddedReferee::Start(std::move(options));
      if (!embedded.ok()) return embedded.status();
      embedded_ = *std::move(embedded);
      address_ = embedded_->address();
      admin_token_ = embedded_->admin_token();
      referee_key_ = key->public_key();
    } else {
      address_ = t_.referee();
      if (t_.referee_key().empty()) {
        return absl::InvalidArgumentError(
            "a remote referee needs referee_key to verify the logs");
      }
      absl::StatusOr<std::string> key = ParsePublicKey(t_.referee_key());
      if (!key.ok()) return key.status();
      referee_key_ = *key;
      absl::StatusOr<std::string> token =
          ReadFileToString(t_.admin_token_file());
      if (!token.ok()) return token.status();
      admin_token_ = std::string(absl::StripAsciiWhitespace(*token));
    }
    stub_ = v1::Referee::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
    return absl::OkStatus();
  }

  absl::Status StartBots() {
    for (const v1::TournamentBot& bot : t_.bots()) {
      v1::RegisterBotRequest request;
      request.set_name(bot.name());
      if (!bot.key_file().empty()) {
        absl::StatusOr<SigningKey> key = ReadSigningKey(bot.key_file());
        if (!key.ok()) return key.status();
        request.set_public_key(key->public_key());
      }
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + admin_token_);
      v1::RegisterBotResponse response;
      grpc::Status status = stub_->RegisterBot(&context, request, &response);
      if (!status.ok()) {
        return absl::UnavailableError(absl::StrCat(
            "registering ", bot.name(), ": ", status.error_message()));
      }
      bot_ids_.push_back(response.bot_id());
      const std::string token_file =
          (out_ / "tokens" / (bot.name() + ".token")).string();
      if (absl::Status s = WriteSecret(token_file, response.bot_token());
          !s.ok()) {
        return s;
      }
      auto process = std::make_unique<BotProcess>(
          bot.name(), BotArgv(bot, address_, token_file),
          std::map<std::string, std::string>{{"PYRAMID_REFEREE", address_},
                                             {"PYRAMID_TOKEN_FILE", token_file}},
          (out_ / "bots" / (bot.name() + ".log")).string());
      if (absl::Status s = process->Start(); !s.ok()) return s;
      bots_.push_back(std::move(process));
    }
    supervisor_ = std::thread([this] { Supervise(); });
    return absl::OkStatus();
  }

  // Restarts bots that die while the tournament runs.
  void Supervise() {
    while (!done_.load()) {
      for (auto& bot : bots_) {
        const std::string how = bot->Exited();
        if (how.empty() || done_.load()) continue;
        Note(absl::StrCat("bot ", bot->name(), " ended (", how, ")",
                          bot->starts() <= kMaxRestarts ? "; restarting" : ""));
        if (bot->starts() <= kMaxRestarts) bot->Start().IgnoreError();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  void StopBots() {
    done_ = true;
    if (supervisor_.joinable()) supervisor_.join();
    for (auto& bot : bots_) bot->Stop();
  }

  void Note(const std::string& line) {
    absl::MutexLock lock(&progress_mu_);
    if (live_) progress_ << "\r\033[K";
    progress_ << line << "\n" << std::flush;
  }

  void PlayAll() {
    start_ = absl::Now();
    std::vector<std::thread> workers;
    const int n = std::min<int>(t_.concurrency(), schedule_.size());
    for (int i = 0; i < n; ++i) workers.emplace_back([this] { Work(); });
    std::thread reporter([this] { ProgressLoop(); });
    for (auto& w : workers) w.join();
    playing_done_ = true;
    reporter.join();
    ShowProgress(/*final=*/true);
  }

  void Work() {
    while (true) {
      const size_t next = next_.fetch_add(1);
      if (next >= schedule_.size()) return;
      v1::TournamentMatchResult result = Play(schedule_[next]);
      absl::MutexLock lock(&results_mu_);
      if (result.outcome().termination() == v1::TERMINATION_FORFEIT) ++forfeits_;
      results_.push_back(std::move(result));
    }
  }

  v1::TournamentMatchResult Play(const ScheduledMatch& scheduled) {
    v1::TournamentMatchResult result;
    result.set_index(scheduled.index);
    v1::CreateMatchRequest request;
    *request.mutable_game() = t_.game();
    for (int bot : scheduled.bots) {
      request.add_seats()->set_bot_id(bot_ids_[bot]);
      result.add_seats(names_[bot]);
    }
    *request.mutable_clocks() = t_.clocks();
    request.set_forfeit_policy(t_.forfeit_policy());
    v1::CreateMatchResponse created;
    {
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + admin_token_);
      grpc::Status status = stub_->CreateMatch(&context, request, &created);
      if (!status.ok()) {
        result.set_verdict("not played: " + status.error_message());
        return result;
      }
    }
    result.set_match_id(created.match_id());
    if (absl::Status s = AwaitEnd(created.match_id()); !s.ok()) {
      result.set_verdict(absl::StrCat("not finished: ", s.message()));
      return result;
    }
    const std::string file =
        absl::StrCat(t_.game().game(), "-", created.match_id(), ".pyrlog");
    result.set_log_file("logs/" + file);
    const std::string path = (out_ / "logs" / file).string();
    if (embedded_ == nullptr) {
      if (absl::Status s = Download(created.match_id(), path); !s.ok()) {
        result.set_verdict(absl::StrCat("log not fetched: ", s.message()));
        return result;
      }
    }
    absl::StatusOr<std::string> bytes = ReadFileToString(path);
    if (!bytes.ok()) {
      result.set_verdict(std::string(bytes.status().message()));
      return result;
    }
    VerifyOptions options;
    options.pinned_key = referee_key_;
    const Verdict verdict = VerifyLog(*bytes, options);
    if (verdict.kind == Verdict::Kind::kGenuine) {
      result.set_verdict("genuine");
      *result.mutable_outcome() = verdict.outcome;
    } else {
      result.set_verdict(absl::StrCat("record ", verdict.bad_record, ": ",
                                      verdict.reason));
    }
    return result;
  }

  // Waits until the match is over. With the embedded referee the runner
  // subscribes in process (a gRPC client stream to a callback server in the
  // same process trips an assertion in gRPC 1.51); otherwise it watches the
  // match's public stream until it closes.
  absl::Status AwaitEnd(const std::string& match_id) {
    if (embedded_ != nullptr) {
      std::shared_ptr<MatchHost> host = embedded_->lobby().FindMatch(match_id);
      if (host == nullptr) return absl::NotFoundError("unknown match");
      auto waiter = std::make_shared<EndWaiter>();
      host->AddWatcher(waiter);
      waiter->Wait();
      return absl::OkStatus();
    }
    grpc::ClientContext context;
    v1::WatchRequest watch;
    watch.set_match_id(match_id);
    auto reader = stub_->Watch(&context, watch);
    v1::WatchEvent event;
    while (reader->Read(&event)) {
    }
    grpc::Status status = reader->Finish();
    if (!status.ok()) return absl::UnavailableError(status.error_message());
    return absl::OkStatus();
  }

  absl::Status Download(const std::string& match_id, const std::string& path) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + admin_token_);
    v1::GetLogRequest request;
    request.set_match_id(match_id);
    auto reader = stub_->GetLog(&context, request);
    std::string bytes;
    v1::LogChunk chunk;
    while (reader->Read(&chunk)) bytes += chunk.data();
    grpc::Status status = reader->Finish();
    if (!status.ok()) return absl::UnavailableError(status.error_message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    return out ? absl::OkStatus() : absl::InternalError("cannot write " + path);
  }

  // Shows progress until every match is played.
  void ProgressLoop() {
    while (!playing_done_.load()) {
      ShowProgress(false);
      for (int i = 0; i < (live_ ? 5 : 50) && !playing_done_.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }

  void ShowProgress(bool final) {
    size_t done = 0;
    size_t forfeits = 0;
    {
      absl::MutexLock lock(&results_mu_);
      done = results_.size();
      forfeits = forfeits_;
    }
    const double seconds =
        std::max(1e-3, absl::ToDoubleSeconds(absl::Now() - start_));
    const double rate = done / seconds;
    const double eta = rate > 0 ? (schedule_.size() - done) / rate : 0;
    const std::string line = absl::StrFormat(
        "%zu/%zu matches  %.1f matches/s  ETA %.0f s  forfeits %zu", done,
        schedule_.size(), rate, eta, forfeits);
    absl::MutexLock lock(&progress_mu_);
    if (live_) {
      progress_ << "\r\033[K" << line << (final ? "\n" : "") << std::flush;
    } else {
      progress_ << line << "\n" << std::flush;
    }
  }

  absl::StatusOr<v1::TournamentResults> Report() {
    v1::TournamentResults results;
    results.set_name(t_.name());
    *results.mutable_game() = t_.game();
    results.set_referee_public_key(ToHex(referee_key_));
    results.set_scheduled(schedule_.size());
    absl::MutexLock lock(&results_mu_);
    std::sort(results_.begin(), results_.end(),
              [](const auto& a, const auto& b) { return a.index() < b.index(); });
    uint32_t verified = 0;
    for (const auto& r : results_) verified += r.verdict() == "genuine";
    results.set_verified(verified);
    for (auto& s : ComputeStandings(names_, results_)) {
      *results.add_standings() = std::move(s);
    }
    for (auto& r : results_) *results.add_matches() = std::move(r);
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    (void)google::protobuf::util::MessageToJsonString(results, &json, options);
    std::ofstream((out_ / "results.json").string(), std::ios::trunc) << json;
    embedded_.reset();
    return results;
  }

  v1::Tournament t_;
  std::ostream& progress_;
  const bool live_;
  fs::path out_;
  std::vector<std::string> names_;
  std::vector<ScheduledMatch> schedule_;

  std::unique_ptr<EmbeddedReferee> embedded_;
  std::string address_;
  std::string admin_token_;
  std::string referee_key_;
  std::unique_ptr<v1::Referee::Stub> stub_;
  std::vector<std::string> bot_ids_;
  std::vector<std::unique_ptr<BotProcess>> bots_;
  std::thread supervisor_;
  std::atomic<bool> done_{false};

  absl::Time start_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> playing_done_{false};
  absl::Mutex results_mu_;
  std::vector<v1::TournamentMatchResult> results_ ABSL_GUARDED_BY(results_mu_);
  size_t forfeits_ ABSL_GUARDED_BY(results_mu_) = 0;
  absl::Mutex progress_mu_;
};

}  // namespace

absl::StatusOr<v1::TournamentResults> RunTournament(
    const v1::Tournament& tournament, std::ostream& progress, bool live) {
  Runner runner(tournament, progress, live);
  return runner.Run();
}

}  // namespace pyramid

#include "referee/service/embedded_referee.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "referee/service/token.h"

namespace pyramid {

absl::StatusOr<std::unique_ptr<EmbeddedReferee>> EmbeddedReferee::Start(
    EmbeddedRefereeOptions options) {
  auto referee = std::unique_ptr<EmbeddedReferee>(new EmbeddedReferee());
  LobbyOptions& lobby = options.lobby;
  if (lobby.admin_token.empty()) lobby.admin_token = MintToken().token;
  referee->admin_token_ = lobby.admin_token;
  // What the service says goes where the lobby's messages go.
  if (!options.limits.messages) options.limits.messages = lobby.messages;
  referee->lobby_ = std::make_unique<Lobby>(std::move(lobby));
  referee->service_ =
      std::make_unique<RefereeService>(referee->lobby_.get(), options.limits);
  referee->health_ = std::make_unique<HealthService>(
      std::vector<std::string>{referee::v1::Referee::service_full_name(),
                               "grpc.health.v1.Health",
                               "grpc.reflection.v1alpha.ServerReflection"},
      options.max_health_watchers, "", referee->service_->write_stalls());
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.SetResourceQuota(grpc::ResourceQuota("embedded-referee")
                               .SetMaxThreads(options.max_reflection_threads));
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  if (options.max_message_bytes > 0) {
    builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  }
  referee->service_->RegisterWith(builder);
  builder.RegisterService(referee->health_.get());
  referee->server_ = builder.BuildAndStart();
  if (referee->server_ == nullptr || port == 0) {
    return absl::UnavailableError("cannot listen on 127.0.0.1");
  }
  referee->service_->Start();
  referee->address_ = absl::StrCat("127.0.0.1:", port);
  return referee;
}

EmbeddedReferee::~EmbeddedReferee() {
  if (server_ == nullptr) return;
  lobby_->connections().CloseAll(grpc::StatusCode::UNAVAILABLE,
                                 "the referee is shutting down");
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_->Wait();
  service_->Stop();
  // Once no Play message can arrive (Lobby::SuspendAll).
  lobby_->SuspendAll();
}

}  // namespace pyramid

#include "referee/service/embedded_referee.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "referee/service/token.h"

namespace pyramid {

absl::StatusOr<std::unique_ptr<EmbeddedReferee>> EmbeddedReferee::Start(
    LobbyOptions options) {
  auto referee = std::unique_ptr<EmbeddedReferee>(new EmbeddedReferee());
  if (options.admin_token.empty()) options.admin_token = MintToken().token;
  referee->admin_token_ = options.admin_token;
  referee->lobby_ = std::make_unique<Lobby>(std::move(options));
  referee->service_ = std::make_unique<RefereeService>(referee->lobby_.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(referee->service_.get());
  referee->server_ = builder.BuildAndStart();
  if (referee->server_ == nullptr || port == 0) {
    return absl::UnavailableError("cannot listen on 127.0.0.1");
  }
  referee->address_ = absl::StrCat("127.0.0.1:", port);
  return referee;
}

EmbeddedReferee::~EmbeddedReferee() {
  if (server_ == nullptr) return;
  lobby_->SuspendAll();
  lobby_->connections().CloseAll(grpc::StatusCode::UNAVAILABLE,
                                 "the referee is shutting down");
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace pyramid

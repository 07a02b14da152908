#include "referee/service/grpc_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace pyramid {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  absl::string_view message = status.message();
  if (message.size() <= kMaxStatusMessageBytes) {
    return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                        std::string(message));
  }
  // Cut on a character's first byte (UTF-8), and say so.
  size_t cut = kMaxStatusMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      absl::StrCat(message.substr(0, cut), "... (",
                                   message.size() - cut, " more bytes cut)"));
}

namespace {

// The payloads of a status that are trailers, by the prefix of their name.
constexpr absl::string_view kTrailerPrefix = "pyramid-";

}  // namespace

absl::Status WithTrailer(absl::Status status, absl::string_view key,
                         absl::string_view value) {
  status.SetPayload(key, absl::Cord(value));
  return status;
}

void AddTrailers(const absl::Status& status, grpc::ServerContextBase& context) {
  status.ForEachPayload(
      [&context](absl::string_view key, const absl::Cord& value) {
        if (!absl::StartsWith(key, kTrailerPrefix)) return;
        context.AddTrailingMetadata(std::string(key), std::string(value));
      });
}

}  // namespace pyramid

// One GetLog call's download (docs/protocol.md): the log file's first
// `size` bytes (what it held when the call came: a running match's log
// grows meanwhile), served a chunk at a time. Each chunk is read from the
// file when the write before it is done, the file opened only for that
// read, so a call holds one chunk of its log, whatever the log's size, and
// no file descriptor while its client is slow to read. A client that takes
// no chunk for `stall_timeout` (one that stopped reading) has its call
// cancelled, so that clients that never read cannot keep every place for
// good (ServiceLimits::log_stall_timeout).
#ifndef PYRAMID_REFEREE_SERVICE_LOG_DOWNLOAD_H_
#define PYRAMID_REFEREE_SERVICE_LOG_DOWNLOAD_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/service/messages.h"
#include "referee/service/peer_counts.h"
#include "referee/service/write_stall.h"

namespace pyramid {

// What a GetLog caller is answered when the log of match `match_id`, at
// `log_path`, cannot be read (`failure`: RegularFileSize's or
// ReadFileRange's, whose message names the path): UNAVAILABLE, to try
// again, when the referee is short of file descriptors or memory
// (`failure` UNAVAILABLE); DATA_LOSS otherwise, for the match is one the
// referee knows and its log is gone from the referee's disk, or cannot be
// read there (NOT_FOUND is for a match the referee does not know). The
// answer names the log's file without its directory: where the referee
// keeps its files is the operator's business (PublicBrokenReason).
// `failure` itself, with the path, is said to `messages` (Say; empty:
// stderr), naming the match and what the caller was answered.
absl::Status LogReadRefusal(const std::string& match_id,
                            const std::string& log_path,
                            const absl::Status& failure,
                            const MessageSink& messages);

// The reactor of a GetLog call (`context`) that serves `size` bytes of the
// file at `path`, the log of match `match_id`, `chunk_bytes` per chunk (0
// is taken as 1); it deletes itself when done. A chunk that cannot be read
// ends the call with LogReadRefusal's answer, said to `messages`. The
// caller has counted the call in `reading` (the service's count of GetLog
// calls, ServiceLimits::max_log_readers): the download takes it out when
// done. With `stalls`, a call that finishes no write for its timeout
// (since the last or, before the first, since the call came) is cancelled,
// within about a quarter of the timeout after (WriteStall); null: never.
// `messages`, `reading` and `stalls` must outlive the call. `slot` (its
// place among its address's calls, ServiceLimits::max_calls_per_peer;
// empty for the admin token) is held until the call is done.
grpc::ServerWriteReactor<referee::v1::LogChunk>* NewLogDownload(
    grpc::CallbackServerContext* context, std::string match_id,
    std::string path, uint64_t size, size_t chunk_bytes,
    const MessageSink* messages, std::atomic<size_t>* reading,
    WriteStallGuard* stalls, PeerSlot slot);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_LOG_DOWNLOAD_H_

#!/usr/bin/env python3
"""A stand-in referee whose one match has broken: every Play stream is sent
the DATA_LOSS PlayError a referee sends the seats of a match it could not
write the log of (referee/service/match_host.cc, Broken), and nothing else,
as a real referee does for a seat token of such a match on every connection.
A client must count that match as over (docs/protocol.md); with --matches 1
it ends instead of waiting for a MatchEnded that never comes.

    broken_match_referee.py PORT_FILE

Serves on a free loopback port, written to PORT_FILE once it listens, until
killed. Needs grpcio and the Python kit (its generated stubs).
"""
import os
import sys
from concurrent import futures

import grpc

from pyramid_kit.pb import referee_service_pb2 as pb
from pyramid_kit.pb import referee_service_pb2_grpc as pb_grpc

MATCH_ID = "b" * 32
DATA_LOSS = grpc.StatusCode.DATA_LOSS.value[0]


class BrokenReferee(pb_grpc.RefereeServicer):
    def Play(self, request_iterator, context):
        yield pb.PlayResponse(error=pb.PlayError(
            match_id=MATCH_ID, seat=0, code=DATA_LOSS,
            message="the match is broken and stopped: no space left on "
                    "device (its log verifies up to its last checkpoint)"))
        # The stream stays open, as the referee's does, until the client
        # closes it.
        for _ in request_iterator:
            pass


def main() -> int:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_RefereeServicer_to_server(BrokenReferee(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    sys.exit(main())

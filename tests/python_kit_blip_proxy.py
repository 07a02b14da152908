#!/usr/bin/env python3
"""A TCP proxy that makes a network blip, for tests/python_kit_test.sh.

Usage: python_kit_blip_proxy.py UPSTREAM PORT_FILE

UPSTREAM is HOST:PORT or a Unix socket, unix:PATH.

Contract: listens on a free loopback port (written to PORT_FILE once it
listens) and pipes every connection to UPSTREAM. On SIGUSR1 it cuts every
connection open then on the client's side only (a reset), and keeps the
upstream side open, dropping whatever comes from it: the client sees its
stream break, while the referee still holds the old stream and learns of
the blip only when the client's reconnection replaces it (ABORTED on the old
stream, which then reaches nobody). Prints one line per cut.
"""
import asyncio
import signal
import sys


async def pipe(reader: asyncio.StreamReader,
               writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass


async def drop(reader: asyncio.StreamReader) -> None:
    try:
        while await reader.read(65536):
            pass
    except ConnectionError:
        pass


async def main() -> None:
    upstream = sys.argv[1]
    live = []  # (client writer, upstream reader, upstream writer, pipes)
    held = []  # Upstream sides of cut connections, kept open.
    tasks = set()

    async def accept(client_r, client_w) -> None:
        if upstream.startswith("unix:"):
            up_r, up_w = await asyncio.open_unix_connection(
                upstream[len("unix:"):])
        else:
            host, port = upstream.rsplit(":", 1)
            up_r, up_w = await asyncio.open_connection(host, int(port))
        pipes = [asyncio.create_task(pipe(client_r, up_w)),
                 asyncio.create_task(pipe(up_r, client_w))]
        live.append((client_w, up_r, up_w, pipes))

    def cut() -> None:
        for client_w, up_r, up_w, pipes in live:
            for task in pipes:
                task.cancel()
            client_w.transport.abort()
            held.append(up_w)
            task = asyncio.create_task(drop(up_r))
            tasks.add(task)
        print(f"cut {len(live)} connection(s) on the client's side",
              flush=True)
        live.clear()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, cut)
    with open(sys.argv[2], "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())

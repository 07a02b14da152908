// What the referee says to whoever runs it about what no client is told: a
// match that broke, a failure it tries again later, a checkpoint it could
// not write. By default each message is a line on stderr; an embedder (the
// tournament, a test) may take them instead (LobbyOptions::messages).
#ifndef PYRAMID_REFEREE_SERVICE_MESSAGES_H_
#define PYRAMID_REFEREE_SERVICE_MESSAGES_H_

#include <functional>
#include <string_view>

#include "absl/time/time.h"

namespace pyramid {

// Takes one message: a sentence without the "referee: " that stderr puts
// before it, and without a newline. Called from any of the referee's
// threads, from several at once.
using MessageSink = std::function<void(std::string_view message)>;

// Gives `message` to `sink`; when `sink` is empty, writes
// "referee: <message>\n" to stderr, never waiting for its reader where
// stderr allows it (referee/files/stderr_line.h, kIfNeeded: a thread that
// says something may be serving a match or a client; another user's pipe
// or terminal, which /proc cannot open again, is written as usual). A message
// stderr does not take at once is counted, and the count said before the next
// message it takes ("referee: N messages not written: stderr did not take them
// at once"), or by FlushMessages.
void Say(const MessageSink& sink, std::string_view message);

// A sink that gives at most `lines` messages per `window` to `sink` (Say:
// empty is stderr), for messages that clients can make the referee say
// (anyone may ask for a log that is gone from its disk): the messages held
// back are counted, and said in one message before the next one given
// ("N more such messages not said (at most L per W)"), or when the last
// copy of the returned sink goes. Safe to call from several threads at
// once, as every sink is.
MessageSink LimitedSink(MessageSink sink, int lines, absl::Duration window);

// Says the count of messages not written, if any, waiting for stderr if it
// must (at the program's end).
void FlushMessages();

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_MESSAGES_H_

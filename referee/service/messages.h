// What the referee says to whoever runs it about what no client is told: a
// match that broke, a failure it tries again later, a checkpoint it could
// not write. By default each message is a line on stderr; an embedder (the
// tournament, a test) may take them instead (LobbyOptions::messages).
#ifndef PYRAMID_REFEREE_SERVICE_MESSAGES_H_
#define PYRAMID_REFEREE_SERVICE_MESSAGES_H_

#include <functional>
#include <string_view>

namespace pyramid {

// Takes one message: a sentence without the "referee: " that stderr puts
// before it, and without a newline. Called from any of the referee's
// threads, from several at once.
using MessageSink = std::function<void(std::string_view message)>;

// Gives `message` to `sink`; when `sink` is empty, writes
// "referee: <message>\n" to stderr.
void Say(const MessageSink& sink, std::string_view message);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_MESSAGES_H_

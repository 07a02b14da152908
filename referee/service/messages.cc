#include "referee/service/messages.h"

#include <iostream>
#include <string>

namespace pyramid {

void Say(const MessageSink& sink, std::string_view message) {
  if (sink) {
    sink(message);
    return;
  }
  // One insertion, not one per part: two threads' lines do not interleave
  // part by part.
  std::string line = "referee: ";
  line.append(message);
  line.push_back('\n');
  std::cerr << line;
}

}  // namespace pyramid

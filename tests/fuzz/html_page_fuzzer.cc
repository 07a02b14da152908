// Fuzz target: a whole match log file, as `replay html` reads it from
// anyone (and the tournament runner from a referee). The viewer page must
// be written for every input, never crash, leak or hit undefined
// behaviour; and nothing from the log may escape its escaping: the page
// ends as a page, and holds exactly its own two script elements.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "replay/html_page.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  const pyramid::MatchPage page =
      pyramid::RenderMatchPage(file, pyramid::VerifyOptions());
  const std::string& html = page.html;
  const std::string_view end = "</body>\n</html>\n";
  if (html.size() < end.size() ||
      html.compare(html.size() - end.size(), end.size(), end) != 0) {
    std::abort();
  }
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    ++scripts;
  }
  if (scripts != 2) std::abort();
  return 0;
}

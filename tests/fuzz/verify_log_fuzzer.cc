// Fuzz target: a whole match log file, as `replay verify`, `replay show` and
// `replay export` read it from anyone. The verifier at both levels and both
// transcript writers must return (a verdict, or an error) on every input,
// never crash, leak or hit undefined behaviour; and a log the full level
// calls genuine must be genuine at the chain level too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "replay/transcript.h"
#include "replay/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  pyramid::VerifyOptions full;
  const pyramid::Verdict verdict = pyramid::VerifyLog(file, full);
  pyramid::VerifyOptions chain;
  chain.level = pyramid::VerifyOptions::Level::kChain;
  const pyramid::Verdict chained = pyramid::VerifyLog(file, chain);
  if (verdict.kind == pyramid::Verdict::Kind::kGenuine &&
      chained.kind != pyramid::Verdict::Kind::kGenuine) {
    std::abort();  // The chain level checks a subset of the full level.
  }
  std::ostringstream out;
  (void)pyramid::WriteTranscript(file, out);
  (void)pyramid::WriteJsonLines(file, out);
  return 0;
}

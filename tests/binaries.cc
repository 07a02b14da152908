#include "tests/binaries.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"

namespace pyramid {
namespace testing_util {

std::string Bin(std::string_view name) {
  const char* env = std::getenv("PYRAMID_BIN");
  const std::filesystem::path dir =
      env != nullptr && *env != '\0' ? env : "build/bin";
  return (dir / name).string();
}

std::unique_ptr<Process> StartReferee(const std::string& port_file,
                                      const std::vector<std::string>& flags,
                                      const std::string& out,
                                      const std::string& err,
                                      absl::Duration timeout) {
  std::error_code ignored;
  std::filesystem::remove(port_file, ignored);
  std::vector<std::string> argv = {Bin("referee"), "--listen=127.0.0.1:0",
                                   "--port_file=" + port_file};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto referee = std::make_unique<Process>(argv, out, err);
  referee->WaitForFile(port_file, timeout);
  return referee;
}

std::string LoopbackAddress(const std::string& port_file) {
  const std::string port = ReadFileToString(port_file).value_or("");
  return absl::StrCat("127.0.0.1:", absl::StripAsciiWhitespace(port));
}

}  // namespace testing_util
}  // namespace pyramid

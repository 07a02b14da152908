#include "referee/cli/text_proto.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace pyramid {
namespace {

// Keeps the first error the parser reports (a parser with a collector
// logs nothing).
class FirstError final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) {
      error_ = absl::StrCat("line ", line + 1, " column ", column + 1, ": ",
                            message);
    }
  }
  // Warnings (e.g. a deprecated field) do not fail the parse.
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}

  absl::Status status() const {
    return absl::InvalidArgumentError(error_.empty() ? "unparseable" : error_);
  }

 private:
  std::string error_;
};

absl::Status Read(std::string_view text, google::protobuf::Message& message,
                  bool merge) {
  FirstError errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  const std::string input(text);
  const bool ok = merge ? parser.MergeFromString(input, &message)
                        : parser.ParseFromString(input, &message);
  return ok ? absl::OkStatus() : errors.status();
}

}  // namespace

absl::Status MergeTextProto(std::string_view text,
                            google::protobuf::Message& message) {
  return Read(text, message, /*merge=*/true);
}

absl::Status ParseTextProto(std::string_view text,
                            google::protobuf::Message& message) {
  return Read(text, message, /*merge=*/false);
}

}  // namespace pyramid

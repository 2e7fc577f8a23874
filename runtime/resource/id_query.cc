#include "runtime/resource/id_query.h"

#include <re2/re2.h>

namespace cosi {

IDQuery::IDQuery(std::string pattern, std::shared_ptr<const re2::RE2> regex)
    : pattern_(std::move(pattern)), regex_(std::move(regex)) {}

Result<IDQuery> IDQuery::compile(std::string_view pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto regex = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()),
                                                options);
  if (!regex->ok()) {
    return Error(ErrorKind::kInvalidArgument,
                 "id query \"" + std::string(pattern) + "\": " + regex->error());
  }
  return IDQuery(std::string(pattern), std::move(regex));
}

bool IDQuery::matches(std::string_view id) const {
  return re2::RE2::PartialMatch(re2::StringPiece(id.data(), id.size()), *regex_);
}

}  // namespace cosi

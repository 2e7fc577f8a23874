// IDQuery: select resources whose id matches a regular expression (RE2 syntax, the same as
// Go's regexp that talosctl users write). The match is unanchored, as on the wire:
// "^node-" selects ids that start with node-, "1" selects every id containing a 1.
//
//   auto q = IDQuery::compile("^node-[0-9]+$");   // kInvalidArgument on a bad pattern
//   q->matches("node-12")  -> true
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/base/result.h"

namespace re2 {
class RE2;
}

namespace cosi {

class IDQuery {
 public:
  static Result<IDQuery> compile(std::string_view pattern);

  bool matches(std::string_view id) const;
  const std::string& pattern() const { return pattern_; }

 private:
  IDQuery(std::string pattern, std::shared_ptr<const re2::RE2> regex);

  std::string pattern_;
  std::shared_ptr<const re2::RE2> regex_;  // immutable and thread-safe to share
};

}  // namespace cosi

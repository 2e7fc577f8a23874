#include "runtime/base/result.h"

#include <cstdio>
#include <cstdlib>

namespace cosi::detail {

void abort_on_error_access(const Error& error) {
  std::fprintf(stderr, "cosi: value() called on an error result: %s\n", error.to_string().c_str());
  std::abort();
}

void abort_on_value_access() {
  std::fprintf(stderr, "cosi: error() called on a successful result\n");
  std::abort();
}

}  // namespace cosi::detail

// cosictl's commands. Each returns what went wrong as one Error; main prints it on one line
// and exits non-zero.
#pragma once

#include <string>
#include <vector>

#include "cmd/cosictl/connection.h"

namespace cosi::cosictl {

struct GetOptions {
  std::string type;
  std::string id;  // empty: every resource of the type
  std::string ns;  // empty: the type's default namespace
  std::string output = "table";
  bool watch = false;
};

Status run_version(const Connection& c);
Status run_get(const Connection& c, const GetOptions& o);
Status run_inspect_dependencies(const Connection& c);

}  // namespace cosi::cosictl

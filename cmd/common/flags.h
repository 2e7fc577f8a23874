// Flags: GNU-style command-line flags for machined and cosictl —
// "--name value", "--name=value", "-n value", booleans as "--name" (or --name=false).
// Anything else is a positional argument. Errors name the flag.
//
//   std::string listen = "0.0.0.0:50000"; bool insecure = false;
//   Flags flags;
//   flags.value("listen", 0, &listen, "gRPC listen address");
//   flags.boolean("insecure-dev", 0, &insecure, "plaintext gRPC, loopback only");
//   auto positional = flags.parse(argc, argv);   // or kInvalidArgument: "unknown flag --x"
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cmd {

class Flags {
 public:
  void value(std::string name, char short_name, std::string* target, std::string help);
  void list(std::string name, char short_name, std::vector<std::string>* target, std::string help);  // repeatable, comma-split
  void boolean(std::string name, char short_name, bool* target, std::string help);
  // Repeatable, each value kept whole (patches may contain commas).
  void repeated(std::string name, char short_name, std::vector<std::string>* target, std::string help);

  // Positional arguments. Parsing stops at "--".
  Result<std::vector<std::string>> parse(const std::vector<std::string>& args);
  Result<std::vector<std::string>> parse(int argc, char** argv) { return parse({argv + 1, argv + argc}); }
  std::string usage() const;

 private:
  struct Spec {
    std::string name;
    char short_name;
    std::string* value = nullptr;
    std::vector<std::string>* list = nullptr;
    bool* flag = nullptr;
    std::string help;
    bool split = true;
  };
  const Spec* find(const std::string& name) const;
  const Spec* find(char short_name) const;

  std::vector<Spec> specs_;
};

}  // namespace cosi::cmd

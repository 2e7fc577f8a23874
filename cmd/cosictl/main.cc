// cosictl: the command line for cosi-cpp nodes, with talosctl's commands and output.
//
//   cosictl -e 127.0.7.1 -n 127.0.7.1 version
//   cosictl -e 127.0.7.1 get members -o yaml
//   cosictl -e 127.0.7.1 get rd
//   cosictl -e 127.0.7.1 inspect dependencies | dot -Tpng > deps.png
#include <cstdio>

#include "cmd/common/flags.h"
#include "cmd/cosictl/commands.h"

namespace {

using namespace cosi;

constexpr const char* kUsage =
    "usage: cosictl [global flags] <command> [flags]\n"
    "\n"
    "commands:\n"
    "  version                          client and node versions\n"
    "  get <type|alias> [id]            resources (-o table|yaml|json, -w to watch, --namespace NS)\n"
    "  inspect dependencies             the controller dependency graph as DOT\n"
    "\n"
    "global flags:\n";

int fail(const std::string& message) {
  std::fprintf(stderr, "cosictl: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> endpoints, nodes;
  std::string timeout = "10";
  bool help = false;
  cosictl::GetOptions get;
  cmd::Flags flags;
  flags.list("endpoints", 'e', &endpoints, "endpoint to dial: host or host:port (port 50000 by default)");
  flags.list("nodes", 'n', &nodes, "nodes to target (sent as node metadata; default: the endpoint)");
  flags.value("timeout", 0, &timeout, "seconds before a call gives up (default 10)");
  flags.value("output", 'o', &get.output, "get: table, yaml or json");
  flags.value("namespace", 0, &get.ns, "get: the namespace (default: the type's)");
  flags.boolean("watch", 'w', &get.watch, "get: watch for changes");
  flags.boolean("help", 'h', &help, "this help");
  auto args = flags.parse(argc, argv);
  if (!args.ok()) return fail(args.error().message());
  if (help || args->empty()) {
    std::printf("%s%s", kUsage, flags.usage().c_str());
    return help ? 0 : 1;
  }
  int seconds = 0;
  try {
    seconds = std::stoi(timeout);
  } catch (...) {
    return fail("--timeout \"" + timeout + "\" is not a number of seconds");
  }
  if (seconds <= 0) return fail("--timeout must be at least 1 second");
  auto connection = cosictl::Connection::open(endpoints, nodes, std::chrono::seconds(seconds));
  if (!connection.ok()) return fail(connection.error().message());

  const std::string& command = args->front();
  Status result;
  if (command == "version" && args->size() == 1) {
    result = cosictl::run_version(*connection);
  } else if (command == "get" && (args->size() == 2 || args->size() == 3)) {
    get.type = (*args)[1];
    if (args->size() == 3) get.id = (*args)[2];
    result = cosictl::run_get(*connection, get);
  } else if (command == "inspect" && args->size() == 2 && (*args)[1] == "dependencies") {
    result = cosictl::run_inspect_dependencies(*connection);
  } else {
    return fail("unknown command \"" + command + "\" or wrong arguments; cosictl --help lists them");
  }
  if (!result.ok()) return fail(result.error().message());
  return 0;
}

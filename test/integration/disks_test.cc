// Disks and the install disk with real processes (127.45.0.x): the seed's maintenance-mode
// transcript against a machined that checks install disks (no --no-install), reading a sysfs
// tree of the test's own — `disks --insecure` and `get disks --insecure` as talosctl prints
// them, apply-config refused for /dev/sda in Talos's words with nothing changed, then accepted
// with the disk the node has — and a machined reading the host's own sysfs: its disks listed, a
// loop device attached and detached seen through the kernel's uevents (as root).
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test/integration/local_cluster.h"
#include "test/support/eventually.h"
#include "test/support/fake_sysfs.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

struct Dir {
  explicit Dir(const std::string& name) : path(fs::temp_directory_path() / ("cosi-disks-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  fs::path path;
};

TEST_CASE("maintenance mode: the seed's disks, and an install disk that does not exist refused", "[disks]") {
  Dir dir("seed");
  FakeSysfs sys(dir.path / "host");
  sys.add({.name = "vda", .bus = "pci0000:00/0000:00:06.0/virtio2", .major_minor = "254:0", .sectors = 134765625,
           .rotational = true, .modalias = "virtio:d00000002v00001AF4"});
  const std::string ip = "127.45.0.10";
  Process node({binary("COSI_MACHINED"), "--listen", ip + ":50000", "--state-dir", (dir.path / "state").string(), "--hostname",
                "disks-cp", "--sysfs-root", sys.root(), "--udev-data", sys.udev()});
  REQUIRE(node.wait_for_line("machined ready", in_seconds(10)));

  // The older verb, exactly as the seed shows it.
  RunResult disks;
  REQUIRE(eventually([&] {
    disks = cosictl({"--insecure", "-n", ip, "disks"});
    return disks.status == 0 && disks.out.find("/dev/vda") != std::string::npos;
  }, in_seconds(10)));
  CHECK(disks.out ==
        "DEV        MODEL   SERIAL   TYPE   UUID   WWID   MODALIAS                    NAME   SIZE    BUS_PATH\n"
        "/dev/vda   -       -        HDD    -      -      virtio:d00000002v00001AF4   -      69 GB   /pci0000:00/0000:00:06.0/virtio2/\n");
  // And the resource, as `talosctl get disks --insecure` prints it.
  auto get = cosictl({"--insecure", "-n", ip, "get", "disks"});
  INFO(get.err);
  REQUIRE(get.status == 0);
  CHECK(get.out ==
        "NODE          NAMESPACE   TYPE   ID    VERSION   SIZE    READ ONLY   TRANSPORT   ROTATIONAL   WWID   MODEL   SERIAL\n"
        "127.45.0.10   runtime     Disk   vda   1         69 GB   false       virtio      true                        \n");

  // The generated config installs to /dev/sda: refused, in Talos's words, and nothing changes.
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + ip + ":6443", "-o", (dir.path / "sda").string()}).status == 0);
  auto refused = cosictl({"apply-config", "--insecure", "-n", ip, "-f", (dir.path / "sda/controlplane.yaml").string()});
  CHECK(refused.status != 0);
  CHECK(refused.err == "cosictl: " + ip +
                           ": error applying new configuration: rpc error: code = InvalidArgument desc = configuration validation "
                           "failed: 1 error occurred:\n\t* specified install disk does not exist: \"/dev/sda\"\n\n\n");
  CHECK(cosictl({"--insecure", "-n", ip, "disks"}).status == 0);  // still in maintenance mode
  CHECK_FALSE(fs::exists(dir.path / "state/config.yaml"));

  // With the disk the node has, it is taken.
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + ip + ":6443", "--install-disk", "/dev/vda", "-o",
                   (dir.path / "vda").string()}).status == 0);
  auto applied = cosictl({"apply-config", "--insecure", "-n", ip, "-f", (dir.path / "vda/controlplane.yaml").string()});
  INFO(applied.err);
  CHECK(applied.status == 0);
  CHECK(fs::exists(dir.path / "state/config.yaml"));
  CHECK(node.wait_for_line("leaving maintenance mode", in_seconds(10)));
  auto secure = cosictl({"--talosconfig", (dir.path / "vda/talosconfig").string(), "-e", ip, "-n", ip, "get", "disks"});
  INFO(secure.err);
  CHECK(secure.status == 0);
  CHECK_THAT(secure.out, Contains("vda"));
}

TEST_CASE("the host's own disks, and a loop device attached and detached (uevents)", "[disks]") {
  Dir dir("host");
  const std::string ip = "127.45.0.20";
  Process node({binary("COSI_MACHINED"), "--listen", ip + ":50000", "--state-dir", (dir.path / "state").string(), "--hostname",
                "disks-host"});
  REQUIRE(node.wait_for_line("machined ready", in_seconds(10)));
  RunResult listed;
  REQUIRE(eventually([&] {
    listed = cosictl({"--insecure", "-n", ip, "get", "disks", "-o", "yaml"});
    return listed.status == 0 && listed.out.find("dev_path: /dev/") != std::string::npos;
  }, in_seconds(10)));
  CHECK_THAT(listed.out, Contains("pretty_size: "));

  if (geteuid() != 0) {
    WARN("not root: no loop device attached");
    return;
  }
  const std::string backing = (dir.path / "loop.img").string();
  std::ofstream(backing).close();
  fs::resize_file(backing, 10 * 1024 * 1024);
  auto attached = run({"losetup", "--find", "--show", backing}, in_seconds(10));
  if (attached.status != 0) {
    WARN("losetup could not attach a loop device here: " << attached.err);
    return;
  }
  std::string device = attached.out.substr(0, attached.out.find('\n'));  // /dev/loopN
  const std::string id = device.substr(device.rfind('/') + 1);
  struct Detach {
    std::string device;
    ~Detach() {
      if (!device.empty()) run({"losetup", "--detach", device}, in_seconds(10));
    }
  } detach{device};
  auto disk_listed = [&] {
    auto r = cosictl({"--insecure", "-n", ip, "get", "disks", id, "-o", "yaml"});
    return r.status == 0 && r.out.find("size: 10485760") != std::string::npos;
  };
  CHECK(eventually(disk_listed, in_seconds(5)));
  REQUIRE(run({"losetup", "--detach", device}, in_seconds(10)).status == 0);
  detach.device.clear();
  CHECK(eventually([&] { return !disk_listed(); }, in_seconds(5)));
}

}  // namespace
}  // namespace cosi::testing

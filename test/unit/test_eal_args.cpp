// The EAL's argv as built from the config and the plan (eal_args.hpp), and
// the devargs that name a PCI device rather than a virtual one.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "eal_args.hpp"

using namespace pmdfwd;

TEST_CASE("eal args: built from config and plan", "[small][eal_args]") {
    Config cfg;
    cfg.eal.lcores = "0@0,1@0,2@1";
    cfg.eal.file_prefix = "pf";
    cfg.eal.memory_mb = 256;
    PortConfig p0, p1;
    p0.name = "p0";
    p0.devargs = "net_null0";
    p1.name = "p1";
    p1.devargs = "net_tap0,iface=t0";
    cfg.ports = {p0, p1};
    Plan plan;
    plan.main_lcore = 0;
    CHECK(build_eal_args(cfg, plan) ==
          std::vector<std::string>{"pmdfwd", "--lcores", "0@0,1@0,2@1", "--main-lcore", "0",
                                   "--file-prefix", "pf", "-m", "256", "--no-huge", "--vdev",
                                   "net_null0", "--vdev", "net_tap0,iface=t0", "--no-pci"});

    cfg.eal.hugepages = true;
    cfg.control.telemetry = false;
    cfg.ports[1].devargs = "0000:03:00.1,txq_inline=128";
    cfg.eal.extra_args = {"--log-level", "pmd.net.*:debug"};
    plan.main_lcore = 5;
    CHECK(build_eal_args(cfg, plan) ==
          std::vector<std::string>{
              "pmdfwd", "--lcores", "0@0,1@0,2@1", "--main-lcore", "5", "--file-prefix", "pf", "-m",
              "256", "--huge-unlink", "--no-telemetry", "--vdev", "net_null0", "-a",
              "0000:03:00.1,txq_inline=128", "--log-level", "pmd.net.*:debug"});

    // A capture's secondary process opens the hugepage files by name.
    cfg.control.capture = true;
    const auto args = build_eal_args(cfg, plan);
    CHECK(std::find(args.begin(), args.end(), "--huge-unlink") == args.end());
    CHECK(std::find(args.begin(), args.end(), "--no-huge") == args.end());
    CHECK(args.size() == 16);
}

TEST_CASE("eal args: PCI addresses and device names", "[small][eal_args]") {
    for (const char* pci : {"0000:01:00.0", "01:00.0", "ffff:ff:1f.7", "0000:AB:cd.3",
                            "01:00.0,rxq=2", "0000:01:00.0,a=b,c=d"}) {
        INFO(pci);
        CHECK(is_pci_devargs(pci));
    }
    for (const char* vdev :
         {"net_null0", "net_tap0,iface=x", "", "0000:01:00.8", "1:00.0", "01:00", "01:00.",
          "00000:01:00.0", "0000-01:00.0", "01:00.0x", "g000:01:00.0", "net_ring0,01:00.0"}) {
        INFO(vdev);
        CHECK_FALSE(is_pci_devargs(vdev));
    }
    CHECK(devargs_name("net_tap0,iface=pmd0") == "net_tap0");
    CHECK(devargs_name("0000:01:00.0") == "0000:01:00.0");
    CHECK(devargs_name(",x") == "");
    CHECK(devargs_name("") == "");
}

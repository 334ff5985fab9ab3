"""What the runs need before the first one starts: pmdfwd (built, and a
private copy), the DPDK examples l2fwd and l3fwd built from Debian's
sources, the captures and the router comparisons' route tables."""
import glob
import os
import re
import shutil
import subprocess
import sys

import bench_common as common
from bench_common import die, log

L2FWD_SRC = "/usr/share/dpdk/examples/l2fwd/main.c"
L3FWD_SRC = "/usr/share/dpdk/examples/l3fwd"
NINJA_TARGETS = ["app/pmdfwd/pmdfwd", "app/pmdgen/pmdgen", "app/pmdctl/pmdctl", "test/netlog_bench",
                 "test/fib_lookup_bench", "test/handoff_bench"]
# Its Makefile's sources; em, fib, acl and the event modes link in unused.
L3FWD_SOURCES = ["main.c", "l3fwd_acl.c", "l3fwd_lpm.c", "l3fwd_fib.c", "l3fwd_em.c",
                 "l3fwd_event.c", "l3fwd_event_generic.c", "l3fwd_event_internal_port.c"]


class Artefacts:
    """The programs and files the peers run with, under the bench directory."""

    def __init__(self, paths: common.Paths, flows: str):
        out = paths.out
        self.pmdfwd_built = f"{paths.build}/app/pmdfwd/pmdfwd"
        # A private copy, so a rebuild during the run cannot change what is measured.
        self.pmdfwd = f"{out}/pmdfwd"
        self.pmdfwd_base = f"{out}/pmdfwd-baseline"
        self.l2fwd = f"{out}/l2fwd"
        self.l3fwd = f"{out}/l3fwd"
        self.l3fwd_src = f"{out}/l3fwd-src"
        self.pcap = f"{out}/flows-{flows}.pcap"
        mac = common.PCAP0_MAC.replace(":", "")  # older captures went elsewhere
        self.pcap_l3v4 = f"{out}/flows-{flows}-l3v4-to-{mac}.pcap"
        self.pcap_l3v6 = f"{out}/flows-{flows}-l3v6-to-{mac}.pcap"
        self.l3_dir = f"{out}/l3"
        self.tree = "?"

    def routes_toml(self, routes: int) -> str:
        return f"{self.l3_dir}/routes-{routes}.toml"


def pkg_config(*args) -> list:
    """libdpdk's flags, split into words as the shell would."""
    return subprocess.run(["pkg-config", *args, "libdpdk"], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.split()


def prepare_bench_dir(paths: common.Paths):
    os.makedirs(paths.logs, exist_ok=True)
    os.makedirs(paths.cfg, exist_ok=True)
    for stale in glob.glob(f"{paths.logs}/*.log") + glob.glob(f"{paths.cfg}/*.toml"):
        os.remove(stale)


def build_pmdfwd(paths: common.Paths, art: Artefacts, opts):
    if opts.do_build:
        if not os.path.isfile(f"{paths.build}/build.ninja"):
            status = common.run(["meson", "setup", paths.build, paths.root],
                                stdout=subprocess.DEVNULL)
            if status != 0:
                raise common.BenchFailed(status=status)
        if common.run(["ninja", "-C", paths.build, *NINJA_TARGETS], stdout=subprocess.DEVNULL) != 0:
            die("building pmdfwd failed")
    if not os.access(art.pmdfwd_built, os.X_OK):
        die(f"{art.pmdfwd_built} missing (run without --no-build)")
    shutil.copy(art.pmdfwd_built, art.pmdfwd)
    if opts.baseline:
        try:
            shutil.copy(opts.baseline, art.pmdfwd_base)
        except OSError as e:
            raise common.BenchFailed(f"cannot copy {opts.baseline}: {e.strerror}", status=1)
    described = subprocess.run(["git", "-C", paths.root, "describe", "--always", "--dirty"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    art.tree = described.stdout.rstrip("\n") if described.returncode == 0 else "?"


def build_l2fwd(art: Artefacts):
    if os.access(art.l2fwd, os.X_OK) and not common.newer(L2FWD_SRC, art.l2fwd):
        return
    if not os.path.isfile(L2FWD_SRC):
        die(f"{L2FWD_SRC} missing (Debian package dpdk-doc)")
    # The example's own Makefile flags: -O3 and libdpdk's cflags (which carry
    # the same -march as pmdfwd's build).
    cmd = ["cc", "-O3", *pkg_config("--cflags"), "-DALLOW_EXPERIMENTAL_API",
           "-Wno-deprecated-declarations", L2FWD_SRC, "-o", art.l2fwd, *pkg_config("--libs")]
    if common.run(cmd) != 0:
        die("building l2fwd failed")
    log(f"built {art.l2fwd} from {L2FWD_SRC}")


def patch_l3fwd_offloads(main_c: str):
    """One change to the example: it asks every port for IPv4 checksum
    offload (which it never reads: its RFC 1812 checks leave the checksum
    to hardware), and net_pcap and net_null have none, so
    rte_eth_dev_configure fails. Ask only for what the port offers, as it
    already does for the RSS hash functions."""
    with open(main_c) as f:
        text = f.read()
    text = re.sub(r"^(\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=)$",
                  "\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n\\1",
                  text, flags=re.M)
    text = re.sub(r"^(\t\t\trxq_conf.offloads = port_conf.rxmode.offloads);$",
                  "\\1 &\n\t\t\t\tdev_info.rx_offload_capa;", text, flags=re.M)
    with open(main_c, "w") as f:
        f.write(text)
    if sum("dev_info.rx_offload_capa;" in line for line in text.splitlines()) != 2:
        die(f"patching {main_c} failed (another l3fwd version?)")


def build_l3fwd(art: Artefacts):
    # This file holds the patch: a change to it rebuilds l3fwd too.
    if (os.access(art.l3fwd, os.X_OK) and not common.newer(f"{L3FWD_SRC}/main.c", art.l3fwd)
            and not common.newer(os.path.abspath(__file__), art.l3fwd)):
        return
    if not os.path.isfile(f"{L3FWD_SRC}/main.c"):
        die(f"{L3FWD_SRC} missing (Debian package dpdk-doc)")
    shutil.rmtree(art.l3fwd_src, ignore_errors=True)
    shutil.copytree(L3FWD_SRC, art.l3fwd_src, symlinks=True)
    patch_l3fwd_offloads(f"{art.l3fwd_src}/main.c")
    # Its Makefile's flags: -O3, libdpdk's cflags, ../common, experimental APIs.
    cmd = ["cc", "-O3", *pkg_config("--cflags"), f"-I{L3FWD_SRC}/../common",
           "-DALLOW_EXPERIMENTAL_API", "-Wno-deprecated-declarations", *L3FWD_SOURCES,
           "-o", art.l3fwd, *pkg_config("--libs")]
    if common.run(cmd, cwd=art.l3fwd_src) != 0:
        die("building l3fwd failed")
    log(f"built {art.l3fwd} from {L3FWD_SRC} (rx offloads limited to the port's)")


def make_capture(paths: common.Paths, capture: str, flows: str, *extra):
    """A capture of FLOWS flows (scapy, in Debian's python3); its report goes to stderr."""
    if os.path.isfile(capture) and os.path.getsize(capture) > 0:
        return
    cmd = [common.PY, paths.helper("bench_flows_pcap.py"), capture, "--flows", flows,
           "--size", str(common.FRAME), *extra]
    if common.run(cmd, stdout=sys.stderr) != 0:
        die(f"generating {capture} failed (needs python3-scapy)")


def write_route_tables(paths: common.Paths, art: Artefacts):
    """pmdfwd's config fragments (one per table size) and l3fwd's rule files."""
    os.makedirs(art.l3_dir, exist_ok=True)
    routes_helper = paths.helper("bench_l3_routes.py")
    for routes in (common.L3_ROUTES, common.L3_ROUTES_1K, common.L3_ROUTES_MAX):
        toml = art.routes_toml(routes)
        if os.path.exists(toml):
            os.remove(toml)  # the helper appends
        if common.run([common.PY, routes_helper, "--v4", str(routes), "--v6", str(common.L3_ROUTES),
                       "--toml", toml]) != 0:
            die(f"writing the {routes}-route table failed")
    if common.run([common.PY, routes_helper, "--v4", str(common.L3_ROUTES),
                   "--v6", str(common.L3_ROUTES), "--l3fwd-rules",
                   f"{art.l3_dir}/l3fwd-v4.cfg", f"{art.l3_dir}/l3fwd-v6.cfg"]) != 0:
        die("writing l3fwd's rules failed")


def wants_router(opts) -> bool:
    return any(c.startswith("l3") or c in ("base-l3", "instructions")
               for c in opts.comparison_list)


def prepare(paths: common.Paths, opts) -> Artefacts:
    art = Artefacts(paths, opts.flows)
    prepare_bench_dir(paths)
    build_pmdfwd(paths, art, opts)
    build_l2fwd(art)
    if (any(s.startswith("pcap") for s in opts.setup_list)
            or "instructions" in opts.comparison_list):
        make_capture(paths, art.pcap, opts.flows)
    # Router mode: l3fwd, two captures whose flows each hit a route of their
    # own, and the route tables (pmdfwd's config fragments, l3fwd's rule files).
    if wants_router(opts):
        build_l3fwd(art)
        make_capture(paths, art.pcap_l3v4, opts.flows, "--dst", "198.18.{n}.1",
                     "--dst-mac", common.PCAP0_MAC)
        make_capture(paths, art.pcap_l3v6, opts.flows, "--ipv6", "--dst", "2001:2:0:{n:x}::1",
                     "--dst-mac", common.PCAP0_MAC)
        write_route_tables(paths, art)
    return art

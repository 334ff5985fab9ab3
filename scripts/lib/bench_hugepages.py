"""2 MB hugepages for the *-huge set-ups: reserved (and hugetlbfs mounted)
for a set-up, and the machine given back exactly as it was."""
import os
import subprocess

import bench_common as common
from bench_common import log

NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
MOUNT_POINT = "/dev/hugepages"


def read_nr_hugepages() -> str:
    with open(NR_HUGEPAGES) as f:
        return f.read().strip()


def write_nr_hugepages(value) -> bool:
    try:
        with open(NR_HUGEPAGES, "w") as f:
            f.write(f"{value}\n")
        return True
    except OSError:
        return False


def hugetlbfs_mounted() -> bool:
    with open("/proc/mounts") as f:
        return any(len(fields) > 2 and fields[2] == "hugetlbfs"
                   for fields in (line.split() for line in f))


def free_hugepages() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                return int(line.split()[1])
    return 0


class Hugepages:
    """What was there before the reservation, to put back on restore (and at exit)."""

    def __init__(self, wanted: int):
        self.wanted = wanted
        self.saved = None
        self.mounted = False
        self.made_dir = False

    def reserve(self):
        if self.saved is not None:
            return
        self.saved = read_nr_hugepages()
        if not hugetlbfs_mounted():
            if not os.path.isdir(MOUNT_POINT):
                os.makedirs(MOUNT_POINT, exist_ok=True)
                self.made_dir = True
            if common.run(["mount", "-t", "hugetlbfs", "nodev", MOUNT_POINT]) != 0:
                common.die(f"cannot mount hugetlbfs on {MOUNT_POINT}")
            self.mounted = True
        if int(self.saved) < self.wanted:
            write_nr_hugepages(self.wanted)
        free = free_hugepages()
        # One process at a time uses MEM_MB of them (-m), plus EAL's slack.
        needed = common.MEM_MB // 2 + 64
        if free < needed:
            common.die(f"only {free} free 2 MB hugepages after asking for {self.wanted}; "
                       f"need {needed}")
        log(f"hugepages: nr_hugepages {self.saved} -> {read_nr_hugepages()}, {free} free")

    def restore(self):
        if self.saved is None:
            return
        write_nr_hugepages(self.saved)
        if self.mounted:
            subprocess.run(["umount", MOUNT_POINT], stdin=subprocess.DEVNULL)
            if self.made_dir:
                try:
                    os.rmdir(MOUNT_POINT)
                except OSError:
                    pass
        log(f"hugepages: nr_hugepages back to {read_nr_hugepages()}")
        self.saved = None
        self.mounted = False
        self.made_dir = False

# Hugepages for one end-to-end test: adds pages to the machine's pool (never
# sets an absolute count, so another user's reservation stands) and mounts a
# hugetlbfs of the test's own for EAL's --huge-dir; hugepages_give_back
# removes what EAL left there, unmounts, and takes the same number of pages
# back out. Source it; call hugepages_give_back from the test's EXIT trap.
HP_ADDED=0
HP_DIR=

# hugepages_add PAGES DIR: 2 MB pages; false if the kernel gave fewer.
hugepages_add() {
  local want=$1 before after
  HP_DIR=$2
  before=$(cat /proc/sys/vm/nr_hugepages)
  echo $((before + want)) >/proc/sys/vm/nr_hugepages
  after=$(cat /proc/sys/vm/nr_hugepages)
  HP_ADDED=$((after - before))
  mkdir -p "$HP_DIR"
  mount -t hugetlbfs -o pagesize=2M nodev "$HP_DIR" || { HP_DIR=; return 1; }
  ((HP_ADDED >= want))
}

hugepages_give_back() {
  if [[ -n $HP_DIR ]]; then
    rm -f "$HP_DIR"/* 2>/dev/null
    umount "$HP_DIR" 2>/dev/null
    rmdir "$HP_DIR" 2>/dev/null
    HP_DIR=
  fi
  if ((HP_ADDED > 0)); then
    echo $(($(cat /proc/sys/vm/nr_hugepages) - HP_ADDED)) >/proc/sys/vm/nr_hugepages
    HP_ADDED=0
  fi
}

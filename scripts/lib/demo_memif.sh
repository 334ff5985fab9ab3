# The memif demo profile (scripts/demo memif): pmdgen's probes through pmdfwd
# over memif (config/memif.toml), once per poll mode that memif allows: a low
# rate and full speed, then idle, with pmdctl's view of the worker's time,
# CPU share and residence time. Sourced by scripts/demo after the build.
# Not local: the EXIT trap runs after the function has returned.
DEMO_MEMIF_PREFIX=pmdfwd-demo-memif
DEMO_MEMIF_GEN_PREFIX=pmdgen-demo
demo_memif() {
  local prefix=$DEMO_MEMIF_PREFIX gen_prefix=$DEMO_MEMIF_GEN_PREFIX mode cfg log work
  work=$(mktemp -d /tmp/pmdfwd-demo-memif.XXXXXX)
  DEMO_MEMIF_WORK=$work
  local pmdctl=(build/app/pmdctl/pmdctl --file-prefix "$prefix")
  local gen=(build/app/pmdgen/pmdgen --tx "net_memif0,role=client,socket=$work/memif.sock,id=0"
             --rx "net_memif1,role=client,socket=$work/memif.sock,id=1"
             --file-prefix "$gen_prefix" --lcore 0)
  # shellcheck disable=SC2317  # invoked by the trap
  demo_memif_cleanup() {
    set +e
    [[ -n ${PMDFWD_PID:-} ]] && stop_pmdfwd "$PMDFWD_PID" TERM
    cleanup_dpdk_prefix "$DEMO_MEMIF_PREFIX"; cleanup_dpdk_prefix "$DEMO_MEMIF_GEN_PREFIX"
    rm -rf "$DEMO_MEMIF_WORK"
  }
  trap demo_memif_cleanup EXIT
  trap 'exit 130' INT TERM
  for mode in busy adaptive; do
    cfg=$work/memif-$mode.toml log=$work/pmdfwd-$mode.log
    sed -e "s/^file_prefix = .*/file_prefix = \"$prefix\"/" \
        -e "s|socket=/run/pmdfwd-memif.sock|socket=$work/memif.sock|" \
        -e "s/^mode = \"busy\".*/mode = \"$mode\"/" config/memif.toml >"$cfg"
    echo "### pmdfwd with poll = \"$mode\" between two memif interfaces"
    build/app/pmdfwd/pmdfwd --config "$cfg" --check | sed -n 's/^  worker/  worker/p'
    start_pmdfwd build/app/pmdfwd/pmdfwd "$cfg" "$prefix" "$log"
    echo "### pmdgen: 10000 packets/s for 3 s, 16 flows (the first second is warm-up)"
    "${gen[@]}" --rate 10000 --duration 3 --warmup 1 --flows 16
    echo "### pmdgen: full speed for 2 s"
    "${gen[@]}" --duration 2 --interval 0
    echo "### pmdctl show latency (residence time inside pmdfwd)"
    "${pmdctl[@]}" show latency
    echo "### idle for 2 s: the worker's time and CPU share"
    sleep 1
    "${pmdctl[@]}" clear stats >/dev/null
    sleep 2
    "${pmdctl[@]}" show workers | sed -n '/^time/,/^$/p'
    stop_pmdfwd "$PMDFWD_PID" TERM
    PMDFWD_PID=
    grep -E "pools full|missing|double free" "$log" || true
  done
  echo "(poll = \"interrupt\" needs rx interrupts, which net_memif does not have:"
  build/app/pmdfwd/pmdfwd --check --config <(sed 's/^mode = "busy".*/mode = "interrupt"/' \
    config/memif.toml) 2>&1 | sed 's/^/  /' || true
  echo ")"
}

#!/usr/bin/env bash
# Bounded libFuzzer run of the config loader (parse_config + build_plan under
# ASan/UBSan): builds build-fuzz/ with clang if needed, replays every seed,
# then fuzzes for FUZZ_SECONDS (default 30) on a temporary copy of the seeds
# (test/fuzz/corpus, config/*.toml, test/config/bad/*), so the repository
# corpus is never written. A crash is copied to build-fuzz/fuzz-artifacts/.
# Usage: run.sh [FUZZ_BUILD_DIR]   (default: build-fuzz)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build-fuzz}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
SECONDS_TO_FUZZ=${FUZZ_SECONDS:-30}
FUZZER=$BUILD/test/fuzz/config_fuzz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=../e2e/lib.sh
source "$ROOT/test/e2e/lib.sh"

# Keep what a failing run found, and show the sanitizer's report.
report_crash() {
  local log=$1
  mkdir -p "$BUILD/fuzz-artifacts"
  cp "$WORK"/art/* "$BUILD/fuzz-artifacts/" 2>/dev/null
  grep -E "^Running: " "$log" | tail -1 | sed "s|^Running: $WORK/corpus/|  input: |"
  grep -E "runtime error|Assertion|==ERROR|^SUMMARY" "$log" | head -5 | sed 's/^/  /'
  ls "$WORK"/art/* 2>/dev/null | sed "s|^$WORK/art/|  kept: $BUILD/fuzz-artifacts/|"
}

# Build. clang is needed for -fsanitize=fuzzer.
if ! command -v clang++ >/dev/null; then
  fail build "clang++ is not installed (apt-get install clang libclang-rt-dev)"
  summary; exit 1
fi
if [[ ! -f $BUILD/build.ninja ]]; then
  if ! (cd "$ROOT" && CXX=clang++ meson setup "$BUILD" -Dfuzz_only=true) >"$WORK/setup.log" 2>&1; then
    fail build "meson setup failed:"; tail -20 "$WORK/setup.log"
    summary; exit 1
  fi
fi
if ninja -C "$BUILD" test/fuzz/config_fuzz >"$WORK/build.log" 2>&1; then
  pass build
else
  fail build "ninja failed:"; tail -30 "$WORK/build.log"
  summary; exit 1
fi

# Seeds, copied so that libFuzzer's new inputs land in the temporary copy.
mkdir -p "$WORK/corpus" "$WORK/art"
cp "$ROOT"/test/fuzz/corpus/* "$ROOT"/config/*.toml "$WORK/corpus/"
for f in "$ROOT"/test/config/bad/*; do
  [[ $(basename "$f") == expected.txt ]] || cp "$f" "$WORK/corpus/bad-$(basename "$f")"
done
SEEDS=$(ls "$WORK/corpus" | wc -l)

# TOML tokens help the mutator build structure the guard lets through.
cat >"$WORK/toml.dict" <<'EOF'
"="
"["
"]"
"[["
"]]"
"{"
"}"
","
"."
"#"
"\x22"
"'"
"\x22\x22\x22"
"'''"
"\\"
"\\u00e9"
"\\U0001F600"
"true"
"false"
"inf"
"nan"
"0x"
"0o"
"0b"
"1e"
"_"
"1979-05-27T07:32:00Z"
"07:32:00"
"\x0d\x0a"
"\xc3\xa9"
"\xe3\x80\x80"
"[[port]]"
"[eal]"
"[forward]"
"[pool]"
"[control]"
"[log]"
"next_hop_mac"
"pairs"
"lcores"
"rx_queues"
"devargs"
"name"
"mode"
"\x22l2\x22"
"\x22patch\x22"
"\x2202:00:00:00:00:01\x22"
EOF

# Every seed once: a regression check for past findings.
if "$FUZZER" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$WORK/art/" \
     "$WORK"/corpus/* >"$WORK/seeds.log" 2>&1; then
  pass "seeds ($SEEDS inputs)"
else
  fail seeds "a seed crashes the loader"
  report_crash "$WORK/seeds.log"
fi

# Bounded fuzzing.
if "$FUZZER" -max_total_time="$SECONDS_TO_FUZZ" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
     -dict="$WORK/toml.dict" -artifact_prefix="$WORK/art/" -print_final_stats=1 \
     "$WORK/corpus" >"$WORK/fuzz.log" 2>&1; then
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/fuzz.log")
  pass "fuzz (${SECONDS_TO_FUZZ}s, ${runs:-?} inputs)"
else
  fail fuzz "libFuzzer stopped on a crash, timeout or memory limit"
  report_crash "$WORK/fuzz.log"
fi

summary

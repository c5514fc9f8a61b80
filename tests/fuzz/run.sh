#!/usr/bin/env bash
# Runs rsgw's fuzz targets (libFuzzer with debug assertions, and
# AddressSanitizer in the release profile) for SECONDS each, on the stable
# toolchain (RUSTC_BOOTSTRAP=1 lets it take the sanitizer flags). It builds
# them as `cargo fuzz build -O -a` does, with the same flags and target
# directory, so that a fresh
# machine need not build cargo-fuzz itself (3 minutes of the test command);
# `cargo fuzz run --fuzz-dir tests/fuzz -O -a TARGET` remains the way to
# fuzz one target by hand. First replays
# every input in regressions/TARGET (crashes found once, kept as tests),
# then fuzzes from seeds/TARGET plus the corpus kept in $FUZZ_CORPUS
# (default tests/fuzz/corpus). Fails on the first crash, timeout (20 s for
# one input) or out-of-memory; the input lands in tests/fuzz/artifacts/TARGET.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     (default 30 s, every target)
#   tests/fuzz/run.sh --build                   builds every target, runs none
#   (the test command builds them so in the background, then runs them)
#   FUZZ_OUT=DIR also writes DIR/fuzz-stats.csv and DIR/fuzz-stats.md.
#   FUZZ_PROFILE=quick builds with opt-level 1 instead of release (a
#   quarter less build time, half the runs per second: Cargo.toml says
#   more) and without AddressSanitizer; the test command's short runs use
#   it. ASan watches unsafe code, and every crate the targets reach forbids
#   it (#![forbid(unsafe_code)]; rsgw-store-rados, the one with unsafe FFI,
#   is not among them): what it can still catch is a dependency's memory
#   error, which the release profile's long runs keep looking for. Its
#   instrumentation took the quick profile's cold build from 310 s to
#   195 s on the 2-core machine (docs/testing.md).
#   FUZZ_SEED=N seeds libFuzzer (default 1, so that the test command's short
#   runs explore the same inputs on every machine and a red run means the
#   code changed, not the dice; FUZZ_SEED=0 draws a new seed each run).
#   FUZZ_JOBS=N fuzzes N targets at a time (default: one per CPU).
# The test command runs it with 15 s per target (FUZZ_PROFILE=quick); docs/reliability.md has the
# long runs' figures.
set -euo pipefail
cd "$(dirname "$0")"
build_only=0
[[ ${1:-} == --build ]] && { build_only=1; shift; }
secs=${1:-30}
shift || true
export RUSTC_BOOTSTRAP=1
# cargo fuzz 0.13's flags for -O -a (release, debug assertions, ASan; the
# quick profile leaves ASan out, as `cargo fuzz build -s none` does); its
# one codegen unit is also the faster build here: the quick profile's cold
# build, ASan still in it, took 353 s on the 2-core machine, 450 s with the
# default 16 units
triple=$(rustc -vV | sed -n 's/^host: //p')
sancov=-Cllvm-args=-sanitizer-coverage
export RUSTFLAGS="-Cpasses=sancov-module $sancov-level=4 $sancov-inline-8bit-counters $sancov-pc-table \
$sancov-trace-compares --cfg fuzzing -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
$sancov-stack-depth -Cdebug-assertions -Ccodegen-units=1"
export ASAN_OPTIONS=detect_odr_violation=0
profile=${FUZZ_PROFILE:-release}
case $profile in
  release) RUSTFLAGS+=" -Zsanitizer=address"
    cargo build --manifest-path Cargo.toml --target "$triple" --release \
    --config 'profile.release.debug="line-tables-only"' --bins ;;
  quick) cargo build --manifest-path Cargo.toml --target "$triple" --profile quick --bins ;;
  *) echo "FUZZ_PROFILE is release or quick, not $profile" >&2; exit 2 ;;
esac
((build_only)) && exit 0
bin_dir=target/$triple/$profile
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -vx rsgw-fuzz)
# what cargo fuzz run passes: where a crashing input is written
fuzz() { # target, libFuzzer arguments...
  local t=$1
  shift
  mkdir -p "artifacts/$t"
  "$bin_dir/$t" -artifact_prefix="artifacts/$t/" "$@"
}
corpus=${FUZZ_CORPUS:-corpus}
out=${FUZZ_OUT:-}
if [[ -n $out ]]; then
  mkdir -p "$out"
  echo "target,seconds,runs,runs_per_s,coverage,features,corpus,peak_rss_mb,crashes" >"$out/fuzz-stats.csv"
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# one target: replays its regressions, fuzzes, and leaves its summary in
# $logs/$t.out (and its stats line in $logs/$t.csv); fails on a crash
run_target() {
  local t=$1 log=$logs/$1.log
  {
    if compgen -G "regressions/$t/*" >/dev/null; then
      echo "== $t: replaying $(find "regressions/$t" -type f | wc -l) regression inputs"
      fuzz "$t" -runs=1 regressions/"$t"/* >"$log" 2>&1 || { tail -40 "$log"; return 1; }
    fi
    mkdir -p "$corpus/$t" "seeds/$t"
    echo "== $t: fuzzing for $secs s"
    if ! fuzz "$t" "$corpus/$t" "seeds/$t" \
      -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -timeout=20 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
      grep -E 'panicked|ERROR|SUMMARY|Test unit' -A6 "$log" | head -60 || true
      echo "fuzz target $t failed: the input is in tests/fuzz/artifacts/$t"
      return 1
    fi
    local done_line
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    stat() { awk -v k="stat::$1:" '$1==k {print $2}' "$log"; }
    field() { sed -nE "s/.* $1: ([0-9]+[a-zA-Z]*).*/\1/p" <<<"$done_line"; }
    echo "   $(stat number_of_executed_units) runs, $(stat average_exec_per_sec)/s, coverage $(field cov)," \
      "features $(field ft), corpus $(field corp), peak RSS $(stat peak_rss_mb) MB"
    echo "$t,$secs,$(stat number_of_executed_units),$(stat average_exec_per_sec),$(field cov),$(field ft),$(field corp),$(stat peak_rss_mb),0" \
      >"$logs/$t.csv"
  } >"$logs/$t.out" 2>&1
}
# FUZZ_JOBS targets at a time (default: one per CPU), each on its own core
jobs=${FUZZ_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_JOBS: a positive number, not '$jobs'" >&2; exit 2; }
failed=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}") pids=()
  for t in "${batch[@]}"; do
    run_target "$t" &
    pids+=($!)
  done
  for j in "${!batch[@]}"; do
    t=${batch[j]}
    wait "${pids[j]}" || failed+=("$t")
    cat "$logs/$t.out"
    [[ -z $out || ! -e $logs/$t.csv ]] || cat "$logs/$t.csv" >>"$out/fuzz-stats.csv"
  done
  ((${#failed[@]} == 0)) || { echo "fuzzing failed: ${failed[*]}"; exit 1; }
done
if [[ -n $out ]]; then
  {
    echo "| target | seconds | runs | runs/s | coverage (edges) | features | corpus | peak RSS MB | crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    tail -n +2 "$out/fuzz-stats.csv" | awk -F, '{printf "| %s |", $1; for (i = 2; i <= NF; i++) printf " %s |", $i; print ""}'
  } >"$out/fuzz-stats.md"
fi
echo "fuzzing passed: ${targets[*]}"

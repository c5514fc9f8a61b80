#!/usr/bin/env bash
# Runs rsgw's fuzz targets (cargo fuzz: libFuzzer with AddressSanitizer and
# debug assertions) for SECONDS each, on the stable toolchain
# (RUSTC_BOOTSTRAP=1 lets cargo fuzz pass its nightly flags). First replays
# every input in regressions/TARGET (crashes found once, kept as tests),
# then fuzzes from seeds/TARGET plus the corpus kept in $FUZZ_CORPUS
# (default tests/fuzz/corpus). Fails on the first crash, timeout (20 s for
# one input) or out-of-memory; the input lands in tests/fuzz/artifacts/TARGET.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     (default 30 s, every target)
#   FUZZ_OUT=DIR also writes DIR/fuzz-stats.csv and DIR/fuzz-stats.md.
#   FUZZ_SEED=N seeds libFuzzer (default 1, so that the test command's short
#   runs explore the same inputs on every machine and a red run means the
#   code changed, not the dice; FUZZ_SEED=0 draws a new seed each run).
# The test command runs it with 30 s per target; docs/reliability.md has the
# long runs' figures.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
export RUSTC_BOOTSTRAP=1
command -v cargo-fuzz >/dev/null || cargo install -q cargo-fuzz --locked --version 0.13.2
flags=(--fuzz-dir . -O -a)
cargo fuzz build "${flags[@]}"
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <(cargo fuzz list --fuzz-dir .)
corpus=${FUZZ_CORPUS:-corpus}
out=${FUZZ_OUT:-}
if [[ -n $out ]]; then
  mkdir -p "$out"
  echo "target,seconds,runs,runs_per_s,coverage,features,corpus,peak_rss_mb,crashes" >"$out/fuzz-stats.csv"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "${targets[@]}"; do
  if compgen -G "regressions/$t/*" >/dev/null; then
    echo "== $t: replaying $(find "regressions/$t" -type f | wc -l) regression inputs"
    cargo fuzz run "${flags[@]}" "$t" regressions/"$t"/* -- -runs=1 >"$log" 2>&1 || { tail -40 "$log"; exit 1; }
  fi
  mkdir -p "$corpus/$t" "seeds/$t"
  echo "== $t: fuzzing for $secs s"
  if ! cargo fuzz run "${flags[@]}" "$t" "$corpus/$t" "seeds/$t" -- \
    -max_total_time="$secs" -seed="${FUZZ_SEED:-1}" -timeout=20 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
    grep -E 'panicked|ERROR|SUMMARY|Test unit' -A6 "$log" | head -60
    echo "fuzz target $t failed: the input is in tests/fuzz/artifacts/$t"
    exit 1
  fi
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  stat() { awk -v k="stat::$1:" '$1==k {print $2}' "$log"; }
  field() { sed -nE "s/.* $1: ([0-9]+[a-zA-Z]*).*/\1/p" <<<"$done_line"; }
  echo "   $(stat number_of_executed_units) runs, $(stat average_exec_per_sec)/s, coverage $(field cov)," \
    "features $(field ft), corpus $(field corp), peak RSS $(stat peak_rss_mb) MB"
  if [[ -n $out ]]; then
    echo "$t,$secs,$(stat number_of_executed_units),$(stat average_exec_per_sec),$(field cov),$(field ft),$(field corp),$(stat peak_rss_mb),0" \
      >>"$out/fuzz-stats.csv"
  fi
done
if [[ -n $out ]]; then
  {
    echo "| target | seconds | runs | runs/s | coverage (edges) | features | corpus | peak RSS MB | crashes |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    tail -n +2 "$out/fuzz-stats.csv" | awk -F, '{printf "| %s |", $1; for (i = 2; i <= NF; i++) printf " %s |", $i; print ""}'
  } >"$out/fuzz-stats.md"
fi
echo "fuzzing passed: ${targets[*]}"

#!/bin/bash
# cold quick builds of the fuzz targets, with and without ASan
cd /work/main/tests/fuzz
export RUSTC_BOOTSTRAP=1
triple=$(rustc -vV | sed -n 's/^host: //p')
sancov=-Cllvm-args=-sanitizer-coverage
base="-Cpasses=sancov-module $sancov-level=4 $sancov-inline-8bit-counters $sancov-pc-table $sancov-trace-compares --cfg fuzzing -Cllvm-args=-simplifycfg-branch-fold-threshold=0 $sancov-stack-depth -Cdebug-assertions -Ccodegen-units=1"
for v in none address; do
  if [[ $v == address ]]; then f="$base -Zsanitizer=address"; else f="$base"; fi
  s=$(date +%s.%N)
  RUSTFLAGS="$f" CARGO_TARGET_DIR=/tmp/fz-$v cargo build --manifest-path Cargo.toml --target "$triple" --profile quick --bins >/tmp/prof/fz-$v.log 2>&1
  echo "$v rc=$? $(echo "$(date +%s.%N) - $s" | bc) s"
done

#!/usr/bin/env bash
# The default build on older CPUs: runs the example programs natively and as
# an x86-64-v2 CPU (qemu-x86_64 -cpu Nehalem: no AVX) and an AVX2 one (-cpu
# Haswell), from Debian's qemu-user, and checks that each run picks the
# kernel variant of its CPU, dies of no illegal instruction, and writes the
# same bits as the native run.
#   check_portability.sh BERTH FFI_EXAMPLE_MANIFEST SOURCE_ROOT
# Exit 77 (skipped) without qemu-x86_64.
set -euo pipefail
berth=$1
ffi_manifest=$2
root=$3
if ! command -v qemu-x86_64 > /dev/null; then
  echo "qemu-x86_64 not found (Debian package qemu-user); skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mlp_arg='dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'
ffi_arg='dense<[-2.0, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>'

# run CPU: every program on CPU ("native", or a qemu CPU model), results as
# JSON in $tmp/CPU (floats printed as the shortest text that reads back to
# the same bits, so equal text is equal bits).
run() {
  local cpu=$1 out="$tmp/$1"
  local prefix=()
  [ "$cpu" != native ] && prefix=(qemu-x86_64 -cpu "$cpu")
  mkdir -p "$out"
  "${prefix[@]}" "$berth" info cpu > "$out/info.txt" 2> /dev/null
  "${prefix[@]}" "$berth" run "$root/configs/examples/mlp.mlir" --arg "$mlp_arg" --json > "$out/mlp.json"
  "${prefix[@]}" "$berth" run "$root/tests/integration/data/portability.mlir" --json > "$out/kernels.json"
  "${prefix[@]}" "$berth" run "$root/tests/integration/data/portability_complex.mlir" --json \
    > "$out/complex.json"
  BERTH_ADD_PLUGIN_PATH="$ffi_manifest" \
    "${prefix[@]}" "$berth" run "$root/extensions/ffi/examples/example.mlir" --arg "$ffi_arg" \
    --json > "$out/ffi.json"
}

# expect_isa CPU NAME: the run on CPU computed with the NAME kernels.
expect_isa() {
  if ! grep -q "\"cpu_isa\":\"$2\"" "$tmp/$1/info.txt"; then
    echo "FAIL: on $1 the cpu plugin did not select $2:"
    cat "$tmp/$1/info.txt"
    exit 1
  fi
}

run native
for cpu in Nehalem Haswell; do
  run "$cpu"
done
expect_isa Nehalem x86-64-v2
expect_isa Haswell x86-64-v3
native_isa=$(grep -o '"cpu_isa":"[^"]*"' "$tmp/native/info.txt")
echo "native: $native_isa; Nehalem: x86-64-v2; Haswell: x86-64-v3"

# BERTH_CPU_ISA forces a variant; one the CPU cannot run, or one not built,
# is an error naming it, not an illegal instruction.
expect_error() {  # MESSAGE COMMAND...
  local message=$1
  shift
  if "$@" > "$tmp/error.txt" 2>&1; then
    echo "FAIL: '$*' succeeded"
    exit 1
  fi
  if ! grep -qF "$message" "$tmp/error.txt"; then
    echo "FAIL: '$*' did not say: $message"
    cat "$tmp/error.txt"
    exit 1
  fi
}
expect_error "BERTH_CPU_ISA=v3: this CPU cannot run x86-64-v3 code" \
  env BERTH_CPU_ISA=v3 qemu-x86_64 -cpu Nehalem "$berth" run "$root/configs/examples/mlp.mlir" --arg "$mlp_arg"
expect_error "BERTH_CPU_ISA=v9: no such kernel variant in this build" \
  env BERTH_CPU_ISA=v9 "$berth" run "$root/configs/examples/mlp.mlir" --arg "$mlp_arg"
BERTH_CPU_ISA=v2 "$berth" info cpu > "$tmp/forced.txt"
grep -q '"cpu_isa":"x86-64-v2"' "$tmp/forced.txt" || { echo "FAIL: BERTH_CPU_ISA=v2 not used"; exit 1; }

failed=0
files=0
for file in "$tmp"/native/*.json; do
  name=$(basename "$file")
  for cpu in Nehalem Haswell; do
    files=$((files + 1))
    if ! cmp -s "$file" "$tmp/$cpu/$name"; then
      echo "FAIL: $name differs between the native run and $cpu"
      failed=1
    fi
  done
done
[ "$files" -eq 8 ] || { echo "FAIL: only $files result files compared"; exit 1; }
[ "$failed" -eq 0 ] || exit 1
echo "ok: the results of 3 programs identical on Nehalem and Haswell to the native run"

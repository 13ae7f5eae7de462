#!/bin/sh
# run_program.sh BERTH MANIFEST PROGRAM: runs PROGRAM on the plugin and
# compares the printed results with the expected ones.
set -eu
berth="$1"; manifest="$2"; program="$3"
name=$(basename "$manifest" .json)
out=$(BERTH_PLUGIN_PATH="$manifest" "$berth" run "$program" --plugin "$name" \
      --arg 'dense<[[0.0, 1.0, -1.0], [2.0, -2.0, 0.5]]> : tensor<2x3xf32>')
expected='dense<[[1.0, 3.0, 3.0], [5.0, 5.0, 2.0]]> : tensor<2x3xf32>
dense<[-3.0, -4.0, -2.5]> : tensor<3xf32>'
if [ "$out" != "$expected" ]; then
  echo "unexpected output:"; echo "$out"; echo "expected:"; echo "$expected"
  exit 1
fi
echo "ok"

#!/usr/bin/env bash
# Packs what the cuda plugin's device checks need into one folder that runs
# on a bare GPU machine (CUDA 13 under /usr/local/cuda, none of Berth's other
# packages): the test binaries, `berth`, libberth, the cpu and cuda plugins
# and the build tree's manifests (debug info stripped), every shared library
# they need beyond the C library and CUDA's, and run.sh, which puts the build
# tree back at its absolute path (the tests and manifests name it) and runs
# the checks, then `berth check` of the interpreter suite (copied in from
# ../shared) on the cpu and cuda plugins.
#
#   plugins/cuda/tools/device_bundle.sh [BUILD_DIR] [OUT_DIR]   (build, .device_bundle)
#
# Then, on the GPU machine, from the repository root: bash OUT_DIR/run.sh
# (OUT_DIR must travel: list it in .git/info/exclude and carry it).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
out=${2:-.device_bundle}
rm -rf "$out"
mkdir -p "$out/build" "$out/lib"
files=(
  tests/cuda/cuda_execute_test
  tests/cuda/cuda_plugin_test
  host/cli/berth
  host/libberth.so.0
  plugins/cpu/libberth_cpu.so
  plugins/cuda/libberth_cuda.so
)
for f in "${files[@]}"; do
  mkdir -p "$out/build/$(dirname "$f")"
  strip --strip-debug -o "$out/build/$f" "$build/$f"
done
mkdir -p "$out/build/configs/plugins.d"
cp "$build"/configs/plugins.d/cpu.json "$build"/configs/plugins.d/cuda.json "$out/build/configs/plugins.d/"
# Libraries the binaries load, but the C library's own and CUDA's (the GPU
# machine's toolkit and driver are the ones to use).
for f in "${files[@]}"; do
  ldd "$build/$f" | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda|libcudart|libnvrtc|libcublas[^/]*)\.so' |
  while read -r lib; do
    case "$lib" in "$build"/*) continue ;; esac
    strip --strip-debug -o "$out/lib/$(basename "$lib")" "$lib"
  done
# The interpreter suite, for `berth check` on both plugins.
suite="$(dirname "$0")/../../../../shared/conformance/stablehlo"
[ -d "$suite" ] && cp -r "$suite" "$out/conformance"
cat > "$out/run.sh" <<RUN
#!/usr/bin/env bash
# The cuda plugin's device checks (made by plugins/cuda/tools/device_bundle.sh).
set -uo pipefail
here=\$(cd "\$(dirname "\$0")" && pwd)
mkdir -p "$(dirname "$build")"
[ -e "$build" ] || ln -s "\$here/build" "$build"
export LD_LIBRARY_PATH="\$here/lib:/usr/local/cuda/lib64:\${LD_LIBRARY_PATH:-}"
export BERTH_PLUGIN_PATH="$build/configs/plugins.d"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
status=0
"$build/host/cli/berth" plugins --load || status=1
"$build/host/cli/berth" conformance --manifest "$build/configs/plugins.d/cuda.json" || status=1
"$build/tests/cuda/cuda_plugin_test" || status=1
"$build/tests/cuda/cuda_execute_test" || status=1
if [ -d "\$here/conformance" ]; then
  # Every case on each plugin; the verdicts side by side (whole reports in
  # the bundle's folder).
  for plugin in cpu cuda; do
    "$build/host/cli/berth" check --plugin \$plugin --json \$(find "\$here/conformance" -name "*.mlir" | sort) > "\$here/check_\$plugin.json" 2> "\$here/check_\$plugin.err"
    echo "berth check --plugin \$plugin: exit \$?; \$(tail -c 400 "\$here/check_\$plugin.json")"
  done
fi
exit \$status
RUN
chmod +x "$out/run.sh"
du -sh "$out"

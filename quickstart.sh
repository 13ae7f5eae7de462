#!/usr/bin/env bash
# Berth quickstart.
#   ./quickstart.sh        install missing Debian packages, build, run the main job
#   ./quickstart.sh test   the same set-up, then run the whole test suite
# Environment: BERTH_BUILD_DIR (default: build), BERTH_MESON_ARGS (extra
# `meson setup` arguments for a new build folder).
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-run}"
case "$mode" in
  run|test) ;;
  -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
  *) echo "usage: ./quickstart.sh [test]" >&2; exit 2 ;;
esac

# ------------------------------------------------------------ Debian packages
packages=(
  meson ninja-build pkg-config g++ python3
  libboost-dev libboost-program-options-dev
  nlohmann-json3-dev libffi-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libgloo-dev libeigen3-dev liblapack-dev libblas-dev
  ccache
)
# The tests also run the build as older CPUs would (qemu-x86_64 -cpu Nehalem)
# and run jobs across network namespaces (ip netns, from iproute2).
[ "$mode" = test ] && packages+=(qemu-user iproute2)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "quickstart: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---------------------------------------------------------------------- build
# Meson compiles through ccache when it is installed. Paths are hashed
# relative to this checkout, so that another clone of the same sources (CI
# clones afresh each time) reuses the objects already compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
build="${BERTH_BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" ${BERTH_MESON_ARGS:-}
fi
ninja -C "$build"

berth="$build/host/cli/berth"
if [ "$mode" = test ]; then
  meson test -C "$build" --print-errorlogs
  # The installed tree on its own: plugins found with no environment, the
  # plugin template and the embedding example built against pkg-config,
  # `berth conformance` on the cpu and template plugins.
  tests/install/check_install.sh "$build"
  exit 0
fi

# ------------------------------------------------------------------- main job
echo
echo "== berth plugins --load"
"$berth" plugins --load
echo
echo "== berth run configs/examples/mlp.mlir (a small MLP on the cpu plugin)"
"$berth" run configs/examples/mlp.mlir \
  --arg 'dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'

echo
echo "== berth launch -n 2 -- berth run configs/examples/allreduce.mlir (2 processes, Gloo)"
"$berth" launch -n 2 -- "$berth" run configs/examples/allreduce.mlir

echo
echo "== berth compile + berth run FILE.bexe (a serialized executable, no compile at run time)"
"$berth" compile configs/examples/mlp.mlir -o "$build/mlp.bexe"
"$berth" run "$build/mlp.bexe" \
  --arg 'dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'

echo
echo "== an FFI extension module: a typed handler and a plain C function bound by its manifest"
BERTH_ADD_PLUGIN_PATH="$build/extensions/ffi/ffi_example.json" \
  "$berth" run extensions/ffi/examples/example.mlir \
  --arg 'dense<[-2.0, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>'

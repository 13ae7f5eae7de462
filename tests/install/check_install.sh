#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR
#
# Installs BUILD_DIR into a temporary folder (DESTDIR; the installed tree is
# relocatable) and proves the installed files work on their own:
# - no installed .pc, manifest or run path names the build or source tree;
# - plugins export one symbol, BERTH_GetApi, the LAPACK module one,
#   BERTH_Ffi_GetModule; libberth exports only the
#   classes and functions the installed headers mark BERTH_API;
# - the installed `berth` finds the installed plugins with no environment set;
# - sdk/template and examples/embed build against the installed pkg-config
#   files only (berth-sdk.pc, berth.pc), not the build tree; a renamed copy
#   of the template (the README's tutorial) loads through BERTH_ADD_PLUGIN_PATH;
# - the embed example runs a program on the cpu plugin;
# - `berth conformance` passes on the installed cpu plugin and on the
#   template plugin;
# - examples/c_plugin, a plugin in plain C11, builds with `cc -std=c11` from
#   berth-sdk.pc (C headers and version script only), exports BERTH_GetApi
#   alone, passes its own tests and `berth conformance`, and runs a program
#   alone and as a 2-node job.
set -euo pipefail
build="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

option() {
  meson introspect "$build" --buildoptions |
    python3 -c "import json, sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'))"
}
# A build folder set up before the project asked for relocatable .pc files.
if [ "$(option pkgconfig.relocatable)" != "True" ]; then
  meson configure "$build" -Dpkgconfig.relocatable=true >/dev/null
  ninja -C "$build" >/dev/null
fi
DESTDIR="$tmp/dest" meson install -C "$build" --no-rebuild --quiet
prefix="$tmp/dest$(option prefix)"
libdir="$(option libdir)"
echo "install: installed into $prefix"

echo "== the installed files name neither the build tree nor the source tree"
for file in $(find "$prefix" -name '*.pc' -o -name '*.json'); do
  if grep -q -e "$build" -e "$root" "$file"; then
    echo "install: $file names the build or source tree" >&2
    exit 1
  fi
done
for file in "$prefix/bin/berth" "$prefix/$libdir"/libberth.so.* "$prefix/$libdir"/berth/*.so; do
  if readelf -d "$file" | grep -E 'R(UN)?PATH' | grep -q -e "$build" -e "$root"; then
    echo "install: $file has a run path into the build or source tree" >&2
    exit 1
  fi
done

# A plugin exports exactly one symbol, BERTH_GetApi (sdk/include/berth/c_api.h,
# first rule; docs/abi.md, "Loading"), and an FFI module BERTH_Ffi_GetModule
# (berth/ext/ffi.h): no other C name and no C++ one (the SDK's version
# script, sdk/plugin/berth_plugin.map).
only_exports() {
  local exported
  exported="$(nm -D --defined-only "$2" | awk 'NF == 3 {print $3}')"
  if [ "$exported" != "$1" ]; then
    echo "install: $2 exports symbols other than $1:" $exported >&2
    exit 1
  fi
}
only_exports BERTH_GetApi "$prefix/$libdir/berth/libberth_cpu.so"
only_exports BERTH_Ffi_GetModule "$prefix/$libdir/berth/libberth_lapack.so"

echo "== libberth exports only the public API of the installed headers"
python3 "$root/tests/install/check_exports.py" "$(ls "$prefix/$libdir"/libberth.so.* | head -n 1)" \
  "$prefix/include"

# Nothing from the build tree or the caller's environment.
unset BERTH_PLUGIN_PATH BERTH_ADD_PLUGIN_PATH BERTH_PLUGINS_SELECT BERTH_PLUGINS_DISABLE
export XDG_CONFIG_HOME="$tmp/xdg-config" XDG_CONFIG_DIRS="$tmp/none" XDG_DATA_DIRS="$tmp/none"
export PATH="$prefix/bin:$PATH"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
berth="$prefix/bin/berth"

echo "== installed berth finds the installed plugins"
"$berth" plugins --load
"$berth" plugins --json | python3 -c "
import json, sys
found = {p['name']: p for p in json.load(sys.stdin)['plugins']}
assert 'cpu' in found, 'the installed cpu plugin was not found'
assert found['cpu']['manifest'].startswith('$prefix'), found['cpu']['manifest']
"
echo "== installed berth loads the bundled LAPACK module for the cpu plugin"
"$berth" plugins --load --json | python3 -c "
import json, sys
found = {p['name']: p for p in json.load(sys.stdin)['plugins']}
lapack = found.get('lapack')
assert lapack is not None, 'the installed LAPACK module was not found'
assert lapack['status'] == 'ok', lapack
assert 'lapack_dgetrf_ffi' in lapack['attributes']['ffi_targets'].split(','), lapack
"

echo "== the pkg-config files set no language standard; the author's guide is installed"
for pc in berth berth-sdk; do
  if pkg-config --cflags "$pc" | grep -q -- '-std='; then
    echo "install: $pc.pc forces a language standard: $(pkg-config --cflags "$pc")" >&2
    exit 1
  fi
done
pkg-config --libs berth-sdk | grep -q -- '--version-script=' ||
  { echo "install: berth-sdk.pc's link flags lack the plugin version script" >&2; exit 1; }
for doc in plugin-authors-guide.md abi.md manifests.md reasons.md CHANGELOG.md \
           examples/template/meson.build examples/c_plugin/c_plugin.c; do
  [ -f "$prefix/share/doc/berth/$doc" ] ||
    { echo "install: share/doc/berth/$doc is missing" >&2; exit 1; }
done
# The public C header compiles as C11 with the SDK's flags alone.
printf '#include <berth/c_api.h>\nint main(void) { return BERTH_API_MAJOR - 1; }\n' > "$tmp/c11.c"
cc -std=c11 -Wall -Wextra -Werror -pedantic $(pkg-config --cflags berth-sdk) "$tmp/c11.c" -o "$tmp/c11"

echo "== sdk/template against berth-sdk.pc"
meson setup "$tmp/template" "$root/sdk/template" >/dev/null
ninja -C "$tmp/template" >/dev/null
meson test -C "$tmp/template" --print-errorlogs

echo "== examples/embed against berth.pc"
meson setup "$tmp/embed" "$root/examples/embed" >/dev/null
ninja -C "$tmp/embed" >/dev/null
"$tmp/embed/berth_embed"

only_exports BERTH_GetApi "$tmp/template/libberth_template.so"

echo "== the tutorial: a renamed copy of the template, found through BERTH_ADD_PLUGIN_PATH"
cp -r "$root/sdk/template" "$tmp/myplugin-src"
meson setup "$tmp/myplugin" "$tmp/myplugin-src" -Dplugin_name=myplugin >/dev/null
ninja -C "$tmp/myplugin" >/dev/null
BERTH_ADD_PLUGIN_PATH="$tmp/myplugin/myplugin.json" "$berth" plugins --json --load | python3 -c "
import json, sys
found = {p['name']: p for p in json.load(sys.stdin)['plugins']}
assert found.get('myplugin', {}).get('status') == 'ok', found.get('myplugin')
assert found['cpu']['status'] == 'ok', found['cpu']
"
BERTH_ADD_PLUGIN_PATH="$tmp/myplugin/myplugin.json" "$berth" run "$root/sdk/template/tests/program.mlir" \
  --plugin myplugin --arg 'dense<[[0.0, 1.0, -1.0], [2.0, -2.0, 0.5]]> : tensor<2x3xf32>' >/dev/null

echo "== the template as a 2-process job (berth launch -n 2): node 0 runs, node 1 has nothing to run"
BERTH_ADD_PLUGIN_PATH="$tmp/template/template.json" "$berth" launch -n 2 -- "$berth" run \
  "$root/sdk/template/tests/program.mlir" --plugin template \
  --arg 'dense<[[0.0, 1.0, -1.0], [2.0, -2.0, 0.5]]> : tensor<2x3xf32>' >/dev/null

echo "== berth conformance: cpu (installed) and template"
"$berth" conformance --manifest "$prefix/share/berth/plugins.d/cpu.json"
"$berth" conformance --manifest "$tmp/template/template.json"

echo "== examples/c_plugin: plain C11, cc against berth-sdk.pc (no meson, no C++)"
c_plugin="$tmp/c_plugin"
# The copy installed with the documentation, as a vendor would take it.
make -s -C "$prefix/share/doc/berth/examples/c_plugin" BUILD="$c_plugin" all check
only_exports BERTH_GetApi "$c_plugin/libberth_c_plugin.so"
"$berth" conformance --manifest "$c_plugin/c_plugin.json"
c_run() {
  BERTH_ADD_PLUGIN_PATH="$c_plugin/c_plugin.json" "$@" run "$root/examples/c_plugin/program.mlir" \
    --plugin c_plugin --arg 'dense<[0.0, 1.0, -1.0, 2.0, -2.0, 0.5]> : tensor<6xf32>'
}
out="$(c_run "$berth")"
if [ "$out" != "dense<[1.0, 3.0, 3.0, 5.0, 5.0, 2.0]> : tensor<6xf32>
dense<[-1.5, -2.5, -2.5, -3.5, -3.5, -1.0]> : tensor<6xf32>" ]; then
  echo "install: examples/c_plugin/program.mlir gave: $out" >&2
  exit 1
fi
c_run "$berth" launch -n 2 -- "$berth" >/dev/null  # node 1 has nothing to run
echo "install: ok"

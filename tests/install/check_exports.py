#!/usr/bin/env python3
"""check_exports.py LIBBERTH INCLUDE_DIR [--expect-rejected NAME...]

Fails unless every dynamic symbol LIBBERTH defines belongs to the public API
that the headers under INCLUDE_DIR/berth mark BERTH_API (berth/api.hpp):

- a member of a marked class: `berth::Host::Create(...)`, including its
  constructors, destructor, operators, typeinfo and vtable, but not the
  members of a type nested in it (`berth::Job::Impl::...`);
- a marked function at namespace scope: `berth::Log(...)`.

It runs on the build tree's library (meson test libberth_exports_only_public_api)
and on the installed one with the installed headers (check_install.sh).
With --expect-rejected it checks the checker: it passes only when each NAME
begins a symbol it rejects and berth::Host::Create is accepted (meson test
check_exports_rejects_internal_symbols, on tests/install/leaky_library.cc).
"""
import pathlib
import re
import subprocess
import sys


def public_api(include_dir):
    classes, functions = set(), set()
    for header in sorted(pathlib.Path(include_dir, "berth").glob("*.hpp")):
        text = header.read_text()
        classes.update(re.findall(r"^(?:class|struct) BERTH_API (\w+)", text, re.M))
        # BERTH_API <return type> Name(
        functions.update(re.findall(r"^BERTH_API [^(;]*?\b(\w+)\(", text, re.M))
    return classes, functions


def dynamic_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", library],
                         check=True, capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        # ADDRESS TYPE NAME (NAME may hold spaces once demangled)
        parts = line.split(None, 2)
        if len(parts) == 3:
            symbols.append(parts[2])
    return symbols


def main():
    if len(sys.argv) < 3 or (len(sys.argv) > 3 and sys.argv[3] != "--expect-rejected"):
        print(__doc__, file=sys.stderr)
        return 2
    library, include_dir = sys.argv[1], sys.argv[2]
    expect_rejected = sys.argv[4:]
    classes, functions = public_api(include_dir)
    if not classes or not functions:
        print(f"check_exports: no BERTH_API marks under {include_dir}/berth", file=sys.stderr)
        return 1
    cls = "|".join(sorted(classes))
    fn = "|".join(sorted(functions))
    member = r"(?:~?\w+|operator\W+|operator \w[\w:<>, ]*)(?:\[abi:\w+\])?\("
    allowed = re.compile(
        rf"^(?:berth::(?:{cls})::{member}"
        rf"|(?:typeinfo|typeinfo name|vtable) for berth::(?:{cls})$"
        rf"|berth::(?:{fn})(?:\[abi:\w+\])?\()")
    symbols = dynamic_symbols(library)
    outside = [s for s in symbols if not allowed.match(s)]
    if expect_rejected:
        missed = [n for n in expect_rejected if not any(s.startswith(n) for s in outside)]
        accepted_create = any(s.startswith("berth::Host::Create(") and s not in outside
                              for s in symbols)
        for name in missed:
            print(f"check_exports: {name} was not rejected", file=sys.stderr)
        if not accepted_create:
            print("check_exports: berth::Host::Create was not accepted", file=sys.stderr)
        if missed or not accepted_create:
            return 1
        print(f"check_exports: {library}: rejected {len(outside)} of {len(symbols)} symbols, "
              f"as expected")
        return 0
    if outside:
        print(f"check_exports: {library} exports {len(outside)} symbol(s) outside the public API "
              f"(mark it BERTH_API in {include_dir}/berth or keep it hidden):", file=sys.stderr)
        for s in outside[:50]:
            print("  " + s, file=sys.stderr)
        return 1
    if not any(s.startswith("berth::Host::Create(") for s in symbols):
        print(f"check_exports: {library} does not export berth::Host::Create", file=sys.stderr)
        return 1
    print(f"check_exports: {library}: {len(symbols)} symbols, all public API "
          f"({len(classes)} classes, {len(functions)} functions marked BERTH_API)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

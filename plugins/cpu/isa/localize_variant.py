#!/usr/bin/env python3
"""Turns one ISA variant's static library into one object whose only global
symbol is the variant's entry function (see isa.hpp).

    localize_variant.py OBJCOPY NM ENTRY ARCHIVE OUTPUT -- CXX...

The variant's sources are compiled with -march for their level. Left as they
are, the linker would keep one copy of each inline function and template
instantiation (std::vector's, Eigen's, our own headers') among the copies of
every variant and of the baseline code, and code built for AVX-512 could run
on a CPU without it. So: a relocatable link of the whole archive that also
dissolves COMDAT groups (--force-group-allocation; otherwise the final link
would still merge them by name), then every defined symbol but ENTRY made
local (GNU unique data objects weak instead). What the variant calls
outside itself (the C++ library, the plugin's
core) stays an undefined reference, resolved by the final link.
"""
import subprocess
import sys


def symbol_lines(nm, path):
    return subprocess.run([nm, '--defined-only', '--extern-only', path], check=True,
                          capture_output=True, text=True).stdout.splitlines()


def main(argv):
    separator = argv.index('--')
    objcopy, nm, entry, archive, output = argv[1:separator]
    cxx = argv[separator + 1:]
    partial = output + '.partial.o'
    subprocess.run(cxx + ['-r', '-nostdlib', '-Wl,--force-group-allocation',
                          '-Wl,--whole-archive', archive, '-Wl,--no-whole-archive',
                          '-o', partial], check=True)
    # GNU unique objects (static data of inline functions, std::to_chars's
    # digit table say) stay global whatever objcopy is told; out of their
    # COMDAT groups they would clash with the core's copies. Made weak they
    # resolve to one instance for the whole plugin, as C++ wants of them.
    unique = [line.split()[2] for line in symbol_lines(nm, partial) if line.split()[1] == 'u']
    subprocess.run([objcopy, '--keep-global-symbol=' + entry] +
                   ['--weaken-symbol=' + name for name in unique] + [partial, output], check=True)
    # The entry must have survived as the one defined global symbol but for
    # those weak data objects.
    defined = [line.split() for line in symbol_lines(nm, output)]
    others = [name for _, kind, name in defined if name != entry and kind != 'V']
    if others or entry not in [name for _, _, name in defined]:
        sys.exit('localize_variant.py: %s defines %s globally besides %s (or lacks it)'
                 % (output, others, entry))


if __name__ == '__main__':
    main(sys.argv)

#!/usr/bin/env python3
"""Code compiled for one ISA level stays inside its variant of the cpu plugin.

    check_isa_isolation.py OBJDUMP LIBRARY LINK_MAP

Disassembles the plugin and finds, from the link map, which object each
instruction came from. Instructions beyond the baseline may only appear in
the variants built for them: SSSE3/SSE4/POPCNT from x86-64-v2 up, AVX, AVX2,
FMA, F16C, BMI and LZCNT/MOVBE from x86-64-v3 up, AVX-512 only in x86-64-v4
(and anything in a -Dnative=true variant). An inline function or template
compiled for AVX-512 that the linker picked for everyone would show here as
an AVX-512 instruction in the baseline code. Exit 1 naming each offending
function; 77 (skipped) when the map is missing.
"""
import bisect
import re
import subprocess
import sys

LEVELS = {'core': 0, 'v2': 2, 'v3': 3, 'v4': 4, 'native': 99}

SSE4 = set('''pshufb phaddw phaddd phaddsw phsubw phsubd phsubsw pmaddubsw pmulhrsw psignb
psignw psignd pabsb pabsw pabsd palignr pblendvb pblendw blendps blendpd blendvps blendvpd
dpps dppd insertps extractps pextrb pextrd pextrq pinsrb pinsrd pinsrq pmaxsb pmaxsd pmaxud
pmaxuw pminsb pminsd pminud pminuw pmovsxbw pmovsxbd pmovsxbq pmovsxwd pmovsxwq pmovsxdq
pmovzxbw pmovzxbd pmovzxbq pmovzxwd pmovzxwq pmovzxdq pmuldq pmulld ptest roundps roundpd
roundss roundsd mpsadbw packusdw pcmpeqq movntdqa phminposuw pcmpgtq pcmpestri pcmpestrm
pcmpistri pcmpistrm crc32 popcnt'''.split())
V3_SCALAR = set('''andn bextr blsi blsmsk blsr bzhi mulx pdep pext rorx sarx shlx shrx lzcnt
movbe'''.split())


def needed_level(mnemonic, operands):
    if '%zmm' in operands or re.search(r'%k[0-7]', operands):
        return 4
    if (mnemonic.startswith('v') and mnemonic not in ('verr', 'verw')) or mnemonic in V3_SCALAR:
        return 3
    if mnemonic in SSE4:
        return 2
    return 0


def code_ranges(link_map):
    """(start, end, variant) of every executable input section."""
    ranges = []
    section = None
    line_re = re.compile(r'^\s*(\.\S+)?\s*(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S+)\s*$')
    for line in open(link_map):
        name = re.match(r'^ (\.\S+)', line)
        if name:
            section = name.group(1)
        match = line_re.match(line)
        if not match or section is None or not section.startswith('.text'):
            continue
        start, size, path = int(match.group(2), 16), int(match.group(3), 16), match.group(4)
        if size == 0:
            continue
        variant = re.search(r'berth_cpu_isa_(v2|v3|v4|native)\.o$', path)
        ranges.append((start, start + size, variant.group(1) if variant else 'core'))
    ranges.sort()
    return ranges


def main(argv):
    objdump, library, link_map = argv[1:4]
    try:
        ranges = code_ranges(link_map)
    except FileNotFoundError:
        print('no link map at %s; skipped' % link_map)
        return 77
    starts = [r[0] for r in ranges]
    disassembly = subprocess.run([objdump, '-d', '--no-show-raw-insn', library], check=True,
                                 capture_output=True, text=True).stdout
    function = '?'
    offences = {}
    counted = {name: 0 for name in LEVELS}
    insn_re = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$')
    for line in disassembly.splitlines():
        header = re.match(r'^[0-9a-f]+ <(.*)>:$', line)
        if header:
            function = header.group(1)
            continue
        insn = insn_re.match(line)
        if not insn:
            continue
        address, mnemonic, operands = int(insn.group(1), 16), insn.group(2), insn.group(3)
        i = bisect.bisect_right(starts, address) - 1
        variant = ranges[i][2] if i >= 0 and address < ranges[i][1] else 'core'
        level = needed_level(mnemonic, operands)
        if level:
            counted[variant] += 1
        if level > LEVELS[variant]:
            offences.setdefault((variant, function), set()).add(mnemonic)
    print('instructions beyond the baseline, per origin: ' +
          ', '.join('%s %d' % item for item in counted.items()))
    if counted['v3'] + counted['v4'] + counted['native'] == 0:
        print('no AVX instruction found in any variant: the map or the build is not what this '
              'test expects')
        return 1
    for (variant, name), mnemonics in sorted(offences.items()):
        print('%s code %s uses %s' % (variant, name, ' '.join(sorted(mnemonics))))
    return 1 if offences else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

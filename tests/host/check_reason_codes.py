#!/usr/bin/env python3
"""Fails when a reason code defined in the given headers is not documented.

Usage: check_reason_codes.py DOC HEADER...

Every `inline constexpr std::string_view kX = "code";` inside a
`namespace reason` block of a header must appear in DOC as `code` (in
backticks), so docs/reasons.md lists every code Berth can print.
"""
import re
import sys


def codes(header):
    text = open(header, encoding="utf-8").read()
    found = []
    for block in re.finditer(r"namespace reason \{(.*?)\}\s*//\s*namespace reason", text, re.S):
        found += re.findall(r'std::string_view k\w+ = "([a-z0-9_]+)"', block.group(1))
    return found


def main():
    doc = open(sys.argv[1], encoding="utf-8").read()
    missing = []
    total = 0
    for header in sys.argv[2:]:
        found = codes(header)
        if not found:
            print(f"check_reason_codes: no reason codes found in {header}", file=sys.stderr)
            return 1
        total += len(found)
        missing += [(header, code) for code in found if f"`{code}`" not in doc]
    for header, code in missing:
        print(f"check_reason_codes: {code} ({header}) is not documented in {sys.argv[1]}",
              file=sys.stderr)
    if missing:
        return 1
    print(f"check_reason_codes: all {total} reason codes are documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# Input validator (Kattis protocol): validate [even] < input. One line
# "a b", integers with 1 <= a <= b <= 10**9, and with `even` (the secret
# tests' input_validator_args) an even number in [a, b]; exit 42 when the
# input is valid, 43 otherwise.
import re
import sys

data = sys.stdin.read()
m = re.fullmatch(r"([1-9][0-9]{0,9}) ([1-9][0-9]{0,9})\n", data)
if not m:
    print("want one line: a b")
    sys.exit(43)
a, b = int(m.group(1)), int(m.group(2))
if not a <= b <= 10**9:
    print(f"want 1 <= a <= b <= 10^9, got {a} {b}")
    sys.exit(43)
if "even" in sys.argv[1:] and a == b and a % 2:
    print(f"no even number in [{a}, {b}]")
    sys.exit(43)
sys.exit(42)

#!/usr/bin/env python3
"""Checks that every code block of README.md that starts with a `// <path>` line is exactly
that file of the repository (after the path line), so the README's examples are the code the
tests compile and run. Usage: check_readme.py SOURCE_ROOT"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text()
blocks = re.findall(r"```cpp\n// (\S+)\n(.*?)```", readme, re.S)
if not blocks:
    sys.exit("README.md has no code blocks tied to a file")
failed = False
for path, body in blocks:
    actual = (root / path).read_text()
    if body != actual:
        print(f"README.md's block for {path} differs from the file")
        failed = True
    else:
        print(f"README.md's block for {path} matches")
sys.exit(1 if failed else 0)

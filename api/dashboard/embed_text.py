#!/usr/bin/env python3
"""Writes a header holding a text file as a C++ string_view: embed_text.py IN OUT NAME."""
import sys

source, target, name = sys.argv[1:4]
text = open(source, encoding="utf-8").read()
delimiter = "cosi_embed"
if ")" + delimiter + '"' in text:
    sys.exit(f"{source} contains the raw string delimiter )" + delimiter)
with open(target, "w", encoding="utf-8") as out:
    out.write(f"// Generated from {source.split('/')[-1]} by embed_text.py; do not edit.\n#pragma once\n\n#include <string_view>\n\n")
    out.write(f'inline constexpr std::string_view {name} = R"{delimiter}({text}){delimiter}";\n')

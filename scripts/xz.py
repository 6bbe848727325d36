#!/usr/bin/env python3
"""Writes FILE.xz beside FILE (xz, preset 9 extreme): what the worker
decompresses as it downloads, so a module costs its xz size on any host,
compressing or not. Python's own lzma: nothing to install."""
import lzma
import sys

for path in sys.argv[1:]:
    with open(path, "rb") as source:
        data = source.read()
    packed = lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, preset=9 | lzma.PRESET_EXTREME)
    with open(path + ".xz", "wb") as out:
        out.write(packed)
    print(f"{path}.xz: {len(packed):,} bytes from {len(data):,}")

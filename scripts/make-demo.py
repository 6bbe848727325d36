#!/usr/bin/env python3
"""Zips Fathom's own sources into the demo archive the app offers in one click.

Takes the files git would commit (tracked, plus untracked but not ignored), so
the demo never contains build output, dependencies or generated files.
"""

import subprocess
import sys
import zipfile
from pathlib import Path


def main() -> None:
    out = Path(sys.argv[1])
    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    paths = sorted(p for p in listed if p and (root / p).is_file())
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            archive.write(root / path, f"fathom/{path}")
    print(f"demo archive: {out} ({len(paths)} files, {out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()

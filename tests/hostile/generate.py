#!/usr/bin/env python3
"""Builds the hostile corpus: archives, files and folders that try to break
Fathom, each beside the one ordinary source file that must still be indexed
and found. Nothing here is committed as a blob; every case is written at test
time into OUT, with OUT/manifest.json saying what each must do.

    python3 tests/hostile/generate.py OUT

A case in the manifest:
    name      what it is, unique
    input     its path under OUT (an archive, or a folder)
    exit      the exit status `fathom index` must end with: 0, or 2 when the
              input is unreadable as a whole
    needle    whether the ordinary file must be indexed and found
    skipped   [reason, part of the path] pairs the index must list as skipped
    errors    parts of the paths the index must list among its problems
    stderr    what the messages must say (for exit 2, the cause)
    args      extra arguments to `fathom index`
    limits_mb the address spaces the process runs in, one run each (default:
              the runner's); the memory cases run under 2, 4 and 6 GiB

The ordinary file is `hostile_needle.py`; its function name is searched for.
"""

import gzip
import io
import json
import os
import random
import struct
import sys
import tarfile
import zipfile
import zlib

NEEDLE_NAME = "hostile_needle.py"
NEEDLE_TEXT = b'''def hostile_needle_marker(value):
    """The ordinary file that every hostile input carries."""
    return value + 1
'''
MB = 1 << 20
GB = 1 << 30
# The per-file cap of fathom_archive's default Limits.
FILE_CAP = 1 << 20
RNG = random.Random(30)


class Zip:
    """A zip written by hand, so that any field can lie. Entries are
    (name bytes, stored payload, method, crc, compressed size, real size,
    flags); the central directory repeats them unless told otherwise."""

    def __init__(self):
        self.out = io.BytesIO()
        self.central = []

    def add(self, name, data=b"", *, method=8, payload=None, size=None, crc=None,
            flags=0, local=None, central=None):
        if isinstance(name, str):
            name = name.encode()
            flags |= 0x800 if any(b > 127 for b in name) else 0
        if payload is None:
            payload = deflate(data) if method == 8 else data
        size = len(data) if size is None else size
        crc = zlib.crc32(data) if crc is None else crc
        fields = {"method": method, "flags": flags, "crc": crc, "csize": len(payload), "size": size}
        lf = {**fields, **(local or {})}
        cf = {**fields, **(central or {})}
        offset = self.out.tell()
        self.out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, lf["flags"], lf["method"], 0, 0,
                                   lf["crc"], lf["csize"], lf["size"], len(name), 0))
        self.out.write(name)
        self.out.write(payload)
        self.central.append((name, cf, offset))

    def bytes(self, *, end=True):
        start = self.out.tell()
        for name, f, offset in self.central:
            self.out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, f["flags"], f["method"], 0, 0,
                                       f["crc"], f["csize"], f["size"], len(name), 0, 0, 0, 0, 0, offset))
            self.out.write(name)
        length = self.out.tell() - start
        if end:
            n = len(self.central)
            self.out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, length, start, 0))
        return self.out.getvalue()


def deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def deflated_zeros(total, prefix=b"", suffix=b""):
    """A raw deflate stream of `prefix`, `total` zero bytes and `suffix`,
    and its CRC. A megabyte of zeros is deflated once, ending on a full
    flush, so that its block stands alone and repeats."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(bytes(MB)) + c.flush(zlib.Z_FULL_FLUSH)
    tail = c.compress(suffix) + c.flush()
    crc = zlib.crc32(prefix)
    chunk = bytes(MB)
    for _ in range(total // MB):
        crc = zlib.crc32(chunk, crc)
    return head + block * (total // MB) + tail, zlib.crc32(suffix, crc)


def with_needle(z, at="needle/"):
    z.add(at + NEEDLE_NAME, NEEDLE_TEXT)


def tar_bytes(members, gz=True, fmt=tarfile.GNU_FORMAT):
    """A tar (gzipped when `gz`) of (TarInfo, bytes or None) pairs, the needle first."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt, encoding="utf-8", errors="surrogateescape") as tar:
        info = tarfile.TarInfo("needle/" + NEEDLE_NAME)
        info.size = len(NEEDLE_TEXT)
        tar.addfile(info, io.BytesIO(NEEDLE_TEXT))
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    data = raw.getvalue()
    return gzip.compress(data, 6, mtime=0) if gz else data


def file_info(name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def special(name, kind, **attrs):
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in attrs.items():
        setattr(info, key, value)
    return info, None


class Corpus:
    def __init__(self, out):
        self.out = out
        self.cases = []

    def case(self, name, data, *, ext=".zip", exit=0, needle=True, skipped=(), errors=(), stderr=None,
             args=(), limits_mb=None):
        path = os.path.join(self.out, name + ext)
        with open(path, "wb") as f:
            f.write(data)
        self.record(name, name + ext, exit, needle, skipped, errors, stderr, args, limits_mb)

    def record(self, name, input, exit=0, needle=True, skipped=(), errors=(), stderr=None, args=(),
               limits_mb=None):
        assert all(c["name"] != name for c in self.cases), name
        self.cases.append({
            "name": name, "input": input, "exit": exit, "needle": needle,
            "skipped": [list(s) for s in skipped], "errors": list(errors), "stderr": stderr,
            "args": list(args), "limits_mb": list(limits_mb or []),
        })

    def zip_with(self, name, add, needle_last=False, **expect):
        z = Zip()
        if not needle_last:
            with_needle(z)
        add(z)
        if needle_last:
            with_needle(z)
        self.case(name, z.bytes(), **expect)

    def source_zip(self, name, files, **expect):
        """A zip of ordinary-looking sources: the needle plus `files`."""
        def add(z):
            for path, text in files.items():
                z.add(path, text if isinstance(text, bytes) else text.encode())
        self.zip_with(name, add, **expect)


# The address spaces the memory cases run under (issue 51's bar).
MEMORY_LIMITS = [2048, 4096, 6144]


def repeated_entries(z, count, body, name):
    """`count` entries of the same `body`, deflated once."""
    packed, crc = deflate(body), zlib.crc32(body)
    for i in range(count):
        z.add(name.format(i), payload=packed, size=len(body), crc=crc)


def bombs(c):
    # One entry that inflates to 2 GiB, its headers honest: never inflated.
    payload, crc = deflated_zeros(2 * GB)
    c.zip_with("bomb-one-entry", lambda z: z.add("bomb.py", payload=payload, size=2 * GB, crc=crc),
               skipped=[("too_large", "bomb.py")], limits_mb=MEMORY_LIMITS)
    # The same entry, its headers claiming 100 bytes: inflation stops at the cap.
    c.zip_with("bomb-lying-sizes", lambda z: z.add("liar.py", payload=payload, size=100, crc=crc),
               skipped=[("unreadable", "liar.py")])
    # Thousands of entries, each under the per-file cap, adding up to gigabytes.
    line = b"counter = counter + 1  # a line of an ordinary module\n"
    body = (line * (1_000_000 // len(line)))[:1_000_000]
    # The memory budget leaves most of them out, and says so before reading.
    c.zip_with("bomb-many-entries", lambda z: repeated_entries(z, 3000, body, "many/module_{:04}.py"),
               skipped=[("limit", "many/module_")], stderr="are left out and listed as skipped (limit)",
               needle_last=True, limits_mb=MEMORY_LIMITS)
    # 30,000 entries of 100 KB: the cost per file, not per byte, decides.
    small = body[:100_000]
    c.zip_with("bomb-small-entries", lambda z: repeated_entries(z, 30_000, small, "small/module_{:05}.py"),
               skipped=[("limit", "small/module_")], needle_last=True, limits_mb=MEMORY_LIMITS)
    # 300 entries of 10 MB each, over the per-file cap: none inflated.
    ten, ten_crc = deflated_zeros(10 * MB)
    def large(z):
        for i in range(300):
            z.add(f"large/module_{i:03}.py", payload=ten, size=10 * MB, crc=ten_crc)
    c.zip_with("bomb-large-entries", large, skipped=[("too_large", "large/module_")], needle_last=True,
               limits_mb=MEMORY_LIMITS)
    # 1 MB entries of one-line functions: several times the heap per byte
    # that ordinary code takes, more than the plan's estimate. Parsing
    # measures the heap and leaves the rest out (issue 51: 3,001 such
    # entries aborted under 2, 4 and 6 GiB).
    dense = "".join(f"def f_{j}(value_{j}): return helper_{j}(value_{j}) + {j % 7}\n" for j in range(20_000))
    dense = dense.encode()[:1_000_000].rsplit(b"\n", 1)[0] + b"\n"
    c.zip_with("bomb-dense-entries", lambda z: repeated_entries(z, 300, dense, "dense/module_{:03}.py"),
               skipped=[("limit", "dense/module_")], needle_last=True, limits_mb=MEMORY_LIMITS)
    # A gzip bomb inside a .tar.gz: the needle first, then a member of 3 GiB.
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo("needle/" + NEEDLE_NAME)
        info.size = len(NEEDLE_TEXT)
        tar.addfile(info, io.BytesIO(NEEDLE_TEXT))
    head = raw.getvalue()[:1024]  # the needle's header and block, without the end of the archive
    info = tarfile.TarInfo("bomb/zeros.py")
    info.size = 3 * GB
    member = info.tobuf(tarfile.GNU_FORMAT)
    body, crc = deflated_zeros(3 * GB, head + member, bytes(1024))
    size = len(head) + len(member) + 3 * GB + 1024
    gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + body + struct.pack("<II", crc, size & 0xFFFFFFFF)
    c.case("bomb-targz", gz, ext=".tar.gz", skipped=[("too_large", "zeros.py"), ("limit", "the rest of")],
           limits_mb=MEMORY_LIMITS)


def filled(line, size):
    """`line(i)` for i = 0, 1, … until `size` bytes, cut at a line's end."""
    out, total, i = [], 0, 0
    while total < size:
        text = line(i)
        out.append(text)
        total += len(text)
        i += 1
    return "".join(out).encode()[:size].rsplit(b"\n", 1)[0] + b"\n"


# Content dense in each thing the index keeps, one shape per language at
# least (issue 61): every stage after parsing must answer to the budget too.
DENSE_SHAPES = {
    # A definition every 6 bytes, all of one name.
    "definitions": ("py", lambda i: "x = 1\n", "x = 1"),
    # A call and ten uses every 26 bytes.
    "references": ("js", lambda i: "f(a, b, c, d, e, g, h, k);\n", "f(a, b"),
    # An import every 14 bytes (the file opens its import block).
    "imports": ("go", lambda i: f'\tp{i % 2000} "x/p{i % 2000}"\n', "import"),
    # Identifiers of 2,000 characters, each of hundreds of words.
    "identifiers": ("c", lambda i: "int " + "".join(f"word{(i * 7 + j) % 997}Part" for j in range(160))
                    + f"_{i} = {i};\n", "identifiers"),
    # A function (a chunk, a node) every 14 bytes.
    "functions": ("go", lambda i: f"func f{i % 2000}() {{}}\n", "func f"),
}


def dense_body(shape, size):
    ext, line, _ = DENSE_SHAPES[shape]
    head = {"go": "package dense\n" + ("import (\n" if shape == "imports" else ""), }.get(ext, "")
    tail = ")\n" if shape == "imports" else ""
    return head.encode() + filled(line, size - len(head) - len(tail)) + tail.encode()


def dense(c):
    for shape, (ext, _, _) in DENSE_SHAPES.items():
        one = dense_body(shape, 1_000_000)
        # 1,000 entries of 1 MB: the plan reads what the budget may hold,
        # and parsing finds it far denser than the plan's rate.
        c.zip_with(f"dense-{shape}-{ext}", lambda z, one=one: repeated_entries(z, 1000, one, f"dense/m_{{:04}}.{ext}"),
                   skipped=[("limit", "dense/m_")], needle_last=True, limits_mb=MEMORY_LIMITS)
    # 30,000 entries of 100 KB, the second shape, in Python.
    small = dense_body("definitions", 100_000)
    c.zip_with("dense-definitions-small-py", lambda z: repeated_entries(z, 30_000, small, "dense/s_{:05}.py"),
               skipped=[("limit", "dense/s_")], needle_last=True, limits_mb=MEMORY_LIMITS)


def lying_headers(c):
    text = b"def lied_about():\n    return 'the headers said otherwise'\n" * 2000
    # Local and central headers both say the data is smaller than it is.
    c.zip_with("lie-sizes-smaller",
               lambda z: z.add("lies/small.py", text, size=64, local={"csize": 40}, central={"csize": 40}),
               skipped=[("unreadable", "lies/small.py")])
    c.zip_with("lie-local-size",
               lambda z: z.add("lies/local.py", text, local={"size": 10, "csize": 10}))
    c.zip_with("lie-unknown-method",
               lambda z: z.add("lies/method.py", text, method=99, payload=deflate(text)),
               skipped=[("unreadable", "lies/method.py")])
    def encrypted(z):
        z.add("lies/secret.py", text, flags=1)
        z.add("lies/plain.py", b"def plain_beside_secret():\n    pass\n")
    c.zip_with("lie-encrypted-beside-plain", encrypted, skipped=[("encrypted", "lies/secret.py")])


def names(c):
    ok = b"def named():\n    pass\n"
    def traversal(z):
        z.add("../../escaped.py", ok)
        z.add("/etc/absolute.py", ok)
        z.add("a/../../up.py", ok)
    c.zip_with("name-traversal", traversal, skipped=[("unreadable", "escaped.py"), ("unreadable", "up.py")])
    def windows(z):
        z.add("C:\\Windows\\drive.py", ok)
        z.add("src\\..\\..\\back.py", ok)
        z.add("src\\windows\\sep.py", ok)
    # A drive letter is dropped, as a leading slash is; `..` is refused.
    c.zip_with("name-drive-backslash", windows, skipped=[("unreadable", "back.py")])
    c.zip_with("name-not-utf8", lambda z: z.add(b"bad\xff\xfename.py", ok))
    c.zip_with("name-control", lambda z: (z.add("ctl/line\nbreak.py", ok), z.add("ctl/bell\x07\x1b[31m.py", ok)))
    c.zip_with("name-60k", lambda z: z.add("long/" + "n" * 60_000 + ".py", ok))
    c.zip_with("name-2000-deep", lambda z: z.add("d/" * 2000 + "deep.py", ok))
    c.zip_with("name-duplicate", lambda z: (z.add("dup/same.py", ok), z.add("dup/same.py", b"def second():\n  pass\n")),
               skipped=[("unreadable", "repeated names")])
    c.zip_with("name-case", lambda z: (z.add("case/Name.py", ok), z.add("case/name.py", ok), z.add("case/NAME.py", ok)))
    c.zip_with("name-html", lambda z: z.add('html/<img src=x onerror="alert(1)">.py', b"def x():\n    return '<script>alert(1)</script>'\n"))
    # The same names in a tar, where a name can be any bytes.
    members = [
        file_info("../../escaped.py", ok),
        file_info("/etc/absolute.py", ok),
        file_info("bad\udcff\udcfename.py", ok),
        file_info("ctl/line\nbreak.py", ok),
        file_info("t/" * 2000 + "deep.py", ok),
        file_info("long/" + "n" * 60_000 + ".py", ok),
    ]
    c.case("name-tar", tar_bytes(members), ext=".tar.gz", skipped=[("unreadable", "escaped.py")])


def containers(c):
    z = Zip()
    with_needle(z)
    for i in range(40):
        z.add(f"pkg/mod_{i}.py", (f"def function_{i}():\n    return {i}\n" * 200).encode())
    whole = z.bytes()
    c.case("zip-truncated-half", whole[: len(whole) // 2], skipped=[("unreadable", "")])
    c.case("zip-no-end-record", whole[:-22], skipped=[("unreadable", "")])
    c.case("zip-empty-file", b"", exit=2, needle=False, stderr="empty")
    c.case("zip-no-entries", Zip().bytes(), exit=2, needle=False, stderr="no entries")
    c.case("zip-random-bytes", bytes(RNG.randrange(256) for _ in range(65536)), exit=2, needle=False,
           stderr="not a readable zip")
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + bytes(13) + bytes(RNG.randrange(256) for _ in range(4000))
    c.case("zip-png", png, exit=2, needle=False, stderr="PNG")
    inner = Zip()
    inner.add("inner/hidden.py", b"def inside_inner():\n    pass\n")
    c.zip_with("zip-in-zip", lambda z: z.add("nested/inner.zip", inner.bytes(), method=0),
               skipped=[("unsupported", "inner.zip")])
    # zip64: more entries than 16 bits count, written by zipfile.
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("needle/" + NEEDLE_NAME, NEEDLE_TEXT)
        for i in range(70_000):
            zf.writestr(f"many/{i // 1000:02}/f{i}.txt", b"x")
    c.case("zip64-70000-entries", raw.getvalue(), skipped=[("unsupported", "many/")])
    members = [
        special("links/sym.py", tarfile.SYMTYPE, linkname="/etc/passwd"),
        special("links/hard.py", tarfile.LNKTYPE, linkname="needle/" + NEEDLE_NAME),
        special("links/dev.py", tarfile.CHRTYPE, devmajor=1, devminor=3),
        special("links/fifo.py", tarfile.FIFOTYPE),
    ]
    c.case("tar-links-devices", tar_bytes(members), ext=".tar.gz",
           skipped=[("unsupported", "links/sym.py"), ("unsupported", "links/hard.py"),
                    ("unsupported", "links/dev.py"), ("unsupported", "links/fifo.py")])
    c.case("tar-plain-links", tar_bytes(members, gz=False), ext=".tar",
           skipped=[("unsupported", "links/sym.py")])
    body = tar_bytes([file_info(f"pkg/m{i}.py", (f"def m{i}():\n    return {i}\n" * 300).encode()) for i in range(30)])
    c.case("targz-garbage-after", body + bytes(RNG.randrange(256) for _ in range(5000)), ext=".tar.gz")
    c.case("targz-truncated", body[: len(body) // 2], ext=".tar.gz", skipped=[("unreadable", "")])


def files(c):
    cap_over = (b"x = 1\n" * (FILE_CAP // 6 + 1))[:FILE_CAP] + b"\n"
    assert len(cap_over) == FILE_CAP + 1
    minified = b"var total = " + b" + ".join(b"a%d" % (i % 1000) for i in range(450_000))[: 900_000] + b"1;\n"
    utf16 = "def utf16_function():\n    return 'caf\u00e9'\n".encode("utf-16")
    nested_py = "".join(" " * i + f"if x{i}:\n" for i in range(1000)) + " " * 1000 + "pass\n"
    nested_fn = "".join(f"function f{i}() {{ g{i}();\n" for i in range(5000)) + "}\n" * 5000
    c.source_zip("file-random-bytes", {"bin/random.py": bytes(RNG.randrange(256) for _ in range(20000))},
                 skipped=[("binary", "bin/random.py")])
    c.source_zip("file-nul-bytes", {"bin/nul.js": b"var a = 1;\x00\x00\x00" + bytes(5000)},
                 skipped=[("binary", "bin/nul.js")])
    c.source_zip("file-latin1", {"enc/latin1.py": "def caf\u00e9():\n    return '\u00e9t\u00e9'\n".encode("latin-1")},
                 errors=["enc/latin1.py"])
    c.source_zip("file-utf16", {"enc/utf16.py": utf16})
    c.source_zip("file-cr-only", {"enc/cr.py": b"def cr_only():\r    return 1\r\rdef cr_two():\r    return 2\r"})
    c.source_zip("file-minified-one-line", {"min/app.js": minified})
    c.source_zip("file-one-byte-over-cap", {"big/over.py": cap_over}, skipped=[("too_large", "big/over.py")])
    c.source_zip("file-million-lines", {"lines/empty.py": b"\n" * 1_000_000})
    c.source_zip("file-long-identifier", {"long/ident.py": b"a" * 500_000 + b" = 1\n"})
    c.source_zip("file-nested-brackets", {"deep/brackets.py": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"})
    c.source_zip("file-nested-parens-js", {"deep/parens.js": b"var x = " + b"(" * 100_000 + b"1" + b")" * 100_000 + b";\n"})
    c.source_zip("file-deep-indent", {"deep/indent.py": nested_py.encode()})
    c.source_zip("file-5000-nested-functions", {"deep/functions.js": nested_fn.encode()})
    # Kotlin's scanner looks far ahead at each `<`: the time budget stops it.
    c.source_zip("file-slow-to-parse", {"slow/generics.kt": b"val x = " + b"a < b > c " * 40_000 + b"\n"},
                 errors=["slow/generics.kt"])
    c.source_zip("file-html-in-docs", {
        "doc/html.py": b'def html_doc():\n    """</script><script>alert(1)</script><img src=x onerror=alert(2)>"""\n'
                       b"    # <!-- </textarea><svg onload=alert(3)> -->\n    return 1\n",
        "doc/html.ts": b"/** </script><script>alert(4)</script> */\nexport function htmlDoc(): number { return 1; }\n",
    })
    c.source_zip("file-trojan-source", {
        "bidi/access.js": "var isAdmin = false;\n/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */\n"
                          "console.log('admin');\n/* end admins only \u202e { \u2066*/\n".encode(),
    }, errors=["bidi/access.js"])


def graphs(c):
    c.source_zip("graph-inheritance-cycle", {
        "cyc/a.py": "from cyc.b import B\n\nclass A(B):\n    def f(self):\n        return self.g()\n",
        "cyc/b.py": "from cyc.a import A\n\nclass B(A):\n    def g(self):\n        return self.f()\n",
        "cyc/c.py": "class Selfish(Selfish):\n    def me(self):\n        return self.me()\n",
        "cyc/Self.java": "class Self extends Self { void m() { m(); } }\n",
        "cyc/self.ts": "class Loop extends Loop { run() { this.run(); } }\ninterface I extends I {}\n",
    })
    c.source_zip("graph-reexport-cycle", {
        "re/__init__.py": "from .a import *\n",
        "re/a.py": "from .b import *\n\ndef from_a():\n    pass\n",
        "re/b.py": "from .a import *\nfrom . import *\n\ndef from_b():\n    return from_a()\n",
        "web/a.ts": "export * from './b';\nexport function fromA() { return 1; }\n",
        "web/b.ts": "export * from './a';\nexport * from './b';\nimport { fromA } from './a';\nexport const x = fromA();\n",
    })
    chain = "class C0:\n    def method(self):\n        return 0\n" + "".join(
        f"\nclass C{i}(C{i - 1}):\n    def method(self):\n        return super().method() + 1\n" for i in range(1, 3000))
    c.source_zip("graph-3000-class-chain", {"chain/classes.py": chain})
    # 400 functions in four modules, each calling all 400: 160,000 calls.
    calls = "; ".join(f"f{j}()" for j in range(400))
    clique = {f"clique/part{p}.py": "from clique.part0 import *\nfrom clique.part1 import *\n"
              "from clique.part2 import *\nfrom clique.part3 import *\n\n"
              + "".join(f"def f{i}():\n    {calls}\n" for i in range(p * 100, p * 100 + 100)) for p in range(4)}
    c.source_zip("graph-call-clique", clique)
    overloads = "class Many {\n" + "".join(f"  void m({'int a, ' * (i % 7)}String s{i}) {{ m(s{i}); }}\n"
                                          for i in range(5000)) + "}\n"
    c.source_zip("graph-5000-overloads", {"over/Many.java": overloads})


def configuration(c):
    c.source_zip("config-tsconfig-loop", {
        "tsconfig.json": '{"extends": "./tsconfig.base.json", "compilerOptions": {"baseUrl": "."}}',
        "tsconfig.base.json": '{"extends": "./tsconfig.json"}',
        "web/tsconfig.json": '{"extends": "./tsconfig.json"}',
        "web/main.ts": "import { x } from 'lib/x';\nexport const y = x;\n",
    })
    c.source_zip("config-invalid-package-json", {
        "package.json": '{"name": "broken", "main": ',
        "web/package.json": "\x00\x01not json at all",
        "web/index.js": "module.exports = require('./lib');\n",
    }, skipped=[("binary", "web/package.json")])
    c.source_zip("config-go-mod-junk", {
        "go.mod": b"module \xff\xfe\x00??? require ((((\n" * 100,
        "main.go": "package main\n\nfunc main() {}\n",
        "sub/go.mod": "module\nmodule\ngo not-a-version\nreplace => =>\n",
    }, skipped=[("binary", "go.mod")])
    c.source_zip("config-unterminated-cargo-toml", {
        "Cargo.toml": '[package\nname = "unterminated\n[dependencies\nserde = { version = "1"\n',
        "src/lib.rs": "pub fn f() {}\n",
    })


def folders(c):
    root = os.path.join(c.out, "dir-links")
    os.makedirs(os.path.join(root, "needle"))
    with open(os.path.join(root, "needle", NEEDLE_NAME), "wb") as f:
        f.write(NEEDLE_TEXT)
    os.makedirs(os.path.join(root, "loop"))
    os.symlink("..", os.path.join(root, "loop", "parent"))
    os.symlink("loop", os.path.join(root, "self-loop"))
    os.symlink("/etc", os.path.join(root, "outside"))
    os.symlink("/etc/hostname", os.path.join(root, "outside.py"))
    os.symlink("nowhere.py", os.path.join(root, "dangling.py"))
    c.record("dir-symlinks", "dir-links")
    root = os.path.join(c.out, "dir-unreadable")
    os.makedirs(os.path.join(root, "needle"))
    with open(os.path.join(root, "needle", NEEDLE_NAME), "wb") as f:
        f.write(NEEDLE_TEXT)
    os.makedirs(os.path.join(root, "locked"))
    with open(os.path.join(root, "locked", "inside.py"), "w") as f:
        f.write("def inside():\n    pass\n")
    with open(os.path.join(root, "secret.py"), "w") as f:
        f.write("def secret():\n    pass\n")
    os.chmod(os.path.join(root, "secret.py"), 0)
    os.chmod(os.path.join(root, "locked"), 0)
    # Root reads them anyway; anyone else gets them listed as unreadable.
    expect = [] if os.geteuid() == 0 else [("unreadable", "secret.py"), ("unreadable", "locked")]
    c.record("dir-unreadable", "dir-unreadable", skipped=expect)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        sys.exit(f"{out} is not empty")
    corpus = Corpus(out)
    for build in (bombs, dense, lying_headers, names, containers, files, graphs, configuration, folders):
        build(corpus)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(corpus.cases, f, indent=1)
    print(f"{len(corpus.cases)} hostile cases in {out}")


if __name__ == "__main__":
    main()

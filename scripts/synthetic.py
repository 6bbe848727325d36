#!/usr/bin/env python3
"""Writes the synthetic scale corpus for `make bench`: a zip of N small source
files (Python and TypeScript, nine to one) in packages of 500, each defining a
class with methods and a function that import and call their neighbours, so
the graph has real cross-file edges to resolve. Deterministic: the same N
always gives the same bytes.

usage: synthetic.py N OUT.zip
"""
import sys
import zipfile

PACKAGE = 500


def python(i: int, n: int) -> str:
    pkg, prev, nxt = i // PACKAGE, (i - 1) % n, (i + 1) % n
    return f'''"""Module {i} of the synthetic corpus: records of kind {i % 97}."""
from pkg{prev // PACKAGE}.mod{prev} import Record{prev}, load_{prev}
from pkg{nxt // PACKAGE} import mod{nxt}

LIMIT_{i} = {i % 1000}


class Record{i}(Record{prev}):
    """A record that validates, scores and saves itself."""

    def __init__(self, name, size=0):
        self.name = name
        self.size = size

    def validate(self):
        if not self.name:
            raise ValueError("record {i} has no name")
        return self.size <= LIMIT_{i}

    def score(self, weight):
        total = 0
        for step in range(self.size):
            total += step * weight if step % 2 else step
        return total

    def save(self, store):
        if self.validate():
            store.put(self.name, self.score(2))
        return mod{nxt}.load_{nxt}(self.name)


def load_{i}(name):
    record = Record{i}(name, len(name))
    return load_{prev}(record.name) if record.validate() else None
'''


def typescript(i: int, n: int) -> str:
    prev = (i - 1) % n
    return f'''// Module {i} of the synthetic corpus, in TypeScript.
import {{ Service{prev} }} from "../pkg{prev // PACKAGE}/service{prev}";

export interface Options{i} {{
  retries: number;
  name: string;
}}

export class Service{i} extends Service{prev} {{
  private readonly options: Options{i};

  constructor(options: Options{i}) {{
    super(options);
    this.options = options;
  }}

  run(input: string[]): number {{
    let total = 0;
    for (const item of input) {{
      total += item.length > this.options.retries ? 1 : 0;
    }}
    return total + this.helper(input);
  }}

  private helper(input: string[]): number {{
    return input.filter((x) => x.startsWith(this.options.name)).length;
  }}
}}
'''


def main() -> None:
    n, out = int(sys.argv[1]), sys.argv[2]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for i in range(n):
            pkg = i // PACKAGE
            if i % 10 == 9:
                path, text = f"synthetic/pkg{pkg}/service{i}.ts", typescript(i, n)
            else:
                path, text = f"synthetic/pkg{pkg}/mod{i}.py", python(i, n)
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
        for pkg in range((n + PACKAGE - 1) // PACKAGE):
            info = zipfile.ZipInfo(f"synthetic/pkg{pkg}/__init__.py", date_time=(2026, 1, 1, 0, 0, 0))
            z.writestr(info, f'"""Package {pkg}."""\n')


if __name__ == "__main__":
    main()

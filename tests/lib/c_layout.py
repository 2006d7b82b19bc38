#!/usr/bin/env python3
"""Layout rules for core/ that the compiler cannot check (docs/ARCHITECTURE.md, "Where Lua may appear").

  c_layout.py lua-includes CORE_DIR   files outside host/ and bind/ that include a Lua header
  c_layout.py long-functions CORE_DIR MAX   C functions longer than MAX lines (definition to closing brace)

Prints one offender per line (FILE:LINE: what) and exits 1 when there is any.
Functions are found the way this tree writes them: the definition starts in column 0 and its body's
closing brace is a `}` alone in column 0; initialisers (`= {`) and type definitions are not functions.
"""
import os
import re
import sys

LUA_HEADER = re.compile(r'^\s*#\s*include\s*[<"](lua|lauxlib|lualib)\.h[>"]')
NOT_FUNCTION = re.compile(r'^(typedef|struct|union|enum)\b|=\s*\{?\s*$|=\s*\{')


def c_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != 'gen')
        for name in sorted(filenames):
            if name.endswith(('.c', '.h')):
                yield os.path.join(dirpath, name)


def lua_includes(root):
    allowed = {os.path.join(root, 'host'), os.path.join(root, 'bind')}
    for path in c_files(root):
        if os.path.dirname(path) in allowed:
            continue
        with open(path, encoding='utf-8', errors='replace') as f:
            for lineno, line in enumerate(f, 1):
                if LUA_HEADER.match(line):
                    yield f'{path}:{lineno}: includes {line.strip()} (only core/host/ and core/bind/ may)'


def long_functions(root, limit):
    for path in c_files(root):
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().split('\n')
        start = None
        for i, line in enumerate(lines):
            if start is None:
                if line.startswith('{') or (line[:1].isalpha() and line.rstrip().endswith('{')
                                            and '(' in line and not NOT_FUNCTION.search(line)):
                    head = i
                    if line.startswith('{'):  # the signature is on the lines above
                        while head > 0 and lines[head - 1].strip() and lines[head - 1][:1] not in ('}', '#') \
                                and not lines[head - 1].rstrip().endswith((';', '*/')):
                            head -= 1
                        if NOT_FUNCTION.search(lines[head]):
                            continue
                    start = head
            elif line.startswith('}'):
                length = i - start + 1
                if length > limit:
                    name = re.search(r'(\w+)\s*\(', ' '.join(lines[start:start + 3]))
                    yield f'{path}:{start + 1}: {name.group(1) if name else "?"} is {length} lines (max {limit})'
                start = None


def main(argv):
    if len(argv) >= 3 and argv[1] == 'lua-includes':
        found = list(lua_includes(argv[2]))
    elif len(argv) >= 4 and argv[1] == 'long-functions':
        found = list(long_functions(argv[2], int(argv[3])))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(''.join(line + '\n' for line in found))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Writes into the effective policy under a Lua tree (issue 39 item 5; tests/cli/test_lint.sh).

  lua_policy_writes.py ROOT

The policy a command gets from ctx.policy() is read, never written: command-line overrides travel as
arguments (flamegraph.settings, a view's spec), and only the context (lua/gpuflame/cli.lua) sets ctx._policy.
Found, per file: an assignment to a field reached from ctx.policy() (`ctx.policy().a.b = v`), from a variable
named policy, or from a local that holds a part of either (`local p = ctx.policy().flamegraph` ... `p.levels
= v`), and any assignment to `ctx._policy` / `self.ctx._policy`. Comments and strings do not count. Prints
"file:line: what", exit 1 when any.
"""
import os
import re
import sys

ALLOWED = {'gpuflame/cli.lua', 'gpuflame/policy.lua'}


def strip(text):
    """Lua source with comments removed and string contents blanked (line numbers kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('--', i):
            m = re.match(r'--\[(=*)\[', text[i:])
            if m:
                end = text.find(']' + m.group(1) + ']', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = text.find('\n', i)
                end = n if end < 0 else end
            out.append('\n' * text.count('\n', i, end))
            i = end
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (j - i - 1) + c)
            i = j + 1
        elif text.startswith('[[', i) or re.match(r'\[=+\[', text[i:i + 10] or ''):
            m = re.match(r'\[(=*)\[', text[i:])
            end = text.find(']' + m.group(1) + ']', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + '\n' * text.count('\n', i, end))
            i = end
        else:
            out.append(c)
            i += 1
    return ''.join(out)


ROOTS = r'(?:ctx\.policy\(\)|policy)'
ALIAS = re.compile(r'\blocal\s+([A-Za-z_]\w*)\s*=\s*' + ROOTS + r'((?:\.[A-Za-z_]\w*)*)\s*(?:$|\n|;)')
CTX_POLICY = re.compile(r'(?:\bself\.)?\bctx\._policy\s*=[^=]')


def check_file(path, rel):
    with open(path, encoding='utf-8', errors='replace') as fh:
        src = strip(fh.read())
    found = []
    aliases = set(m.group(1) for m in ALIAS.finditer(src))
    heads = [r'ctx\.policy\(\)', r'\bpolicy'] + [r'\b' + re.escape(a) for a in sorted(aliases)]
    write = re.compile(r'(?:' + '|'.join(heads) + r')((?:\.[A-Za-z_]\w*|\[[^\]]+\])+)\s*=[^=]')
    for no, line in enumerate(src.split('\n'), 1):
        if rel in ALLOWED:
            continue
        for m in write.finditer(line):
            before = line[:m.start()]
            if re.search(r'[\w.:]$', before):  # a longer name (opts.policy_x, foo.policy): not the policy
                continue
            if re.match(r'\s*local\b', line) and m.start() < line.find('='):
                continue
            found.append('%s:%d: writes %s into the policy' % (path, no, line[m.start():m.end() - 1].strip().rstrip('=').strip()))
        if CTX_POLICY.search(line):
            found.append('%s:%d: sets ctx._policy (reach the policy through ctx.policy() / ctx.reload_policy())'
                         % (path, no))
    return found


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    found = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith('.lua'):
                p = os.path.join(d, f)
                found += check_file(p, os.path.relpath(p, root))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

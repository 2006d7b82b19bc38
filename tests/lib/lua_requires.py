#!/usr/bin/env python3
"""The require graph of gpuflame's Lua modules (issue 39, docs/ARCHITECTURE.md "The require graph").

    lua_requires.py cycles ROOT              one line per cycle: "a -> b -> a" (module names)
    lua_requires.py in-function ROOT [ALLOW] one line per require of a gpuflame module inside a
                                             function body: "FILE:LINE: requires MOD inside a function";
                                             ALLOW is a file of "FILE MOD  # why" lines left out (each
                                             needs its reason; a line matching no such require is
                                             reported too: the list only shrinks)
    lua_requires.py edges ROOT               "a -> b" for every edge (debugging)

ROOT is a directory holding gpuflame/ (lua/ in the repository). Every `require("gpuflame.x")`,
`require "gpuflame.x"` and `pcall(require, "gpuflame.x")` is an edge, wherever it sits; modules
that are not files under ROOT (gpuflame.core, the C bindings) are no nodes. Exit 1 when anything is
reported, else 0.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sccs  # noqa: E402

REQ = re.compile(r'''\brequire\s*(?:\(\s*|,\s*)?["'](gpuflame(?:\.[A-Za-z0-9_]+)*)["']''')
WORD = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def strip(src):
    """Source with comments and string contents blanked (newlines kept), so that keywords can be
    counted; string literals that look like a gpuflame module name are kept (they are the edges)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('--', i):
            m = re.match(r'--\[(=*)\[', src[i:])
            if m:
                end = src.find(']' + m.group(1) + ']', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = src.find('\n', i)
                end = n if end < 0 else end
            out.append(re.sub(r'[^\n]', ' ', src[i:end]))
            i = end
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            lit = src[i:j + 1]
            out.append(lit if re.fullmatch(r'["\']gpuflame[A-Za-z0-9_.]*["\']', lit) else c + ' ' * (len(lit) - 2) + c)
            i = j + 1
        elif c == '[' and re.match(r'\[(=*)\[', src[i:]):
            m = re.match(r'\[(=*)\[', src[i:])
            end = src.find(']' + m.group(1) + ']', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:end]))
            i = end
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def requires(path):
    """[(line, module, in_function)] for one file."""
    src = strip(open(path, encoding='utf-8').read())
    found = []
    stack = []  # block openers: 'function' or 'block'
    for lineno, line in enumerate(src.split('\n'), 1):
        events = [(m.start(), 'req', m.group(1)) for m in REQ.finditer(line)]
        events += [(m.start(), 'kw', m.group(0)) for m in WORD.finditer(line)]
        for _, kind, val in sorted(events, key=lambda e: (e[0], e[1] == 'kw')):
            if kind == 'req':
                found.append((lineno, val, 'function' in stack))
            elif val == 'function':
                stack.append('function')
            elif val in ('if', 'do', 'repeat'):
                stack.append('block')
            elif val in ('end', 'until') and stack:
                stack.pop()
    return found


def modules(root):
    """{module name: file} for every Lua file under ROOT/gpuflame."""
    mods = {}
    for d, _, files in os.walk(os.path.join(root, 'gpuflame')):
        for f in files:
            if not f.endswith('.lua'):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)[:-4].replace(os.sep, '.')
            if rel.endswith('.init'):
                rel = rel[:-5]
            mods[rel] = path
    return mods


def graph(root):
    mods = modules(root)
    edges = {m: set() for m in mods}
    sites = {}
    for m, path in sorted(mods.items()):
        for line, dep, in_fn in requires(path):
            sites.setdefault(m, []).append((path, line, dep, in_fn))
            if dep in mods and dep != m:
                edges[m].add(dep)
    return mods, edges, sites


def cycles(edges):
    """One representative cycle for each strongly connected component of more than one module
    (Tarjan), then every elementary cycle inside it is not listed: the lines name the component's
    members in a cycle found by walking it."""
    comps = sccs.tangled(edges)
    out = []
    for comp in sorted(comps):
        members = set(comp)
        # the shortest cycle through the component's first member (BFS back to it)
        start = comp[0]
        prev, queue, path = {start: None}, [start], None
        while queue and path is None:
            v = queue.pop(0)
            for w in sorted(edges[v] & members):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path = list(reversed(path)) + [start]
                    break
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
        out.append(' -> '.join(path) + '   (%d modules tied: %s)' % (len(comp), ' '.join(comp)))
    return out


def main(argv):
    if len(argv) < 3 or argv[1] not in ('cycles', 'in-function', 'edges'):
        sys.stderr.write(__doc__)
        return 2
    mods, edges, sites = graph(argv[2])
    if argv[1] == 'edges':
        for m in sorted(edges):
            for d in sorted(edges[m]):
                print('%s -> %s' % (m, d))
        return 0
    if argv[1] == 'cycles':
        out = cycles(edges)
    else:
        allow, out = {}, []
        if len(argv) > 3:
            for n, raw in enumerate(open(argv[3], encoding='utf-8'), 1):
                body, _, why = raw.partition('#')
                words = body.split()
                if not words:
                    continue
                if len(words) != 2 or not why.strip():
                    out.append('%s:%d: an allow line is "FILE MOD  # why" (the reason is required)' % (argv[3], n))
                    continue
                allow[tuple(words)] = n
        used = set()
        for m in sorted(sites):
            for path, line, dep, in_fn in sites[m]:
                rel = os.path.relpath(path, argv[2])
                if in_fn and (rel, dep) in allow:
                    used.add((rel, dep))
                elif in_fn:
                    out.append('%s:%d: requires %s inside a function' % (path, line, dep))
        for key, n in sorted(allow.items(), key=lambda kv: kv[1]):
            if key not in used:
                out.append('%s:%d: %s %s is allowed but no longer required inside a function (drop the line)'
                           % (argv[3], n, key[0], key[1]))
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

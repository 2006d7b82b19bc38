#!/usr/bin/env python3
"""Include structure of core/ (issue 39 item 4; tests/cli/test_lint.sh).

  c_includes.py cycles ROOT
      A file of ROOT and its header (x.c, x.h) are one unit; unit A depends on unit B when a file of A
      includes "B.h". Prints each circle of units ("a -> b -> a"), one a line; exit 1 when there is one.
  c_includes.py own-api ROOT PREFIX
      Each header ROOT/PREFIX*.h declares only functions its own ROOT/PREFIX*.c defines; a header without a
      .c of its name (a types header, a private one) declares none (static inline functions do not count).
      Prints "header:line: NAME is defined in OTHER.c" (or "... in no PREFIX file"); exit 1 when any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sccs  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a declaration at file level: a type, the name, its parameters, ending in ';' (not static, not a typedef)
DECL = re.compile(r'^(?!static\b|typedef\b|extern\b|#|\s|/|\*|})[A-Za-z_][\w \t\*]*?\b([a-z_][a-z0-9_]*)\s*\([^;{]*\)\s*'
                  r'(?:__attribute__\s*\(\(.*?\)\)\s*)?;', re.M | re.S)
DEF = r'^[A-Za-z_][\w \t\*]*?\b{}\s*\([^;]*?\)\s*\{{'


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def sources(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.join(d, f)


def unit(path):
    return os.path.splitext(path)[0]


def cycles(root):
    files = list(sources(root))
    by_name = {}
    for f in files:
        if f.endswith('.h'):
            by_name.setdefault(os.path.basename(f), []).append(f)
    graph = {}
    for f in files:
        u = unit(f)
        graph.setdefault(u, set())
        with open(f, encoding='utf-8', errors='replace') as fh:
            text = strip_comments(fh.read())
        for inc in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            target = here if os.path.exists(here) else None
            if not target and len(by_name.get(os.path.basename(inc), [])) == 1:
                target = by_name[os.path.basename(inc)][0]
            if target and unit(target) != u:
                graph[u].add(unit(target))
    # strongly connected components (tests/lib/sccs.py), then one circle through each
    out = sccs.tangled(graph)
    lines = []
    for comp in out:
        members = set(comp)
        start = comp[0]
        # shortest way back to start inside the component
        prev, frontier, seen = {}, [start], {start}
        found = None
        while frontier and not found:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v]):
                    if w == start:
                        found = v
                        break
                    if w in members and w not in seen:
                        seen.add(w)
                        prev[w] = v
                        nxt.append(w)
                if found:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        path.reverse()
        lines.append(' -> '.join(os.path.relpath(p, root) for p in path + [start]))
    return lines


def own_api(root, prefix):
    defined = {}
    for f in sorted(os.listdir(root)):
        if f.startswith(prefix) and f.endswith('.c'):
            with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
                defined[f] = strip_comments(fh.read())
    lines = []
    for h in sorted(os.listdir(root)):
        if not (h.startswith(prefix) and h.endswith('.h')):
            continue
        own = h[:-2] + '.c'
        with open(os.path.join(root, h), encoding='utf-8', errors='replace') as fh:
            text = strip_comments(fh.read())
        for m in DECL.finditer(text):
            name = m.group(1)
            line = text.count('\n', 0, m.start(1)) + 1
            if own in defined and re.search(DEF.format(re.escape(name)), defined[own], re.M):
                continue
            where = [c for c, body in defined.items() if re.search(DEF.format(re.escape(name)), body, re.M)]
            lines.append('%s:%d: %s is defined in %s' % (os.path.join(root, h), line, name,
                                                          ', '.join(where) if where else 'no %s file' % prefix))
    return lines


def main(argv):
    if len(argv) >= 3 and argv[1] == 'cycles':
        res = cycles(argv[2])
    elif len(argv) >= 4 and argv[1] == 'own-api':
        res = own_api(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in res:
        print(line)
    return 1 if res else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

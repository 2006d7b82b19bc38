#!/usr/bin/env python3
"""One way to reach policy (docs/CONVENTIONS.md "Policy values"): in a Lua function's parameter list, a
parameter named ctx, policy or pol is the last one; and no table carries the policy into a function (no
`opts.policy`): a `.policy` field (or `["policy"]`) is read only off the holders that keep a session's
policy, a capture's `state` and the `model` a findings rule receives; `ctx.policy()` is a call, not a read.

  lua_ctx_last.py DIR...   every *.lua under each DIR

Prints one offender per line (FILE:LINE: name(params), or FILE:LINE: X.policy read ...) and exits 1 when
there is any. Every `function` keyword counts (`function M.f(`, `local function f(`, `f = function(`,
methods), its parameter list may span lines; comments are skipped, so a comment may show an old signature,
and so are strings (an error message may name opts.policy).
"""
import os
import re
import sys

NAMES = {'ctx', 'policy', 'pol'}
SIGNATURE = re.compile(r'\bfunction\b\s*([A-Za-z_][\w.:]*)?\s*\(([^)]*)\)')
LONG_COMMENT = re.compile(r'--\[(=*)\[.*?\]\1\]', re.S)
# X.policy / X["policy"] not followed by a call; X: a name, or a call's or index's result
POLICY_READ = re.compile(r'([A-Za-z_]\w*|\)|\])\s*(?:\.\s*policy\b|\[\s*"policy"\s*\])(?!\s*\()')
HOLDERS = {'state', 'model'}
SHORT_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


def code_of(text):
    """text without its comments; line numbers kept."""
    text = LONG_COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)
    out = []
    for line in text.split('\n'):
        quote, i, cut = None, 0, len(line)
        while i < len(line):
            c = line[i]
            if quote:
                if c == '\\':
                    i += 1
                elif c == quote:
                    quote = None
            elif c in '"\'':
                quote = c
            elif line.startswith('--', i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return '\n'.join(out)


def strings_blanked(code):
    """code with each string literal emptied, but for the key "policy" (so `opts["policy"]` stays)."""
    return SHORT_STRING.sub(lambda m: '"policy"' if m.group(0)[1:-1] == 'policy' else '""', code)


def offenders(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith('.lua'):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding='utf-8', errors='replace') as f:
                code = code_of(f.read())
            for m in SIGNATURE.finditer(code):
                params = [p.strip() for p in m.group(2).split(',') if p.strip()]
                if any(p in NAMES for p in params[:-1]):
                    line = code.count('\n', 0, m.start()) + 1
                    yield f'{path}:{line}: {m.group(1) or "function"}({", ".join(params)})'
            bare = strings_blanked(code)
            for m in POLICY_READ.finditer(bare):
                if m.group(1) in HOLDERS:
                    continue
                line = bare.count('\n', 0, m.start()) + 1
                yield (f'{path}:{line}: {m.group(0).replace(" ", "")} read (a table carrying the policy: '
                       'pass the policy, or ctx, as the last argument)')


def main(argv):
    bad = [o for root in argv[1:] for o in offenders(root)]
    for o in bad:
        print(o)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

"""Checks of the page code (docs/PAGES.md): the JavaScript and CSS of the pages live in templates/js/ and
templates/css/, and templates hold markup and include slots only.

  page_js.py sources TEMPLATES          the page sources: each template and each file under js/
  page_js.py dups TEMPLATES             names of functions defined in two or more page sources
  page_js.py inline TEMPLATES           templates whose <script>/<style> hold anything but include slots
  page_js.py includes TEMPLATES         include slots naming a missing file; js/, css/ files no template includes

Each check prints one line per problem and exits 1 when there is one. A definition is `function NAME(`
or `var|let|const NAME = function` / `= (...) =>` / `= x =>`, comments left out.
"""
import os
import re
import sys

INCLUDE = re.compile(r"^[ \t]*\{\{include:([\w./-]+)\}\}[ \t]*$", re.M)
DEF = re.compile(r"\bfunction\s+([A-Za-z_$][\w$]*)\s*\(|\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*"
                 r"(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")


def strip_comments(js):
    js = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), js, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", js)


def templates(top):
    return sorted(os.path.join(top, f) for f in os.listdir(top) if f.endswith(".html"))


def js_files(top):
    d = os.path.join(top, "js")
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".js")) if os.path.isdir(d) else []


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def code_blocks(html):
    """The bodies of the template's code <script> and <style> elements (not application/json data)."""
    out = []
    for m in re.finditer(r"<(script|style)([^>]*)>(.*?)</\1>", html, re.S):
        if "application/json" not in m.group(2):
            out.append(m.group(3))
    return out


def sources(top):
    """[(name, code)]: a template's inline code, and each js/ file."""
    src = [(os.path.relpath(p, top), "\n".join(code_blocks(read(p)))) for p in templates(top)]
    return src + [(os.path.relpath(p, top), read(p)) for p in js_files(top)]


def dups(top):
    where = {}
    for name, code in sources(top):
        for m in DEF.finditer(strip_comments(INCLUDE.sub("", code))):
            where.setdefault(m.group(1) or m.group(2), set()).add(name)
    return ["%s: defined in %s" % (f, ", ".join(sorted(w))) for f, w in sorted(where.items()) if len(w) > 1]


def inline(top):
    bad = []
    for p in templates(top):
        for body in code_blocks(read(p)):
            rest = INCLUDE.sub("", body).strip()
            if rest:
                bad.append("%s: inline code (%s...); page code lives in templates/js/ and templates/css/"
                           % (os.path.relpath(p, top), rest[:40].replace("\n", " ")))
    return bad


def includes(top):
    bad, used = [], set()
    files = templates(top) + js_files(top)
    for p in files:
        for name in INCLUDE.findall(read(p)):
            used.add(name)
            if not os.path.isfile(os.path.join(top, name)):
                bad.append("%s: includes %s, which does not exist" % (os.path.relpath(p, top), name))
    for sub in ("js", "css"):
        d = os.path.join(top, sub)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if sub + "/" + f not in used:
                bad.append("%s/%s: no template includes it" % (sub, f))
    return bad


def main():
    what, top = sys.argv[1], sys.argv[2]
    if what == "sources":
        for name, _ in sources(top):
            print(name)
        return 0
    bad = {"dups": dups, "inline": inline, "includes": includes}[what](top)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""A strict parser for the YAML subset gpuflame's deployment manifests use (python3 stdlib; the
binary has no YAML parser yet). Supported: `---` separated documents, comments, block mappings,
block sequences (including `- key: value` items), plain / single-quoted / double-quoted scalars,
`|` literal blocks and `[]` / `{}` empty flow collections. Anything else (anchors, aliases, tags,
flow collections with content, multi-line plain scalars) is an error naming the line, so the
manifest cannot silently drift outside what this test understands."""
import json
import re
import sys


class YamlError(Exception):
    pass


def _scalar(text, lineno):
    t = text.strip()
    if t == "":
        return None
    if t[0] in "&*!":
        raise YamlError(f"line {lineno}: anchors, aliases and tags are not supported: {t}")
    if t in ("[]", "{}"):
        return [] if t == "[]" else {}
    if t[0] in "[{":
        raise YamlError(f"line {lineno}: flow collections are not supported: {t}")
    if t[0] == '"':
        return json.loads(t)
    if t[0] == "'":
        if not t.endswith("'"):
            raise YamlError(f"line {lineno}: unterminated quote")
        return t[1:-1].replace("''", "'")
    if t in ("true", "True"):
        return True
    if t in ("false", "False"):
        return False
    if t in ("null", "~"):
        return None
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    if re.fullmatch(r"-?\d+\.\d*", t):
        return float(t)
    return t


def _strip_comment(s):
    out, q = [], None
    for i, c in enumerate(s):
        if q:
            if c == q:
                q = None
        elif c in "\"'":
            q = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out).rstrip()


def _lines(text):
    for n, raw in enumerate(text.split("\n"), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(f"line {n}: tab indentation")
        yield n, raw


def parse_documents(text):
    docs, cur = [], []
    for n, raw in _lines(text):
        if raw.strip() == "---":
            docs.append(cur)
            cur = []
        else:
            cur.append((n, raw))
    docs.append(cur)
    out = []
    for d in docs:
        items = []
        i = 0
        while i < len(d):
            n, raw = d[i]
            s = _strip_comment(raw)
            if s.strip():
                items.append([n, len(s) - len(s.lstrip()), s.strip(), raw])
            i += 1
        if items:
            p = _Parser(items, d)
            v = p.block(items[0][1])
            if p.i != len(p.items):
                raise YamlError(f"line {p.items[p.i][0]}: unexpected indentation")
            out.append(v)
    return out


class _Parser:
    def __init__(self, items, rawlines):
        self.items, self.i = items, 0
        self.raw = {n: r for n, r in rawlines}

    def block(self, indent):
        n, ind, s, _ = self.items[self.i]
        if ind != indent:
            raise YamlError(f"line {n}: expected indentation {indent}, got {ind}")
        return self.seq(indent) if s.startswith("- ") or s == "-" else self.map(indent)

    def literal(self, n, parent_indent):
        # consume raw lines more indented than parent_indent (blank lines kept)
        lines, first_ind = [], None
        while self.i < len(self.items) and self.items[self.i][1] > parent_indent:
            ln = self.items[self.i][0]
            raw = self.raw[ln]
            ind = len(raw) - len(raw.lstrip())
            first_ind = ind if first_ind is None else first_ind
            lines.append(raw[first_ind:])
            self.i += 1
        return "\n".join(lines) + "\n"

    def value_after_key(self, n, rest, indent):
        if rest == "|":
            return self.literal(n, indent)
        if rest.startswith(("|", ">")):
            raise YamlError(f"line {n}: only plain `|` block scalars are supported")
        if rest != "":
            return _scalar(rest, n)
        if self.i < len(self.items) and self.items[self.i][1] > indent:
            return self.block(self.items[self.i][1])
        if self.i < len(self.items) and self.items[self.i][1] == indent and self.items[self.i][2].startswith("- "):
            return self.seq(indent)  # "key:\n- item" at the same indentation
        return None

    def map(self, indent):
        out = {}
        while self.i < len(self.items):
            n, ind, s, _ = self.items[self.i]
            if ind < indent:
                break
            if ind > indent:
                raise YamlError(f"line {n}: unexpected indentation")
            if s.startswith("- "):
                break
            m = re.match(r'^([A-Za-z0-9_.\-/]+|"[^"]*")\s*:(?:\s+(.*))?$', s)
            if not m:
                raise YamlError(f"line {n}: expected `key: value`: {s}")
            key = json.loads(m.group(1)) if m.group(1).startswith('"') else m.group(1)
            if key in out:
                raise YamlError(f"line {n}: duplicate key {key}")
            self.i += 1
            out[key] = self.value_after_key(n, (m.group(2) or "").strip(), indent)
        return out

    def seq(self, indent):
        out = []
        while self.i < len(self.items):
            n, ind, s, raw = self.items[self.i]
            if ind < indent or not (s.startswith("- ") or s == "-"):
                break
            if ind > indent:
                raise YamlError(f"line {n}: unexpected indentation")
            rest = s[1:].strip()
            m = re.match(r'^([A-Za-z0-9_.\-/]+)\s*:(?:\s+(.*))?$', rest)
            if m:
                # "- key: value" starts a mapping whose keys are indented to the key's column
                col = ind + (len(s) - len(rest))
                self.items[self.i] = [n, col, rest, raw]
                out.append(self.map(col))
            else:
                self.i += 1
                if rest == "":
                    out.append(self.block(self.items[self.i][1]) if self.i < len(self.items) and self.items[self.i][1] > ind else None)
                else:
                    out.append(_scalar(rest, n))
        return out


if __name__ == "__main__":
    try:
        print(json.dumps(parse_documents(open(sys.argv[1]).read())))
    except YamlError as e:
        sys.exit(f"{sys.argv[1]}: {e}")

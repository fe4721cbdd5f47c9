"""What `scripts/upstream-diff map` knows of the Rust side: the public items of the API snapshot
(api/claude-agent-core.txt) and the serde wire names of the structs and enums of core/src.

The wire names are read with regular expressions (no Rust parser): `#[serde(rename_all)]`,
`rename`, `alias`, `flatten` and `skip` on derived types, the fields of `twin_inputs!` structs,
the `Variant = "wire"` lines of `wire_enum!`, and match arms such as `Kind::Variant => "wire"`
or `"wire" => Kind::Variant` (types serialized by hand). They only propose map lines: the map
and the test check each proposal against the API snapshot.
"""

import os
import re

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
PATH = re.compile(rf"claude_agent_core::({IDENT}(?:::{IDENT})*)")
KINDS = re.compile(r"^(?:#\[non_exhaustive\] )?pub (struct|enum|trait|type|const fn|const|mod|async fn|fn)?\s*claude_agent_core::")


class Api:
    """The items of an API snapshot: path (without `claude_agent_core::`) -> (kind, rest)."""

    def __init__(self, text):
        self.items = {}
        for line in text.splitlines():
            if not line.startswith(("pub ", "#[non_exhaustive] pub ")):
                continue
            found = PATH.search(line)
            kind = KINDS.match(line)
            if not found or not kind:
                continue
            rest = line[found.end():]
            kind = kind.group(1) or ("field" if rest.startswith(": ") else "variant")
            self.items.setdefault(found.group(1), (kind, rest))
        self.children = {}
        for path in self.items:
            parent, _, name = path.rpartition("::")
            self.children.setdefault(parent, []).append(name)
        # A type re-exported under several paths (`client::prelude::HookOutput`,
        # `hooks::HookOutput`) is named by one: outside the prelude, the shortest.
        found = {}
        for path, (kind, rest) in self.items.items():
            if kind in ("struct", "enum", "trait"):
                same = (path.rsplit("::", 1)[-1], kind, tuple(sorted(self.children.get(path, []))))
                found.setdefault(same, []).append(path)
        self.by_name = {}
        for (name, _, _), paths in sorted(found.items()):
            best = min(paths, key=lambda p: ("prelude" in p, len(p), p))
            self.by_name.setdefault(name, []).append(best)

    def kind(self, path):
        return self.items.get(path, (None, ""))[0]

    def rest(self, path):
        return self.items.get(path, (None, ""))[1]

    def has(self, target):
        """Whether a map target exists: `path`, or `path { field, … }` for fields of an enum
        variant."""
        path, fields = split_target(target)
        if path not in self.items:
            return False
        rest = self.rest(path)
        return all(re.search(rf"[{{,] {re.escape(f)}: ", rest) for f in fields)

    def types_in(self, text):
        """The struct, enum and trait paths a type text names (`Option<Vec<message::Usage>>`)."""
        out = []
        for name in re.findall(rf"{IDENT}(?:::{IDENT})*", text):
            if self.kind(name) in ("struct", "enum", "trait") and name not in out:
                out.append(name)
        return out

    def variant_fields(self, path):
        rest = self.rest(path)
        if not rest.startswith(" {"):
            return []
        return re.findall(rf"[{{,] ({IDENT}): ", rest)


def split_target(target):
    """`control::ControlRequest::SetModel { model }` -> (path, [fields])."""
    path, _, fields = target.partition(" {")
    return path.strip(), [f.strip() for f in fields.rstrip("} ").split(",") if f.strip()]


def norm(name):
    """A name compared across spellings: `apiKeySource`, `api_key_source`, `ApiKeySource`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# ---------------------------------------------------------------------------------------------
# serde wire names in core/src


def _camel(name):
    head, *tail = name.split("_")
    return head + "".join(t[:1].upper() + t[1:] for t in tail)


def _words(name):
    return re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name)


def rename(name, style, variant):
    """serde's `rename_all` of a field (snake_case) or a variant (PascalCase)."""
    if not style:
        return name
    if not variant and style in ("lowercase", "UPPERCASE"):
        return name.lower() if style == "lowercase" else name.upper()
    words = _words(name) if variant else name.split("_")
    lower = [w.lower() for w in words]
    return {
        "snake_case": "_".join(lower),
        "camelCase": lower[0] + "".join(w.capitalize() for w in lower[1:]) if variant else _camel(name),
        "kebab-case": "-".join(lower),
        "lowercase": "".join(lower),
        "UPPERCASE": "".join(lower).upper(),
        "SCREAMING_SNAKE_CASE": "_".join(lower).upper(),
        "PascalCase": "".join(w.capitalize() for w in lower),
    }.get(style, name)


def _body(text, start):
    """The text inside the braces that open at `start`."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:index]
    return ""


def _split(body):
    """`body` split at the commas outside brackets."""
    parts, depth, current = [], 0, []
    for char in body:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


ATTRS = re.compile(r"^\s*((?:#\[(?:[^\[\]]|\[[^\]]*\])*\]\s*)*)", re.S)


def _serde(attrs, key):
    found = re.search(rf"\b{key}\s*=\s*\"([^\"]+)\"", attrs)
    return found.group(1) if found else None


def _fields(body, style):
    out = []
    for part in _split(body):
        head = ATTRS.match(part)
        attrs = head.group(1)
        found = re.match(rf"\s*(?:pub(?:\([^)]*\))?\s+)?(?:r#)?({IDENT})\s*:\s*(.+)$", part[head.end():], re.S)
        if not found:
            continue
        name, ty = found.group(1), re.sub(r"\s+", " ", found.group(2)).strip()
        serde = " ".join(re.findall(r"#\[serde\((.*?)\)\]", attrs, re.S))
        wire = _serde(serde, "rename") or rename(name, style, False)
        out.append({
            "name": name, "type": ty,
            "wires": [wire] + re.findall(r"\balias\s*=\s*\"([^\"]+)\"", serde),
            "flatten": bool(re.search(r"\bflatten\b", serde)),
            "skip": bool(re.search(r"\bskip\b(?!_)", serde)),
        })
    return out


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)//.*$", "", text)


class Index:
    """Structs and enums of core/src by name, with the serde wire names of their fields and
    variants."""

    def __init__(self, root):
        self.structs = {}
        self.enums = {}
        self.arms = {}
        for base, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith(".rs"):
                    with open(os.path.join(base, name), encoding="utf-8") as file:
                        self._read(_strip_comments(file.read()))

    def _read(self, text):
        for found in re.finditer(rf"((?:#\[(?:[^\[\]]|\[[^\]]*\])*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?(struct|enum)\s+({IDENT})(?:<[^>{{]*>)?\s*(?:where[^{{;]*)?\{{", text):
            attrs, kind, name = found.groups()
            body = _body(text, found.end() - 1)
            serde = " ".join(re.findall(r"#\[serde\((.*?)\)\]", attrs, re.S))
            style = _serde(serde, "rename_all")
            if kind == "struct":
                self.structs.setdefault(name, []).append(_fields(body, style))
            else:
                fields_style = _serde(serde, "rename_all_fields")
                variants = []
                for part in _split(body):
                    start = ATTRS.match(part)
                    vattrs = start.group(1)
                    head = re.match(rf"\s*({IDENT})\s*(.*)$", part[start.end():], re.S)
                    if not head:
                        continue
                    vname, rest = head.group(1), head.group(2).strip()
                    vserde = " ".join(re.findall(r"#\[serde\((.*?)\)\]", vattrs, re.S))
                    wires = [_serde(vserde, "rename") or rename(vname, style, True)]
                    wires += re.findall(r"\balias\s*=\s*\"([^\"]+)\"", vserde)
                    sub = _fields(rest[1:-1], fields_style) if rest.startswith("{") else []
                    variants.append({"name": vname, "wires": wires, "payload": rest, "fields": sub})
                self.enums.setdefault(name, []).append(variants)
        for found in re.finditer(r"twin_inputs!\s*\{", text):
            body = _body(text, found.end() - 1)
            names = re.findall(rf"({IDENT})\s*,", re.sub(r"#\[[^\]]*\]", "", body.split("{")[0]))
            fields = _fields(_body(body, body.index("{")), None)
            for name in names:
                self.structs.setdefault(name, []).append(fields)
        for found in re.finditer(r"wire_enum!\s*\{", text):
            body = _body(text, found.end() - 1)
            head = re.match(rf"\s*(?:#\[[^\]]*\]\s*)*({IDENT})\s*\{{", body)
            if head:
                pairs = re.findall(rf"({IDENT})\s*=\s*\"([^\"]+)\"", body[head.end():])
                variants = [{"name": v, "wires": [w], "payload": "", "fields": []} for v, w in pairs]
                self.enums.setdefault(head.group(1), []).append(variants)
        for enum, variant, wire in re.findall(rf"({IDENT})::({IDENT})(?:\s*\{{[^}}]*\}}|\s*\([^)]*\))?\s*=>\s*\"([^\"]+)\"", text):
            self.arms.setdefault(enum, {}).setdefault(variant, set()).add(wire)
        impls = [(m.start(), m.group(1)) for m in re.finditer(rf"\bimpl\b[^{{;]*?\b(?:for\s+)?({IDENT})(?:<[^>{{]*>)?\s*\{{", text)]
        for found in re.finditer(rf"\"([^\"]+)\"\s*=>\s*(Self|{IDENT})::({IDENT})", text):
            wire, enum, variant = found.groups()
            if enum == "Self":
                enum = next((name for at, name in reversed(impls) if at < found.start()), None)
            if enum:
                self.arms.setdefault(enum, {}).setdefault(variant, set()).add(wire)

    def field_names(self, struct, wire, api_fields):
        """The Rust fields of struct `struct` whose wire name is `wire`; of the structs of that
        name, the one whose fields best match `api_fields`. Flattened members are returned as
        ('flatten', field)."""
        best, score = None, -1
        for fields in self.structs.get(struct, []):
            hits = sum(1 for f in fields if f["name"] in api_fields)
            if hits > score:
                best, score = fields, hits
        out = []
        for field in best or []:
            if field["skip"]:
                continue
            if field["flatten"]:
                out.append(("flatten", field))
            elif wire in field["wires"]:
                out.append(("field", field))
        return out

    def variant_wires(self, enum, variant):
        wires = set()
        for variants in self.enums.get(enum, []):
            for v in variants:
                if v["name"] == variant:
                    wires.update(v["wires"])
        wires.update(self.arms.get(enum, {}).get(variant, set()))
        return wires

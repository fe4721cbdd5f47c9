"""core/tests/releases/upstream/map.txt: reading it, checking it, and adding the lines that can
be found mechanically (`scripts/upstream-diff map`).

A map line is `PATTERN -> TARGET[, TARGET…][ # note]` or `PATTERN # CATEGORY: reason`; map.txt's
own header describes the syntax. Lines are grouped by the declaration they start with, sorted,
with the `py:` lines (python-fields.txt) after the others; a comment line belongs to the map line
below it and moves with it.
"""

import re

from fields import base_key
from rust import norm, split_target

PYTHON_SECTION = "# The Python SDK's types.py (python-fields.txt)."
TAGS = ("type", "subtype", "hook_event_name", "hookEventName", "behavior")
CATEGORIES = ("tag", "json", "string", "not typed", "internal", "other shape", "runtime only")
NOT_TYPED = "not typed"
JSONY = re.compile(r"\b(Json|Value|RawValue|Map)\b")
STRINGY = re.compile(r"^(?:Option<)?(?:Vec<)?(?:String|&str|&'static str|Cow<'static, str>|message::StringList)>?>?$")


class Line:
    def __init__(self, pattern, targets=None, note="", reason="", comments=()):
        self.pattern = pattern
        self.targets = list(targets or [])
        self.note = note
        self.reason = reason
        self.comments = list(comments)

    @property
    def prefix(self):
        return self.pattern.endswith("*")

    @property
    def category(self):
        return self.reason.split(":", 1)[0] if self.reason else ""

    def matches(self, key):
        """Whether this line covers a row key (python rows are keyed `py:…`)."""
        if self.prefix:
            return key.startswith(self.pattern[:-1])
        return key == self.pattern

    def text(self):
        if self.targets:
            note = f" # {self.note}" if self.note else ""
            return f"{self.pattern} -> {', '.join(self.targets)}{note}"
        return f"{self.pattern} # {self.reason}"


def split_targets(text):
    """`a::B, c::D { e, f }` -> ['a::B', 'c::D { e, f }']."""
    out, depth, current = [], 0, ""
    for char in text:
        depth += char == "{"
        depth -= char == "}"
        if char == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += char
    return out + [current.strip()] if current.strip() else out


def parse_line(text, comments=()):
    arrow, hash_ = text.find(" -> "), text.find(" # ")
    if arrow != -1 and (hash_ == -1 or arrow < hash_):
        pattern, rest = text[:arrow], text[arrow + 4:]
        targets, _, note = rest.partition(" # ")
        return Line(pattern.strip(), split_targets(targets), note=note.strip(), comments=comments)
    if hash_ != -1:
        return Line(text[:hash_].strip(), reason=text[hash_ + 3:].strip(), comments=comments)
    raise ValueError(f"map line with neither `->` nor `#`: {text}")


def read(text):
    """(header lines, [Line]). The header is the leading run of comment lines."""
    header, lines, comments = [], [], []
    in_header = True
    for raw in text.splitlines():
        if in_header and raw.startswith("#"):
            header.append(raw)
            continue
        in_header = False
        if not raw.strip():
            continue
        if raw.startswith("#"):
            if raw != PYTHON_SECTION:  # written anew by write()
                comments.append(raw)
            continue
        lines.append(parse_line(raw, comments))
        comments = []
    return header, lines


def group(pattern):
    """The declaration a pattern belongs to (its first name)."""
    return re.match(r"(py:)?[^.(\[{ =*]*", pattern).group(0)


def write(header, lines):
    def order(line):
        return (line.pattern.startswith("py:"), group(line.pattern).lower(), group(line.pattern),
                base_key(line.pattern.rstrip("*")), line.pattern)
    out = list(header) + ([""] if header else [])
    last = None
    for line in sorted(lines, key=order):
        if last is not None and group(line.pattern) != last:
            out.append("")
        if last is not None and line.pattern.startswith("py:") and not last.startswith("py:"):
            out.append(PYTHON_SECTION)
            out.append("")
        last = group(line.pattern)
        out.extend(line.comments)
        out.append(line.text())
    return "\n".join(out) + "\n"


def effective(lines, key):
    """The line that maps a row: the exact one, else the longest prefix."""
    best = None
    for line in lines:
        if line.matches(key):
            if not line.prefix:
                return line
            if best is None or len(line.pattern) > len(best.pattern):
                best = line
    return best


def check(lines, keys, api):
    """The problems of a map against the rows (keys, `py:` for python) and the API: uncovered
    rows, targets not in the API, stale lines, duplicate patterns, unknown reason categories."""
    problems = []
    seen = set()
    for line in lines:
        if line.pattern in seen:
            problems.append(f"duplicate map line for `{line.pattern}`")
        seen.add(line.pattern)
        for target in line.targets:
            if not api.has(target):
                problems.append(f"`{line.pattern}`: `{target}` is not in the API snapshot")
        if not line.targets and line.category not in CATEGORIES:
            problems.append(f"`{line.pattern}`: reason category `{line.category}` is not one of {CATEGORIES}")
        if not any(line.matches(k) for k in keys):
            problems.append(f"stale map line (no upstream row): `{line.pattern}`")
    for key in keys:
        if not any(line.matches(key) for line in lines):
            problems.append(f"not mapped: `{key}`")
    return problems


# ---------------------------------------------------------------------------------------------
# Proposals


def split_key(key):
    """(parent key, last segment) of a field key; the parent of `a.list[].b` is `a.list`, of
    `f(param)` is `f`, of `f()=>.x` is `f`; a method row `a.m()` is the member `m` of `a`."""
    if key.endswith("()") and "." in key:
        parent, _, method = key[:-2].rpartition(".")
        if "(" not in method:
            return parent, method
    if key.endswith(")"):
        depth = 0
        for index in range(len(key) - 1, -1, -1):
            depth += key[index] == ")"
            depth -= key[index] == "("
            if depth == 0:
                return key[:index], key[index:]
    depth, cut = 0, -1
    for index, char in enumerate(key):
        depth += char == "("
        depth -= char == ")"
        if char == "." and depth == 0:
            cut = index
    if cut == -1:
        return None, key
    parent = key[:cut]
    while True:
        trimmed = re.sub(r"(\[\]|\{\*\}|\(\)=>)$", "", parent)
        if trimmed == parent:
            break
        parent = trimmed
    return parent, key[cut + 1:]


class Proposer:
    """Finds the Rust item of an upstream row from the map lines of its parents (declaration,
    enclosing field) and the API snapshot, by serde wire name or by name."""

    def __init__(self, api, index, lines, rows):
        self.api = api
        self.index = index
        self.lines = lines
        self.rows = rows

    def targets(self, key):
        line = effective(self.lines, key)
        return line.targets if line and line.targets and not line.prefix else []

    def owners(self, parent):
        """The Rust types (or enum variants with fields) the fields of row `parent` belong to."""
        out = []
        for target in self.targets(parent) or self.targets(parent + "()"):
            path, fields = split_target(target)
            kind = self.api.kind(path)
            if kind in ("struct", "enum", "trait"):
                out.append(path)
            elif kind == "variant":
                rest = self.api.rest(path)
                out += [path] if rest.startswith(" {") else self.api.types_in(rest)
            elif kind in ("field", "const"):
                out += self.api.types_in(self.api.rest(path))
            elif kind and "fn" in kind:
                # What a method gives, else (a builder method returning Self) what it takes.
                rest = self.api.rest(path)
                params, _, result = rest.partition(" -> ")
                out += self.api.types_in(result) or self.api.types_in(params)
        return [o for i, o in enumerate(out) if o not in out[:i]]

    def members(self, owner, segment, depth=0):
        """The API items of `owner` that hold the wire field `segment`."""
        if depth > 3:
            return []
        kind = self.api.kind(owner)
        children = self.api.children.get(owner, [])
        found = []
        if kind == "variant":
            return [f"{owner} {{ {f} }}" for f in self.api.variant_fields(owner) if norm(f) == norm(segment)]
        if kind == "struct":
            for how, field in self.index.field_names(owner.rsplit("::", 1)[-1], segment, children):
                if how == "field" and field["name"] in children:
                    found.append(f"{owner}::{field['name']}")
                elif how == "flatten" and field["name"] in children:
                    for inner in self.api.types_in(self.api.rest(f"{owner}::{field['name']}")):
                        found += self.members(inner, segment, depth + 1)
        if kind == "enum":
            for variant in children:
                path = f"{owner}::{variant}"
                if self.api.kind(path) != "variant":
                    continue
                found += [f"{path} {{ {f} }}" for f in self.api.variant_fields(path) if norm(f) == norm(segment)]
                rest = self.api.rest(path)
                if rest.startswith("(") and depth < 3:
                    for inner in self.api.types_in(rest):
                        found += [f for f in self.members(inner, segment, depth + 1) if f not in found]
        if not found:
            found = [f"{owner}::{c}" for c in children
                     if norm(c) == norm(segment) and self.api.kind(f"{owner}::{c}") in ("field", "fn", "async fn")]
        return found

    def variant(self, enum, value, payload=False):
        """The variant of `enum` whose wire name is `value` (with `payload`, a variant holding
        a value, such as `Other(UnknownName)`, may be it)."""
        exact, loose = [], []
        for name in self.api.children.get(enum, []):
            path = f"{enum}::{name}"
            if self.api.kind(path) != "variant" or (self.api.rest(path).startswith("(") and not payload):
                continue
            if value in self.index.variant_wires(enum.rsplit("::", 1)[-1], name):
                exact.append(path)
            elif norm(name) == norm(value):
                loose.append(path)
        return exact or loose

    def declaration(self, name):
        """The Rust type of a declaration: the type of the same name (without `SDK`, `Message`;
        `…Input` for `…HookInput`, `…Output` for `…HookSpecificOutput`), else for a control
        request (a `subtype` of one value) the `ControlRequest` variant of that wire name."""
        bare = name[3:] if name.startswith("py:") else name
        names = {bare, re.sub(r"^SDK", "", bare), re.sub(r"^SDK(.*?)(Message)?$", r"\1", bare),
                 re.sub(r"HookInput$", "Input", bare), re.sub(r"HookSpecificOutput$", "Output", bare)}
        found = sorted({p for n in names for p in self.api.by_name.get(n, [])})
        subtype = re.fullmatch(r"[^:]*\??: '([^']*)'", self.rows.get(name + ".subtype", ""))
        if not found and subtype and re.fullmatch(r"SDKControl\w+Request", bare):
            for enum in self.api.by_name.get("ControlRequest", []):
                found += self.variant(enum, subtype.group(1), payload=True)
        return found

    def propose(self, key):
        """A new Line for the row `key` (`py:` keys for python rows), or None."""
        found = self.same_in_typescript(key) if key.startswith("py:") else None
        return found or self.find(key)

    def same_in_typescript(self, key):
        """For a row of the Python SDK, the line of the TypeScript row of the same key (the
        Python SDK mostly spells types and fields as the TypeScript one does)."""
        line = effective(self.lines, key[3:])
        if line is None or line.prefix:
            return None
        return Line(key, line.targets, note=line.note, reason=line.reason)

    def find(self, key):
        if " = " in key:
            field, value = key.split(" = ", 1)
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
            strings = []
            for target in self.targets(field):
                for enum in self.enums_of(target):
                    found = self.variant(enum, value)
                    if len(found) == 1:
                        return Line(key, found)
                if STRINGY.match(self.type_of(target)):
                    strings.append(target)
            if strings:
                return Line(f"{field} = *", reason=f"string: {strings[0]} is a String: every value passes")
            parent, segment = split_key(field)
            if parent is not None and segment in TAGS:
                for target in self.targets(parent) or self.targets(parent + "()"):
                    for enum in self.enums_of(target):
                        found = self.variant(enum, value, payload=True)
                        if len(found) == 1:
                            return Line(key, found)
            return None
        parent, segment = split_key(key)
        if parent is None:
            found = self.declaration(key)
            return Line(key, found) if len(found) == 1 else None
        if segment.startswith("("):
            return None
        owners = self.owners(parent)
        chosen = self.targets(parent) or self.targets(parent + "()")
        tag = re.fullmatch(r"[^:]*: ('[^']*'(?: \| '[^']*')*)", self.rows.get(key, ""))
        untyped = [t for t in chosen if self.json_type(t)]
        if untyped and len(untyped) == len(chosen):
            cut = len(parent) + len(re.match(r"(\[\]|\{\*\}|\(\)=>)*", key[len(parent):]).group(0))
            return Line(key[:cut + 1] + "*", reason=f"json: kept inside {', '.join(untyped)} ({self.json_type(untyped[0])}), not typed")
        found = []
        catch_all = []
        for owner in owners:
            mine = [f for f in self.members(owner, segment) if f not in found]
            if not mine:
                catch_all += self.catch_all(owner)
            holders = [split_target(f)[0] if split_target(f)[1] else split_target(f)[0].rsplit("::", 1)[0]
                       for f in mine]
            if len(set(holders)) < len(holders):
                return None  # two items of one type fit
            found += mine
        if found:
            return Line(key, found)
        if chosen and segment in TAGS and tag:
            return Line(key, reason=f"tag: {tag.group(1)} selects {', '.join(chosen)}")
        if catch_all:
            return Line(key + "*", reason=f"json: kept in {catch_all[0]} (the fields no other member reads), not typed")
        return None

    def type_of(self, target):
        """The type of a field (of a struct or of an enum variant), a tuple variant's payload, a
        const, or a method's result; '' for anything else."""
        path, fields = split_target(target)
        kind, rest = self.api.kind(path), self.api.rest(path)
        if kind in ("field", "const"):
            return rest[2:]
        if kind and "fn" in kind and " -> " in rest:
            return rest.split(" -> ", 1)[1]
        if kind == "variant" and fields:
            found = re.search(rf"[{{,] {re.escape(fields[0])}: ([^,}}]+)", rest)
            return found.group(1).strip() if found else ""
        if kind == "variant" and rest.startswith("("):
            return rest[1:-1]
        return ""

    def enums_of(self, target):
        """The enums whose variants may be the values of `target`: the enum itself, its type,
        the types a method takes or returns, and the enums those hold in a tuple variant."""
        path, _ = split_target(target)
        kind, rest = self.api.kind(path), self.api.rest(path)
        found = [path] if kind == "enum" else self.api.types_in(rest if kind and "fn" in kind else self.type_of(target))
        found = [e for e in found if self.api.kind(e) == "enum"]
        for enum in list(found):
            for name in self.api.children.get(enum, []):
                payload = self.api.rest(f"{enum}::{name}")
                if self.api.kind(f"{enum}::{name}") == "variant" and payload.startswith("("):
                    found += [e for e in self.api.types_in(payload) if self.api.kind(e) == "enum" and e not in found]
        return found

    def json_type(self, target):
        """The type of a field or method result that holds JSON without typing it, or ''."""
        ty = self.type_of(target)
        typed = [t for t in self.api.types_in(ty) if t != "Json"]
        return ty if JSONY.search(ty) and not typed else ""

    def catch_all(self, owner):
        """The public `#[serde(flatten)]` map of a struct that keeps the fields it does not
        name, as [`owner::field`]."""
        children = self.api.children.get(owner, [])
        out = []
        for _, field in self.index.field_names(owner.rsplit("::", 1)[-1], None, children):
            path = f"{owner}::{field['name']}"
            if self.api.kind(path) == "field" and self.json_type(path):
                out.append(path)
        return out


def update(lines, rows, api, index):
    """Adds a line for each row (key -> row text) no line covers when one can be found, and
    replaces each `not typed` line whose row now has one. A row under a `not typed` or `json`
    prefix gets a line of its own when it has a Rust item (the prefix keeps covering the rest).
    Returns (lines, added, replaced, stale, unmapped)."""
    proposer = Proposer(api, index, lines, rows)
    keys = list(rows)
    added, replaced, unmapped = [], [], []
    for key in keys:
        line = effective(lines, key)
        under_prefix = line is not None and line.prefix and line.category in (NOT_TYPED, "json")
        if line is not None and line.category != NOT_TYPED and not under_prefix:
            continue
        new = proposer.propose(key)
        if new is not None and line is not None and new.category == NOT_TYPED:
            new = None  # no better than the line it has
        if new is not None and under_prefix and not new.targets and (
                line.category == "json" or new.category not in ("tag", "string", "json")):
            new = None  # a prefix covers the row already, as well
        if new is None:
            if line is None:
                unmapped.append(key)
            continue
        same = next((l for l in lines if l.pattern == new.pattern), None)
        if same is not None and same.category == NOT_TYPED:
            new.comments = same.comments
            lines[lines.index(same)] = new
            replaced.append((same, new))
        elif same is None:
            lines.append(new)
            added.append(new)
    # A `not typed` prefix whose every row now has a line of its own says nothing any more.
    for line in [l for l in lines if l.prefix and l.category == NOT_TYPED]:
        if all(effective(lines, k) is not line for k in keys if line.matches(k)):
            lines.remove(line)
            replaced.append((line, None))
    stale = [line for line in lines if not any(line.matches(k) for k in keys)]
    return lines, added, replaced, stale, unmapped

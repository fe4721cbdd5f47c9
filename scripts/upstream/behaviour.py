"""The behaviour check of `scripts/upstream-diff`: the official SDKs' protocol code, cut out of a
release, laid out for a diff, and the records of behaviour.txt each change touches.

A release's protocol code is a set of parts. A Python part is a file of the `claude_agent_sdk`
package (`_internal/query.py`), or one function of a file that is mostly types
(`_errors.py _normalize_result_errors`); its members (classes, functions, methods, module
constants) and their lines come from `ast`. A TypeScript part is a class or function cut out of
the minified `sdk.mjs`, found by an anchor on the start of its body (the minified names change
with every build and are never part of one), then laid out one statement, object property or
element a line, with the minifier's names masked as `_`, so that two builds differ only where
the code does; its members are the class's fields and methods.

`protocol.txt` lists the parts of a release (sha256 and length) and their members (lines);
`protocol-changes.txt` lists the members, `*` outside any, whose code changed from the release
before. behaviour.txt's `at` lines name these as `<py|ts> <part> <member>`.
"""

import ast
import difflib
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile

# The Python SDK's protocol code: whole files, and single functions of other files.
PY_FILES = ["_internal/query.py", "_internal/transport/subprocess_cli.py",
            "_internal/message_parser.py", "_internal/client.py", "_internal/sdk_mcp_bridge.py",
            "_internal/session_store_validation.py"]
PY_FUNCTIONS = {"_errors.py": ["_normalize_result_errors"],
                "types.py": ["_configure_can_use_tool", "_warn_if_can_use_tool_shadowed",
                             "_get_can_use_tool_shadowed_warning", "_whole_tool_allowed",
                             "_hooks_to_internal_format"],
                "__init__.py": ["_convert_tool_content"],
                "_internal/sessions.py": ["_parse_transcript_entries"]}

# The TypeScript SDK's protocol code in sdk.mjs, each part found by what its first bytes say
# about it (a class's field list, a function's destructured parameters). `export:NAME` is the
# function the module exports as NAME. Each anchor must match once.
TS_PARTS = {
    "query-class": r"class [\w$]+\{transport;isSingleUserTurn;",
    "transport-class": r"class [\w$]+\{options;process;processStdin;processStdout;",
    "query-setup": r"function [\w$]+\([\w$]+,[\w$]+\)\{let\{isSingleUserTurn:",
    "prompt-writer": r"function [\w$]+\([\w$]+,[\w$]+,[\w$]+,[\w$]+\)\{if\(typeof [\w$]+===\"string\"\)"
                     r"[\w$]+\.writePrompt\(",
    "query": "export:query",
    "initialize-deadline": r"class [\w$]+\{clock;onRunning;limitMs;",
    "sdk-mcp-transport": r"class [\w$]+\{sendMcpMessage;isClosed=",
    "child-reaper": r"class [\w$]+\{#[\w$]+=new Set;#[\w$]+=!1;#[\w$]+=\(\)=>this\.killAll\(\)",
}


class Part:
    """One part of a release: `sdk` (py or ts), `path` (a file or a cut's name), `only` (the one
    function taken from the file, or None for all of it), its text and its members' spans."""

    def __init__(self, sdk, path, only, text, spans):
        self.sdk, self.path, self.only, self.text, self.spans = sdk, path, only, text, spans

    @property
    def key(self):
        return f"{self.sdk} {self.path}" + (f" {self.only}" if self.only else "")

    def owner(self, line):
        """The innermost member holding `line`, `*` when none (the one function of a part cut
        to it)."""
        if self.only:
            return self.only
        best = None
        for name, (first, last) in self.spans.items():
            if first <= line <= last and (best is None or last - first < best[1]):
                best = (name, last - first)
        return best[0] if best else "*"


# ---------------------------------------------------------------------------------------------
# Python


def py_spans(source):
    """qualname -> (first, last) line of every class, function and method (decorators
    included), and of every module-level constant."""
    spans = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                spans[name] = (first, child.end_lineno)
                walk(child, name + ".")

    tree = ast.parse(source)
    walk(tree, "")
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name):
                spans[target.id] = (node.lineno, node.end_lineno)
    return spans


def py_parts(package):
    """The parts of a `claude_agent_sdk` package folder (those it has: an older release may
    lack some)."""
    def read(path):
        if not os.path.exists(os.path.join(package, path)):
            return None
        with open(os.path.join(package, path), encoding="utf-8") as file:
            return file.read()

    parts = []
    for path in PY_FILES:
        text = read(path)
        if text is not None:
            parts.append(Part("py", path, None, text, py_spans(text)))
    for path, names in PY_FUNCTIONS.items():
        text = read(path) or ""
        spans, lines = py_spans(text), text.split("\n")
        for name in names:
            if name not in spans:
                continue
            first, last = spans[name]
            body = "\n".join(lines[first - 1:last]) + "\n"
            parts.append(Part("py", path, name, body, {name: (1, last - first + 1)}))
    return parts


def fetch_python(version, into):
    """Downloads the Python SDK's sdist (0.4 MB; the wheel bundles the CLI, 180 MB); returns its
    package folder and the CLI version it bundles."""
    folder = os.path.join(into, f"python-sdist-{version}")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary=:all:", "--dest", folder, f"claude-agent-sdk=={version}"],
                   check=True, capture_output=True, text=True)
    sdist = next(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".tar.gz"))
    with tarfile.open(sdist) as archive:
        archive.extractall(folder, filter="data")
    package = os.path.join(folder, f"claude_agent_sdk-{version}", "src", "claude_agent_sdk")
    with open(os.path.join(package, "_cli_version.py"), encoding="utf-8") as file:
        found = re.search(r"__cli_version__\s*=\s*[\"']([^\"']+)", file.read())
    return package, found.group(1) if found else None


# ---------------------------------------------------------------------------------------------
# TypeScript: cutting a part out of the minified module

KEYWORDS_BEFORE_REGEX = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
                         "throw", "case", "do", "else", "yield", "await"}
REGEX_AFTER = "(,=:[!&|?{};+-*%<>~^"


def skip_string(s, i):
    quote = s[i]
    i += 1
    while s[i] != quote:
        i += 2 if s[i] == "\\" else 1
    return i + 1


def skip_template(s, i):
    i += 1
    while True:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1
        elif c == "$" and s[i + 1] == "{":
            i = skip_block(s, i + 1)
        else:
            i += 1


def skip_regex(s, i):
    i += 1
    in_class = False
    while True:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            i += 1
            while i < len(s) and (s[i].isalnum() or s[i] in "$_"):
                i += 1
            return i
        i += 1


def skip_block(s, i):
    """s[i] == '{': the index after its matching '}', past strings, templates, comments and
    regex literals."""
    depth, prev = 0, "{"
    while True:
        c = s[i]
        if c in "'\"":
            i, prev = skip_string(s, i), "a"
            continue
        if c == "`":
            i, prev = skip_template(s, i), "a"
            continue
        if c == "/" and s[i + 1] == "/":
            i = s.index("\n", i)
            continue
        if c == "/" and s[i + 1] == "*":
            i = s.index("*/", i) + 2
            continue
        if c == "/":
            word = re.search(r"([\w$]+)\s*$", s[max(0, i - 12):i])
            if prev in REGEX_AFTER or (word and word.group(1) in KEYWORDS_BEFORE_REGEX and prev == "a"):
                i, prev = skip_regex(s, i), "a"
                continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        if not c.isspace():
            prev = "a" if (c.isalnum() or c in "$_") else c
        i += 1


def locate(text, anchor):
    """[start, end) of the part `anchor` finds."""
    if anchor.startswith("export:"):
        exports = re.search(r"export\{([^}]*)\}\s*;?\s*$", text).group(1)
        names = dict(reversed([p.strip() for p in item.split(" as ")]) for item in exports.split(","))
        anchor = r"function " + re.escape(names[anchor[len("export:"):]]) + r"\("
    found = list(re.finditer(anchor, text))
    if len(found) != 1:
        sys.exit(f"upstream-diff: anchor {anchor!r} matched {len(found)} times in sdk.mjs: update it "
                 "in scripts/upstream/behaviour.py")
    start = found[0].start()
    body = text.index("{", start) if text.startswith("class", start) else text.index("){", start) + 1
    return start, skip_block(text, body)


# ---------------------------------------------------------------------------------------------
# TypeScript: layout and masking

JS_WORDS = set("""break case catch class const continue debugger default delete do else export
extends false finally for function if import in instanceof let new null of return static super
switch this throw true try typeof var void while with yield async await get set undefined NaN
Infinity Error Map Set Promise JSON Object Array String Number Boolean Symbol Date Math RegExp
process Buffer console""".split())
WORD = re.compile(r"#?[A-Za-z_$][\w$]*|\d[\w.]*")
PUNCT = re.compile(r"=>|\?\.|\?\?=?|\.\.\.|[=!]==?|[<>]=?|&&=?|\|\|=?|[-+*/%&|^]=?|\+\+|--|.")


def tokens(s):
    """(kind, text) of each token: str, tpl, re, id, num, punct (comments and spaces dropped)."""
    i, n, prev = 0, len(s), "("
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c in "'\"":
            j = skip_string(s, i)
            yield "str", s[i:j]
            i, prev = j, "a"
            continue
        if c == "`":
            j = skip_template(s, i)
            yield "tpl", s[i:j]
            i, prev = j, "a"
            continue
        if c == "/" and s[i + 1:i + 2] in ("/", "*"):
            j = s.find("\n", i) if s[i + 1] == "/" else s.index("*/", i) + 2
            i = n if j < 0 else j
            continue
        if c == "/" and (prev in REGEX_AFTER or prev in KEYWORDS_BEFORE_REGEX):
            j = skip_regex(s, i)
            yield "re", s[i:j]
            i, prev = j, "a"
            continue
        word = WORD.match(s, i)
        if word:
            text = word.group(0)
            yield ("num" if text[0].isdigit() else "id"), text
            i, prev = word.end(), (text if text in KEYWORDS_BEFORE_REGEX else "a")
            continue
        punct = PUNCT.match(s, i)
        yield "punct", punct.group(0)
        i, prev = punct.end(), punct.group(0)[-1]


def mask(kind, text, before, after):
    """A minifier's name (three characters or fewer, not a keyword or global, not after `.`, not
    an object key) becomes `_`, in `${...}` of template literals too."""
    if kind == "tpl":
        return re.sub(r"\$\{([^{}`]*)\}", lambda m: "${" + re.sub(
            r"(?<![\w$.#])[A-Za-z_$][\w$]{0,2}(?![\w$])",
            lambda w: w.group(0) if w.group(0) in JS_WORDS else "_", m.group(1)) + "}", text)
    if (kind == "id" and text not in JS_WORDS and not text.startswith("#") and len(text) <= 3
            and before[1] not in (".", "?.") and not (after[1] == ":" and before[1] in ("{", ","))):
        return "_"
    return text


def layout(src, version=None):
    """(text, spans) of a cut: one statement, property or element a line, indented by nesting,
    the minifier's names masked and the package's version as `<version>`; spans maps each class
    member to its (first, last) line."""
    out, stack, line, spans, open_member = [], [], [], {}, []
    toks = list(tokens(src))
    last_class = -10

    def flush():
        text = "".join(line).strip()
        if text:
            out.append("  " * sum(1 for b in stack if b[0] == "{") + text)
        line.clear()

    def close_member(last):
        if open_member:
            name, first = open_member.pop()
            spans.setdefault(name, [first, last])

    for k, (kind, text) in enumerate(toks):
        before = toks[k - 1] if k else ("punct", "")
        after = toks[k + 1] if k + 1 < len(toks) else ("punct", "")
        in_class_body = bool(stack) and stack[-1] == "{class"
        if kind == "id" and text == "class":
            last_class = k
        member = (in_class_body and kind in ("id", "punct") and after[1] in ("(", "=", ";")
                  and before[1] in ("{", "}", ";", "async", "static", "get", "set", "*", "]"))
        if member and kind == "id":
            open_member[:] = [(text, len(out) + 1)]
        elif not member:
            text = mask(kind, text, before, after)
        if version and kind == "str":
            text = text.replace(version, "<version>")
        if kind in ("id", "num") and before[0] in ("id", "num"):
            line.append(" ")
        if text in ("}", ")", "]"):
            if text == "}":
                flush()
            if stack:
                stack.pop()
            line.append(text)
            if text == "}" and after[1] not in (",", ";", ")", "]", ".", "?.", "else", "catch",
                                                 "finally", "while", "("):
                flush()
            if text == "}" and stack and stack[-1] == "{class":
                close_member(len(out) + (1 if line else 0))
            continue
        if text == "," and stack and stack[-1] in ("{", "{class"):
            line.append(text)
            flush()
            continue
        line.append(text)
        if text in ("{", "(", "["):
            is_class = (text == "{" and k - last_class <= 8
                        and not any(t[1] == "{" for t in toks[last_class:k]))
            stack.append("{class" if is_class else text)
            if text == "{":
                flush()
        elif text == ";" and (not stack or stack[-1] in ("{", "{class")):
            flush()
            if stack and stack[-1] == "{class":
                close_member(len(out))
    flush()
    # An entry can hold a template literal over several lines: spans are in lines of the text.
    starts, number = [], 1
    for entry in out:
        starts.append(number)
        number += entry.count("\n") + 1

    def physical(i, end=False):
        if not 0 < i <= len(out):
            return i
        return starts[i - 1] + (out[i - 1].count("\n") if end else 0)

    return "\n".join(out) + "\n", {n: (physical(a), physical(b, True)) for n, (a, b) in spans.items() if b}


def ts_parts(sdk_mjs):
    """The parts of a TypeScript SDK's sdk.mjs (its package.json beside it gives the version)."""
    with open(sdk_mjs, encoding="utf-8") as file:
        text = file.read()
    with open(os.path.join(os.path.dirname(sdk_mjs), "package.json"), encoding="utf-8") as file:
        version = json.load(file)["version"]
    parts = []
    for name, anchor in TS_PARTS.items():
        start, end = locate(text, anchor)
        laid, spans = layout(text[start:end], version)
        parts.append(Part("ts", name, None, laid, spans))
    return parts


# ---------------------------------------------------------------------------------------------
# behaviour.txt


def read_places(path):
    """id -> [(key of part, member, [(first, last)] or None)] of each record's `at` lines."""
    places, current = {}, None
    with open(path, encoding="utf-8") as file:
        for line in file:
            if not line.strip() or line.startswith("#"):
                continue
            if not line.startswith(" "):
                current = places.setdefault(line.strip(), [])
                continue
            field, _, value = line.strip().partition(" ")
            if field != "at":
                continue
            where, _, lines = value.partition(":")
            sdk, path, member = where.split()
            ranges = [(int(a), int(b or a)) for a, _, b in
                      (r.partition("-") for r in lines.split(",") if r.strip())] or None
            current.append((sdk, path, member, ranges))
    return places


def location(part, member):
    """How protocol.txt, protocol-changes.txt and `at` name a member of a part."""
    return f"{part.sdk} {part.path} {part.only or member}"


# ---------------------------------------------------------------------------------------------
# The difference of two releases


def hunks(old, new):
    """[(old_first, old_last, new_first, new_last)] of the changed lines, 1-based, inclusive; an
    insertion has the empty old range (k+1, k) after old line k, a deletion the empty new one."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1 + 1, i2, j1 + 1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def owners(new_part, hunk):
    """The members of the new release that a hunk changes: those of its new lines, or for a
    deletion the innermost one holding the place it was removed from."""
    _, _, n1, n2 = hunk
    if n2 >= n1:
        return sorted({new_part.owner(line) for line in range(n1, n2 + 1)})
    return [new_part.owner(n2) if new_part.owner(n2) == new_part.owner(n2 + 1) else "*"]


def touched(records, old_part, hunk, names):
    """Records with an `at` in the part whose lines (theirs, else their member's in the old
    release) meet the hunk's old lines (an insertion: the lines on both sides), or that name
    one of the hunk's members."""
    o1, o2, _, _ = hunk
    low, high = (o1, o2) if o2 >= o1 else (o2, o1)
    found = set()
    for rid, places in records.items():
        for sdk, path, member, ranges in places:
            if (sdk, path) != (old_part.sdk, old_part.path):
                continue
            if old_part.only and member != old_part.only:
                continue
            if member in names:
                found.add(rid)
                continue
            if ranges is None:
                span = old_part.spans.get(member) if member != "*" else (1, 10 ** 9)
                ranges = [span] if span else []
            if any(low <= last and high >= first for first, last in ranges):
                found.add(rid)
    return sorted(found)


def compare(old_parts, new_parts, records, show_diff=False):
    """Prints each part's changes with the records they touch; returns the changed members as
    protocol-changes.txt lines, in order."""
    old_by_key = {p.key: p for p in old_parts}
    changed, unnamed = [], []
    for new in new_parts:
        old = old_by_key.get(new.key) or Part(new.sdk, new.path, new.only, "", {})
        old_lines, new_lines = old.text.split("\n"), new.text.split("\n")
        found = hunks(old_lines, new_lines)
        print(f"{new.key}: {len(found)} change(s)" if found else f"{new.key}: no change")
        if found and show_diff:
            sys.stdout.writelines(line + "\n" for line in difflib.unified_diff(
                old_lines, new_lines, f"old {new.key}", f"new {new.key}", lineterm="", n=2))
        for hunk in found:
            names = owners(new, hunk)
            ids = touched(records, old, hunk, names)
            print(f"  old {hunk[0]}-{hunk[1]} new {hunk[2]}-{hunk[3]} in {', '.join(names)}: "
                  + (", ".join(ids) if ids else "NO RECORD"))
            for name in names:
                entry = location(new, name)
                if entry not in changed:
                    changed.append(entry)
    for gone in sorted(set(old_by_key) - {p.key for p in new_parts}):
        print(f"{gone}: gone (the records naming it must go or move)")
    for entry in changed:
        if not any(" ".join(f"{s} {p} {m}".split()) == entry for places in records.values()
                   for s, p, m, _ in places):
            unnamed.append(entry)
    print(f"\nchanged: {len(changed)} member(s)")
    for entry in changed:
        print(f"  {entry}" + ("   NO RECORD's `at` names it: read it, add or extend a record"
                              if entry in unnamed else ""))
    return changed


def manifest(parts, head):
    """protocol.txt: a line per part (its digest and length) and one per member (its lines)."""
    lines = [f"# {line}" if line else "#" for line in head]
    for part in sorted(parts, key=lambda p: p.key):
        digest = hashlib.sha256(part.text.encode("utf-8")).hexdigest()[:16]
        size = f"sha256:{digest} {part.text.count(chr(10))} lines"
        if part.only:
            lines.append(f"{part.key} {size}")
            continue
        lines.append(f"{part.key} * {size}")
        for name, (first, last) in sorted(part.spans.items(), key=lambda kv: (kv[1], kv[0])):
            lines.append(f"{part.key} {name} {first}-{last}")
    return "\n".join(lines) + "\n"

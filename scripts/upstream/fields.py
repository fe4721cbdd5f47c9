"""The field extracts of `scripts/upstream-diff`: rows, their file format, and the difference
between two extracts.

An extract (`core/tests/releases/upstream/<cli-version>/sdk-fields.txt`, `python-fields.txt`)
has a header of `#` lines, then one row per line, sorted:

    KEY: TYPE            a declaration or a field (`KEY?: TYPE` when it is optional)
    KEY = 'VALUE'        one value of the union (or tuple) of string literals the row KEY names

A key has no spaces: `Name` for a declaration, `Name.field.sub` for a field at any depth,
`[]` for an array's elements, `{*}` for the values of a map, `f(param)` for a parameter and
`f()=>` for a result of a function, `method()` for a method. A value row's key is the whole row.
"""

import ast
import re


def header(lines):
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def row_key(line):
    """The key of a row: what a map line names."""
    colon = line.find(": ")
    equals = line.find(" = ")
    if equals != -1 and (colon == -1 or equals < colon):
        return line
    return line[:colon].rstrip("?") if colon != -1 else line


def base_key(line):
    """The declaration or field a row belongs to (a value row's field)."""
    colon = line.find(": ")
    equals = line.find(" = ")
    if equals != -1 and (colon == -1 or equals < colon):
        return line[:equals]
    return row_key(line)


def quote(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def format_rows(rows):
    """Rows ({key, optional, type, literals}) as sorted lines. Rows with the same key (the
    members of a union of object literals that share a field) become one, with their types
    joined by ` | ` in the order they were found, optional when any of them is. A row whose
    type names two string literals or more (across the rows of its key: the discriminant of a
    union of object literals too) gets a row per value; a single literal is in its type."""
    merged = {}
    for row in rows:
        field = merged.setdefault(row["key"], {"optional": False, "types": [], "literals": []})
        field["optional"] = field["optional"] or row["optional"]
        if row["type"] not in field["types"]:
            field["types"].append(row["type"])
        field["literals"] += [v for v in row["literals"] if v not in field["literals"]]
    lines = []
    for key, field in merged.items():
        if " " in key:
            raise ValueError(f"a key with a space: {key!r}")
        lines.append(f"{key}{'?' if field['optional'] else ''}: {' | '.join(field['types'])}")
        if len(field["literals"]) > 1:
            lines += [f"{key} = {quote(value)}" for value in field["literals"]]
    return sorted(lines, key=lambda line: (base_key(line), row_key(line) == line, line))


def parse(text):
    """The rows of an extract: key -> row."""
    rows = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            rows[row_key(line)] = line
    return rows


def diff(old, new):
    """(added, removed, changed) rows between two parsed extracts; changed is (old, new)."""
    added = [new[k] for k in new if k not in old]
    removed = [old[k] for k in old if k not in new]
    changed = [(old[k], new[k]) for k in new if k in old and old[k] != new[k]]
    return added, removed, changed


# ---------------------------------------------------------------------------------------------
# The Python SDK's types.py


def _text(source, node):
    """A node's source on one line: `Literal["a", "b"]` however it was wrapped."""
    text = re.sub(r"\s+", " ", ast.get_source_segment(source, node) or "").strip()
    text = re.sub(r",\s*([\])}])", r"\1", text)
    return re.sub(r"([\[({]) | ([\])}])", r"\1\2", text)


def _literals(node):
    """The strings of every `Literal[...]` in a type expression."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript):
            name = sub.value.attr if isinstance(sub.value, ast.Attribute) else getattr(sub.value, "id", "")
            if name == "Literal":
                items = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
                found += [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    return found


def _optional(annotation, total, has_default):
    outer = annotation.value if isinstance(annotation, ast.Subscript) else None
    name = getattr(outer, "id", getattr(outer, "attr", ""))
    if name == "NotRequired":
        return True
    if name == "Required":
        return False
    return has_default or not total


def python_rows(source):
    """Rows of the classes (their annotated fields and public methods) and the public
    module-level names (type aliases, functional TypedDicts, constants) of a types.py."""
    tree = ast.parse(source)
    rows = []

    def field(key, annotation, optional):
        rows.append({"key": key, "optional": optional, "type": _text(source, annotation),
                     "literals": _literals(annotation)})

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = ", ".join(_text(source, b) for b in node.bases)
            keywords = ", ".join(_text(source, k) for k in node.keywords)
            decorators = "".join(f"@{_text(source, d)} " for d in node.decorator_list)
            total = not any(k.arg == "total" and isinstance(k.value, ast.Constant)
                            and k.value.value is False for k in node.keywords)
            inside = ", ".join(x for x in (bases, keywords) if x)
            rows.append({"key": node.name, "optional": False, "literals": [],
                         "type": f"{decorators}class({inside})" if inside else f"{decorators}class"})
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    field(f"{node.name}.{item.target.id}", item.annotation,
                          _optional(item.annotation, total, item.value is not None))
                elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
                    kind = "async def" if isinstance(item, ast.AsyncFunctionDef) else "def"
                    returns = f" -> {_text(source, item.returns)}" if item.returns else ""
                    rows.append({"key": f"{node.name}.{item.name}()", "optional": False, "literals": [],
                                 "type": f"{kind}({_text(source, item.args)}){returns}"})
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if not isinstance(target, ast.Name) or target.id.startswith("_") or node.value is None:
                continue
            name, value = target.id, node.value
            if (isinstance(value, ast.Call) and getattr(value.func, "id", "") == "TypedDict"
                    and len(value.args) == 2 and isinstance(value.args[1], ast.Dict)):
                total = not any(k.arg == "total" and isinstance(k.value, ast.Constant)
                                and k.value.value is False for k in value.keywords)
                keywords = "".join(f", {_text(source, k)}" for k in value.keywords)
                rows.append({"key": name, "optional": False, "literals": [],
                             "type": f"TypedDict({keywords[2:]})"})
                for k, annotation in zip(value.args[1].keys, value.args[1].values):
                    field(f"{name}.{k.value}", annotation, _optional(annotation, total, False))
                continue
            rows.append({"key": name, "optional": False, "type": f"alias = {_text(source, value)}",
                         "literals": _literals(value)})
    return rows

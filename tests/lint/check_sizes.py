#!/usr/bin/env python3
"""Size limits of production code (issue 20): no file over 600 lines and no
function over 80, except those listed with a reason in docs/ARCHITECTURE.md
("Size exceptions" table: | `path` | `function` | reason |).

Functions are found by brace matching with comments, strings and raw
strings blanked out: a `{` whose preceding statement ends in `)` (plus
qualifiers) and is not a control statement, class, namespace or
initializer opens a function body; nested bodies (lambdas) count toward
the function that holds them. Usage: check_sizes.py REPO_ROOT.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
DIRS = ["common", "planning", "proto/convert", "server", "client", "tools"]
SUFFIXES = {".cc", ".h"}
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\($")
TYPE_HEAD = re.compile(r"\b(namespace|class|struct|enum|union)\b")


def blank(source):
    """The source with comments and string/char literals replaced by spaces
    (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif source.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', source[i:]):
            delim = re.match(r'R"([^(\s]*)\(', source[i:]).group(1)
            j = source.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
        elif source[i] in "\"'" and not (source[i] == "'" and i > 0 and source[i - 1].isalnum()):
            quote, j = source[i], i + 1
            while j < n and source[j] != quote and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            j += 1
        else:
            out.append(source[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", source[i:j]))
        i = j
    return "".join(out)


def function_name(head):
    """The function's name from the text before its body, or None if the
    text does not end like a function signature."""
    head = re.sub(r"\s+", " ", head).strip()
    head = re.sub(r"(\s*(const|override|final|noexcept|mutable|&|&&|->\s*[\w:<>,\s*&]+))+$", "", head)
    head = re.sub(r"\s*:\s*[\w:]+\s*[({].*$", "", head) if ")" in head else head
    if not head.endswith(")") or TYPE_HEAD.search(head) or head.rstrip().endswith("= )"):
        return None
    depth, k = 0, len(head) - 1
    while k >= 0:
        depth += {")": 1, "(": -1}.get(head[k], 0)
        if depth == 0:
            break
        k -= 1
    before = head[:k].rstrip()
    if CONTROL.search(before + "(") or before.endswith(("=", "return", ",", "(", "[")):
        return None
    match = re.search(r"([~\w:]+|operator\S+)$", before)
    return match.group(1) if match else None


def long_functions(text):
    """(name, first line, lines) of every function body longer than the limit."""
    found, stack, line, last = [], [], 1, 0
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            inside = any(kind == "fn" for kind, _, _ in stack)
            name = None if inside else function_name(text[last:i].split("}")[-1])
            stack.append(("fn" if name else "block", line, name))
            last = i + 1
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "fn" and line - start + 1 > MAX_FUNCTION_LINES:
                    found.append((name, start, line - start + 1))
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def exceptions(architecture):
    """{(path, function)} from the Size exceptions table."""
    allowed, in_table = set(), False
    for row in architecture.splitlines():
        if row.startswith("#"):
            in_table = "Size exceptions" in row
        elif in_table and row.startswith("| `"):
            cells = [c.strip().strip("`") for c in row.strip("|").split("|")]
            allowed.add((cells[0], cells[1]))
    return allowed


def main(root):
    root = pathlib.Path(root)
    allowed = exceptions((root / "docs/ARCHITECTURE.md").read_text())
    problems = []
    for folder in DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or "_test" in path.name:
                continue
            rel = str(path.relative_to(root))
            source = path.read_text(errors="replace")
            lines = source.count("\n")
            if lines > MAX_FILE_LINES and (rel, "(file)") not in allowed:
                problems.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
            for name, start, length in long_functions(blank(source)):
                if (rel, name) not in allowed:
                    problems.append(f"{rel}:{start}: {name} is {length} lines "
                                    f"(limit {MAX_FUNCTION_LINES})")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} over the limits: split them, or list them with "
              "a reason under 'Size exceptions' in docs/ARCHITECTURE.md")
        return 1
    print("sizes ok: no file over 600 lines, no function over 80")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

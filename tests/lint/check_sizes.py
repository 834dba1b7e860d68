#!/usr/bin/env python3
"""Size limits of production code: no file over 600 lines, no function over
80 and no folder holding more than 40 files, except those listed with a
reason in docs/ARCHITECTURE.md ("Size exceptions" table:
| `path` | `function` | reason |, with `(file)` as the function for a whole
file and `(folder)` for a folder).

Functions are found by brace matching with comments, strings, raw strings
and preprocessor lines blanked out. Declarations are read at namespace and
class scope: a `{` opens a namespace, a class (whose member functions are
then read too), an initializer, or a function body. It opens a function
body when the declaration before it ends like a signature: a name
(`Run`, `Foo::Bar`, `Foo::~Foo`, `operator==`) and a parameter list,
then qualifiers (`const`, `noexcept`, `override`, attribute macros, a
trailing return type) and, for a constructor, a member-initializer list,
in which `a_{x}` is an initializer and not the body. A function's length
runs from the line of its body's `{` (of the `:` of its initializer list,
for a constructor) to the line of its `}`; nested bodies (lambdas, local
classes) count toward the function that holds them. A member defined in its
class is named as it would be outside (`Foo::Bar`). A folder's files are
those directly in it, of any kind; every folder under DIRS is checked.

Usage: check_sizes.py [--list] REPO_ROOT. The last line printed says how
many functions were measured, in how many files, and the longest; --list
first prints every function measured (path:line name lines).
"""
import bisect
import pathlib
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_FOLDER_FILES = 40
# Production code, walked recursively. proto/ holds the .proto sources;
# its C++ lives in proto/convert and proto/grpc_convert.
DIRS = ["common", "planning", "proto/convert", "proto/grpc_convert",
        "server", "client", "tools"]
SUFFIXES = {".cc", ".h"}
TYPE_HEAD = re.compile(r"^(typedef\s+)?(class|struct|union|enum)\b")
SCOPE_HEAD = re.compile(r"^((inline\s+)?namespace\b[^()]*|extern\s*)$")
ACCESS_LABEL = re.compile(r"^\s*(public|protected|private)\s*:(?!:)")
NOT_A_NAME = {"if", "for", "while", "switch", "catch", "return", "sizeof",
              "alignof", "alignas", "decltype", "static_assert", "else",
              "do", "new", "delete", "throw", "case", "default"}
# Words after a parameter list: skipped to reach it.
QUALIFIERS = re.compile(
    r"(\s*(\b(const|volatile|override|final|noexcept|mutable|try)\b|&&|&))+$")
MACRO = re.compile(r"^[A-Z][A-Z0-9_]+$")
RAW_STRING = re.compile(r'R"([^(\s]*)\(')


def blank(source):
    """The source with comments, string/char literals and preprocessor
    lines replaced by spaces (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(source)
    line_start = True
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif source[i] == "#" and line_start:  # with its continued lines
            j = i
            while True:
                end = source.find("\n", j)
                end = n if end < 0 else end
                if end == n or not source[j:end].rstrip().endswith("\\"):
                    break
                j = end + 1
            j = end
        elif source.startswith('R"', i) and RAW_STRING.match(source, i):
            delim = RAW_STRING.match(source, i).group(1)
            j = source.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
        elif source[i] in "\"'" and not (source[i] == "'" and i > 0
                                         and source[i - 1].isalnum()):
            quote, j = source[i], i + 1
            while j < n and source[j] != quote and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            j += 1
        else:
            if source[i] == "\n":
                line_start = True
            elif not source[i].isspace():
                line_start = False
            out.append(source[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", source[i:j]))
        line_start = False
        i = j
    return "".join(out)


def matching(text, i):
    """Index just past the bracket that closes the one at text[i]."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def opening(text, end):
    """Index of the bracket that opens the one closing at text[end]."""
    depth, k = 0, end
    while k >= 0:
        if text[k] in ")]}":
            depth += 1
        elif text[k] in "([{":
            depth -= 1
            if depth == 0:
                return k
        k -= 1
    return -1


def strip_templates(head):
    """head without its leading `template <...>` clauses and attributes."""
    while True:
        head = head.lstrip()
        if head.startswith("[["):
            end = head.find("]]")
            head = head[end + 2:] if end >= 0 else ""
            continue
        match = re.match(r"template\s*<", head)
        if not match:
            return head
        depth, k = 0, match.end() - 1
        while k < len(head):
            depth += {"<": 1, ">": -1}.get(head[k], 0)
            if head[k] in "([":
                k = matching(head, k) - 1
            elif depth == 0:
                break
            k += 1
        head = head[k + 1:]


def split_initializers(head):
    """(signature, initializer list or None): head split at its first `:`
    outside brackets that is not part of `::` or `?:`."""
    depth, k, n = 0, 0, len(head)
    while k < n:
        c = head[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            if head.startswith("::", k):
                k += 2
                continue
            return head[:k], head[k + 1:]
        k += 1
    return head, None


def qualified_name(before):
    """The name ending `before` (the text ahead of a parameter list), as
    `Foo::Bar` with template arguments dropped, or None."""
    at = before.rfind("operator")
    if at >= 0 and not re.match(r"\w", before[at + 8:at + 9] or " ") and \
            (at == 0 or not re.match(r"\w", before[at - 1])):
        symbol, k = re.sub(r"\s+", " ", before[at + 8:]).strip(), at
        if re.match(r"\w", symbol):  # a conversion: operator bool
            name = "operator " + symbol
        else:
            name = "operator" + symbol.replace(" ", "")
    else:
        match = re.search(r"~?\s*\b\w+$", before)
        if not match or match.group(0) in NOT_A_NAME or \
                match.group(0)[0].isdigit():
            return None
        name, k = match.group(0).replace(" ", ""), match.start()
    while True:  # qualifiers: Foo::, Foo<T>::
        rest = before[:k].rstrip()
        if not rest.endswith("::"):
            break
        rest = rest[:-2].rstrip()
        if rest.endswith(">"):
            depth, j = 0, len(rest) - 1
            while j >= 0:
                depth += {">": 1, "<": -1}.get(rest[j], 0)
                if depth == 0:
                    break
                j -= 1
            rest = rest[:j].rstrip()
        match = re.search(r"\b\w+$", rest)
        if not match:
            break
        name, k = match.group(0) + "::" + name, match.start()
    return name


def signature_name(sig):
    """The function's name if sig (text ahead of a body or initializer
    list) ends like a function signature, else None."""
    sig = sig.strip()
    arrow = [m.start() for m in re.finditer(r"->", sig)
             if not re.search(r"operator\s*$", sig[:m.start()])]
    for at in arrow:  # a trailing return type, outside brackets
        if opening(sig[:at] + ")", at) < 0:
            sig = sig[:at].rstrip()
            break
    while True:
        sig = re.sub(r"\s*=\s*0$", "", QUALIFIERS.sub("", sig)).rstrip()
        if re.search(r"\brequires\b", sig):
            sig = sig[:sig.rfind("requires")].rstrip()
            continue
        if not sig.endswith(")"):
            return None
        start = opening(sig, len(sig) - 1)
        if start <= 0:
            return None
        before = sig[:start].rstrip()
        word = re.search(r"\b\w+$", before)
        ahead = before[:word.start()].rstrip() if word else ""
        # A macro or noexcept(...) after the parameter list: skip it.
        if word and (MACRO.match(word.group(0)) or word.group(0) in
                     ("noexcept", "throw", "__attribute__")) and \
                (ahead.endswith(")") or QUALIFIERS.search(ahead)):
            sig = ahead
            continue
        if before.endswith(("=", ",", "(", "[", "]")) and \
                not re.search(r"operator\s*\S*$", before):
            return None
        if before.endswith(")") and \
                not re.search(r"\boperator\s*\(\s*\)$", before):
            # A name a macro makes: WRAP(x)(int y).
            start = opening(before, len(before) - 1)
            word = re.search(r"\b[A-Za-z_]\w*$", before[:start].rstrip())
            if not word or word.group(0) in NOT_A_NAME:
                return None
            return word.group(0) + re.sub(r"\s+", "", before[start:])
        return qualified_name(before)


class Scanner:
    """Reads the functions of one blanked source."""

    def __init__(self, text):
        self.text = text
        self.newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.functions = []  # (name, first line, lines)

    def line(self, i):
        """1-based line of offset i."""
        return bisect.bisect_left(self.newlines, i) + 1

    def scope(self, i, classes):
        """Reads declarations from i to the `}` closing this scope (or the
        end); classes names the enclosing classes. Returns the index after
        that `}`."""
        text, n, start = self.text, len(self.text), i
        while i < n:
            c = text[i]
            if c == ";":
                start = i + 1
            elif c in "([":
                i = matching(text, i)
                continue
            elif c == "}":
                return i + 1
            elif c == "{":
                i, start = self.brace(start, i, classes)
                continue
            i += 1
        return n

    def brace(self, start, i, classes):
        """Handles the `{` at i whose declaration began at start. Returns
        (where to go on, where the next declaration begins)."""
        head = self.text[start:i]
        while ACCESS_LABEL.match(head):
            head = head[ACCESS_LABEL.match(head).end():]
        offset = i - len(head.lstrip())
        head = strip_templates(re.sub(r"\s+", " ", head))
        if TYPE_HEAD.match(head) and not signature_name(head):
            if head.startswith(("enum", "typedef")):
                return matching(self.text, i), start
            words = split_initializers(head)[0]
            words = re.sub(r"<.*", "", re.sub(r"\bfinal\b", "", words))
            words = words.split()[1:]  # the name is last, after any macro
            end = self.scope(i + 1, classes + words[-1:])
            return end, end
        if SCOPE_HEAD.match(head):
            end = self.scope(i + 1, classes)
            return end, end
        sig, inits = split_initializers(head)
        name = signature_name(sig if inits is not None else head)
        if not name:
            return matching(self.text, i), start  # an initializer
        begin = self.line(i)
        if inits is not None:
            if not inits.strip() or re.search(r"[\w>]$", inits.rstrip()):
                return matching(self.text, i), start  # a_{x}: not the body
            begin = self.line(self.first_colon(offset, i))
        end = matching(self.text, i)
        if classes and not name.startswith(classes[-1] + "::"):
            name = "::".join(classes + [name])
        self.functions.append(
            (name, self.line(offset), self.line(end - 1) - begin + 1))
        return end, end

    def first_colon(self, i, stop):
        """Offset of the first `:` outside brackets, and not of `::`,
        between i and stop: where an initializer list begins."""
        text, depth = self.text, 0
        while i < stop:
            c = text[i]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == ":" and depth == 0:
                if text.startswith("::", i):
                    i += 2
                    continue
                return i
            i += 1
        return stop


def functions(text):
    """(name, first line, lines) of every function in blanked text."""
    scanner = Scanner(text)
    i = 0
    while i < len(text):  # a stray `}` at file scope ends no scope
        i = scanner.scope(i, [])
    return scanner.functions


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


def folders(root):
    """Every production folder under root, the DIRS themselves included."""
    found = []
    for folder in DIRS:
        top = root / folder
        if top.is_dir():
            found.append(top)
            found.extend(p for p in sorted(top.rglob("*")) if p.is_dir())
    return found


def plural(count, noun):
    """'1 file', '2,185 files'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def check_folder(root, folder, allowed, problems, measured):
    """Checks one folder and the C++ files directly in it; appends what is
    over the limits to problems and every function to measured. Returns
    how many files were measured."""
    rel = str(folder.relative_to(root))
    count = sum(1 for p in folder.iterdir() if p.is_file())
    if count > MAX_FOLDER_FILES and (rel, "(folder)") not in allowed:
        problems.append(f"{rel}/: {count} files (limit {MAX_FOLDER_FILES})")
    files = 0
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.suffix not in SUFFIXES or \
                "_test" in path.name:
            continue
        files += 1
        rel = str(path.relative_to(root))
        source = path.read_text(errors="replace")
        lines = source.count("\n")
        if lines > MAX_FILE_LINES and (rel, "(file)") not in allowed:
            problems.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
        for name, start, length in functions(blank(source)):
            measured.append((rel, name, start, length))
            if length > MAX_FUNCTION_LINES and (rel, name) not in allowed:
                problems.append(f"{rel}:{start}: {name} is {length} lines "
                                f"(limit {MAX_FUNCTION_LINES})")
    return files


def main(argv):
    listing = "--list" in argv
    args = [a for a in argv if a != "--list"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print("usage: check_sizes.py [--list] REPO_ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(args[0] if args else ".")
    allowed = exceptions((root / "docs/ARCHITECTURE.md").read_text())
    problems, measured, files = [], [], 0
    for folder in folders(root):
        files += check_folder(root, folder, allowed, problems, measured)
    if listing:
        for rel, name, start, length in measured:
            print(f"{rel}:{start} {name} {length}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} over the limits: split them, or list them "
              "with a reason under 'Size exceptions' in docs/ARCHITECTURE.md")
    else:
        print(f"sizes ok: no file over {MAX_FILE_LINES} lines, no function "
              f"over {MAX_FUNCTION_LINES}, no folder over {MAX_FOLDER_FILES} "
              "files")
    summary = (f"check_sizes: {plural(len(measured), 'function')} in "
               f"{plural(files, 'file')} measured")
    if measured:
        rel, name, start, length = max(measured, key=lambda m: m[3])
        summary += f"; longest {name} ({rel}:{start}), {length} lines"
    print(summary)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Probes check_sizes.py with fake repository roots: each case writes one
oversized thing (an out-of-class member function, a constructor with a
multi-line initializer list, a free function, an in-class method in a
header, a file, a folder) and expects the lint to fail naming it; the same
shapes one line or one file under the limit must pass. Without this, a
detection that quietly stops seeing a kind of function would still report
"sizes ok".

Usage: check_sizes_probe_test.py PATH/TO/check_sizes.py. Exits non-zero
when a probe is not answered as expected.
"""
import pathlib
import subprocess
import sys
import tempfile

ARCHITECTURE = """# Architecture

## 8. Size exceptions

| path | function | reason |
|---|---|---|
{rows}
## 9. Next section
"""


def body(lines, indent="  "):
    """`lines` statements, one a line."""
    return "".join(f"{indent}total += {k};\n" for k in range(lines))


def member(lines):
    """An out-of-class member definition whose body spans `lines` lines."""
    return ("namespace ldp {\n\n"
            "template <typename T>\n"
            "absl::StatusOr<std::vector<int>> Foo::Bar(\n"
            "    const std::vector<T>& values, int limit) const noexcept {\n"
            "  int total = 0;\n"
            + body(lines - 3) +
            "}\n\n}  // namespace ldp\n")


def constructor(lines):
    """A constructor whose initializer list (four lines, with brace
    initializers) and body span `lines` lines together."""
    return ("Widget::Widget(int a,\n"
            "               int b)\n"
            "    : a_(a),\n"
            "      b_{b},\n"
            "      c_{Make(a, [](int x) { return x; }),\n"
            "         b} {\n"
            + body(lines - 5) +
            "}\n")


def free_function(lines):
    """A free function whose body, a lambda among it, spans `lines` lines."""
    return ("namespace {\n\n"
            "absl::Status Plan(int x) {\n"
            "  auto add = [&](int y) {\n"
            "    return x + y;\n"
            "  };\n"
            + body(lines - 6) +
            "  return absl::OkStatus();\n"
            "}\n\n}  // namespace\n")


def in_class(lines):
    """A header whose class defines a method spanning `lines` lines."""
    return ("#ifndef LDP_THING_H_\n#define LDP_THING_H_\n\n"
            "class Thing final : public Base {\n"
            " public:\n"
            "  int Run(int x) const override {\n"
            + body(lines - 2, "    ") +
            "  }\n\n"
            " private:\n"
            "  int count_{0};\n"
            "};\n\n#endif  // LDP_THING_H_\n")


def long_file(lines):
    """A file of `lines` lines of small functions."""
    text = "".join(f"int F{k}() {{ return {k}; }}\n" for k in range(lines))
    return text


def folder(files):
    """`files` files of several kinds, directly in one folder."""
    kinds = [".cc", ".h", ".txt", ".md"]
    return {f"many/file{k}{kinds[k % 4]}": "int x;\n" for k in range(files)}


def run(lint, files, rows=""):
    """(exit code, output) of the lint over a fake root holding files."""
    with tempfile.TemporaryDirectory() as root:
        root = pathlib.Path(root)
        (root / "docs").mkdir()
        (root / "docs/ARCHITECTURE.md").write_text(
            ARCHITECTURE.format(rows=rows))
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        done = subprocess.run([sys.executable, lint, str(root)],
                              capture_output=True, text=True, check=False)
        return done.returncode, done.stdout + done.stderr


def main(lint):
    failures = []

    def expect(what, files, fails, needle, rows=""):
        code, output = run(lint, files, rows)
        if (code != 0) != fails or needle not in output:
            failures.append(f"{what}: expected "
                            f"{'a failure' if fails else 'a pass'} with "
                            f"{needle!r}, got exit {code}:\n{output}")

    over = [
        ("member", "server/store/sqlite/foo.cc", member,
         "server/store/sqlite/foo.cc:3: Foo::Bar is 81 lines"),
        ("constructor", "common/mechanisms/frequency/widget.cc", constructor,
         "common/mechanisms/frequency/widget.cc:1: Widget::Widget is 81 "
         "lines"),
        ("free function", "planning/plan.cc", free_function,
         "planning/plan.cc:3: Plan is 81 lines"),
        ("in-class method", "client/core/thing.h", in_class,
         "client/core/thing.h:6: Thing::Run is 81 lines"),
    ]
    for what, rel, make, needle in over:
        expect(f"81-line {what}", {rel: make(81)}, True, needle)
        expect(f"80-line {what}", {rel: make(80)}, False,
               "sizes ok")
    expect("file of 601 lines", {"tools/loadtest/big.cc": long_file(601)},
           True, "tools/loadtest/big.cc: 601 lines")
    expect("file of 600 lines", {"tools/loadtest/big.cc": long_file(600)},
           False, "sizes ok")
    expect("folder of 41 files",
           {f"proto/convert/{k}": v for k, v in folder(41).items()}, True,
           "proto/convert/many/: 41 files")
    expect("folder of 40 files",
           {f"proto/convert/{k}": v for k, v in folder(40).items()}, False,
           "sizes ok")
    expect("listed exception", {"planning/plan.cc": free_function(81)},
           False, "sizes ok",
           rows="| `planning/plan.cc` | `Plan` | reads better whole |\n")
    expect("summary", {"planning/plan.cc": free_function(80),
                       "client/core/thing.h": in_class(20)}, False,
           "check_sizes: 2 functions in 2 files measured; longest Plan "
           "(planning/plan.cc:3), 80 lines")
    for failure in failures:
        print(failure)
    print(f"size lint probe: {len(failures)} probe(s) failed" if failures
          else "size lint probe: all probes answered as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_sizes_probe_test.py PATH/TO/check_sizes.py",
              file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))

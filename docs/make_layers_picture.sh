#!/usr/bin/env bash
# Draws docs/layers.svg: the project's own libraries and programs and what
# each links, from CMake's own dependency graph.
#
#   bash docs/make_layers_picture.sh
#
# It configures a throwaway build directory (configure only, no compile;
# LDP_LAYERS_BUILD_DIR, default /tmp/ldp-layers-graphviz) with
# --graphviz, keeps the ldp_* libraries and the ldp* programs (no external
# libraries, aliases, tests or benchmarks), drops every edge another path
# already implies (transitive reduction: an arrow means "links directly,
# and not only through another arrow"), groups the nodes by top folder and
# renders with Graphviz's dot, lower layers at the bottom. Installs
# graphviz if dot is missing. Safe to run again: it overwrites its outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${LDP_LAYERS_BUILD_DIR:-/tmp/ldp-layers-graphviz}"

if ! command -v dot >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get install -y graphviz >/dev/null ||
    { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y graphviz >/dev/null; }
fi

mkdir -p "$BUILD_DIR"
rm -f "$BUILD_DIR"/deps.dot*
cmake -S . -B "$BUILD_DIR" -G Ninja -DLDP_BUILD_TESTS=OFF -DLDP_BUILD_BENCH=OFF \
  --graphviz="$BUILD_DIR/deps.dot" >"$BUILD_DIR/configure.log" 2>&1 ||
  { cat "$BUILD_DIR/configure.log" >&2; exit 1; }

python3 - "$BUILD_DIR/deps.dot" >"$BUILD_DIR/layers.dot" <<'PY'
import os, re, sys
from collections import defaultdict

dot_text = open(sys.argv[1], encoding="utf-8").read()
labels, shapes = {}, {}
for node, label, shape in re.findall(
        r'"(node\d+)" \[ label = "([^"]*)", shape = (\w+) \]', dot_text):
    labels[node] = label.split("\\n")[0]  # "ldp_base\n(ldp::base)": the name
    shapes[node] = shape
edges = set()
for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', dot_text):
    edges.add((labels[a], labels[b]))

# Where each target is declared: the folder of its add_library/add_executable.
folder = {}
for root, dirs, files in os.walk("."):
    dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("tests", "bench", "build")]
    if "CMakeLists.txt" in files:
        text = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
        for name in re.findall(r"add_(?:library|executable)\(\s*([A-Za-z0-9_.-]+)[\s)]", text):
            folder.setdefault(name, os.path.normpath(root).lstrip("./") or ".")

def ours(name):
    return (name.startswith("ldp_") or re.fullmatch(r"ldp(-[a-z]+)?", name)) \
        and "::" not in name and name in folder
targets = sorted({n for n in labels.values() if ours(n)})
deps = defaultdict(set)
for a, b in edges:
    if a in targets and b in targets and a != b:
        deps[a].add(b)

# Transitive reduction: keep a -> b only if b is not reachable from a
# through another direct dependency.
def reach(start):
    seen, stack = set(), list(deps[start])
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(deps[n])
    return seen
reduced = {a: {b for b in deps[a]
               if not any(b in reach(c) for c in deps[a] if c != b)}
           for a in targets}

colours = {"common": "#e8f1fb", "proto": "#fdf2e3", "planning": "#eef7e8",
           "client": "#f6ebf7", "server": "#fbe9e9", "tools": "#f2f2f2"}
shape_of = {name: shapes[n] for n, name in labels.items()}
out = ['digraph layers {',
       '  rankdir=TB; newrank=true; compound=true; nodesep=0.25; ranksep=0.45;',
       '  graph [fontname="Helvetica", fontsize=13, labeljust=l];',
       '  node [fontname="Helvetica", fontsize=11, shape=box, style="rounded,filled", fillcolor=white];',
       '  edge [color="#555555", arrowsize=0.6];',
       '  label="An arrow points from a target to one it links directly (arrows implied by others are left out).\\l'
       'Ellipses: programs; bold box: a shared library. Drawn by docs/make_layers_picture.sh from CMake\'s --graphviz output.\\l";',
       '  labelloc=b;']
by_top = defaultdict(list)
for t in targets:
    by_top[folder[t].split("/")[0]].append(t)
for top in sorted(by_top):
    out.append(f'  subgraph "cluster_{top}" {{')
    out.append(f'    label="{top}/"; style="filled,rounded"; color="#999999"; '
               f'fillcolor="{colours.get(top, "#ffffff")}";')
    for t in sorted(by_top[top]):
        program = shape_of.get(t) == "egg"
        shared = shape_of.get(t) == "doubleoctagon"
        name = "libldp_agent.so" if t == "ldp_agent_shared" else t
        attrs = f'label="{name}\\n{folder[t]}/"'
        if program:
            attrs += ', shape=ellipse, style="filled,bold", fillcolor="#fff7c2"'
        elif shared:
            attrs += ', style="rounded,filled,bold"'
        out.append(f'    "{t}" [{attrs}];')
    out.append('  }')
for a in targets:
    for b in sorted(reduced[a]):
        out.append(f'  "{a}" -> "{b}";')
out.append('}')
print("\n".join(out))
PY

dot -Tsvg "$BUILD_DIR/layers.dot" -o docs/layers.svg
dot -Tpng "$BUILD_DIR/layers.dot" -o "$BUILD_DIR/layers.png"  # to look at, not committed
echo "wrote docs/layers.svg ($(grep -c -- '->' "$BUILD_DIR/layers.dot") arrows; a PNG copy in $BUILD_DIR/layers.png)"

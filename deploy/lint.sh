#!/usr/bin/env bash
# Static checks of everything under deploy/, without a cluster, a Docker
# engine or the network (after the first run):
#   1. yamllint over every YAML file (deploy/.yamllint);
#   2. Kubernetes manifests against the Kubernetes OpenAPI schemas, unknown
#      fields and cross-references (deploy/lint/validate-k8s.mjs), and
#      `kubectl kustomize` on them when kubectl is installed;
#   3. compose.yaml against the Compose Specification schema, plus dclint
#      and references (deploy/lint/validate-compose.mjs);
#   4. the Dockerfile: instruction validator and image conventions
#      (deploy/lint/validate-dockerfile.mjs; hadolint is not packaged for
#      Debian), every apt package name against the Debian archive, and, when
#      the programs are built, their shared libraries against the runtime
#      stage's packages;
#   5. the systemd units with systemd-analyze verify;
#   6. the PgBouncer example by starting pgbouncer on it for a moment;
#   7. the Patroni example with patroni --validate-config;
#   8. the flags used anywhere against the flags the sources define, and
#      OPERATIONS.md's flag tables (deploy/lint/check-flags.mjs);
#   9. every C and C++ file as clang-format writes it
#      (tests/lint/check_format.sh).
# Installs what it needs on the first run: yamllint, pgbouncer and patroni
# from Debian (only when missing), the npm packages pinned in
# deploy/lint/package-lock.json (npm ci, only when node_modules is absent).
# Exits non-zero on any finding.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT="$PWD"
DEPLOY="$ROOT/deploy"
LINT="$DEPLOY/lint"
BUILD="${LDP_BUILD_DIR:-build}"

failed=()
steps=0
step() {  # step NAME COMMAND...: runs one check, records a failure
  local name="$1"
  shift
  steps=$((steps + 1))
  echo "== $name"
  if "$@"; then
    echo "-- $name: ok"
  else
    echo "-- $name: FAILED"
    failed+=("$name")
  fi
}

# ---------------------------------------------------------------- tools
need_apt=()
for pkg in yamllint pgbouncer patroni; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "lint: installing ${need_apt[*]}"
  # Package installs must not start services (pgbouncer's would listen on
  # 6432): a policy-rc.d that denies every start, only for this install.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 0755 "$policy"
  fi
  $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  status=$?
  if [ -n "$policy" ]; then $SUDO rm -f "$policy"; fi
  if [ $status -ne 0 ]; then echo "lint: apt-get install failed" >&2; exit 1; fi
fi
for tool in node npm systemd-analyze; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is required" >&2; exit 1; }
done
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "lint: Node.js >= 20.19 is required (have $(node --version))" >&2
  exit 1
fi
if [ ! -d "$LINT/node_modules" ]; then
  (cd "$LINT" && npm ci --no-audit --no-fund --loglevel=error) || { echo "lint: npm ci failed" >&2; exit 1; }
fi
# apt-cache needs the package lists (step 4); fetch them once if absent.
if ! apt-cache show --no-all-versions bash >/dev/null 2>&1; then
  apt-get update -qq || true
fi

# ---------------------------------------------------------------- checks
yaml_files() {
  find "$DEPLOY" \( -path "$LINT/node_modules" -o -path "$DEPLOY/secrets" \) -prune -o \
    -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.yaml.example' -o -name '*.yml.example' \) -print | sort
}
check_yamllint() {
  local files
  mapfile -t files < <(yaml_files)
  echo "${#files[@]} files"
  yamllint --strict -c "$DEPLOY/.yamllint" -f parsable "${files[@]}"
}

check_k8s() {
  node "$LINT/validate-k8s.mjs" "$DEPLOY/k8s" || return 1
  # What `kubectl apply -k` would send: kustomize's own reading of
  # kustomization.yaml (offline; kubectl embeds kustomize).
  if command -v kubectl >/dev/null; then
    local out
    out=$(kubectl kustomize "$DEPLOY/k8s" 2>&1 >/dev/null) || { echo "$out"; return 1; }
    echo "k8s: kubectl kustomize builds deploy/k8s"
  else
    echo "k8s: kubectl not installed: kustomize build skipped"
  fi
}

check_compose() {
  node "$LINT/validate-compose.mjs" "$DEPLOY/compose.yaml" || return 1
  (cd "$DEPLOY" && node "$LINT/node_modules/dclint/bin/dclint.cjs" compose.yaml \
     -c "$LINT/dclint.json" --color=false --max-warnings 0)
}

check_dockerfile() {
  local ok=0 line stage packages pkg
  node "$LINT/validate-dockerfile.mjs" "$DEPLOY/Dockerfile" || ok=1
  # Every package name must exist in the Debian archive apt knows.
  local runtime=()
  while read -r line; do
    stage="${line%%:*}"; stage="${stage#stage }"
    read -r -a packages <<< "${line#*: }"
    for pkg in "${packages[@]}"; do
      if ! apt-cache show --no-all-versions "$pkg" >/dev/null 2>&1; then
        echo "dockerfile: stage $stage: no Debian package $pkg"; ok=1
      fi
    done
    [ "$stage" = runtime ] && runtime=("${packages[@]}")
  done < <(node "$LINT/validate-dockerfile.mjs" "$DEPLOY/Dockerfile" --packages)
  if [ ${#runtime[@]} -eq 0 ]; then echo "dockerfile: no runtime stage packages found"; return 1; fi
  # The runtime stage must provide every shared library of the built
  # programs: each library's package must be a runtime package or one of
  # their dependencies (or in debian:bookworm-slim already).
  local bins=() b
  for b in server/ldp-server tools/ldp-loadtest tools/ldp client/ldp-agent server/ldp-shuffler; do
    [ -x "$BUILD/$b" ] && bins+=("$BUILD/$b")
  done
  if [ ${#bins[@]} -eq 0 ]; then
    echo "dockerfile: no programs under $BUILD/: shared-library check skipped"
    return $ok
  fi
  local closure
  closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
              --no-breaks --no-replaces --no-enhances "${runtime[@]}" 2>/dev/null |
            grep -v '^ ' | sed 's/:.*//' | sort -u)
  local base="libc6 libgcc-s1 libstdc++6 zlib1g libzstd1 liblzma5 libbz2-1.0"
  local needed
  needed=$(for b in "${bins[@]}"; do ldd "$b"; done | awk '/=> \//{print $3}' | sort -u |
           xargs -r readlink -f | xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u)
  for pkg in $needed; do
    if ! grep -qx "$pkg" <<< "$closure" && [[ " $base " != *" $pkg "* ]]; then
      echo "dockerfile: the runtime stage lacks $pkg (a library of ${bins[*]##*/})"; ok=1
    fi
  done
  echo "dockerfile: $(wc -w <<< "$needed") library packages of ${#bins[@]} programs covered by the runtime stage"
  return $ok
}

check_systemd() {
  # verify needs ExecStart's program to exist: check a copy of each unit
  # whose ExecStart names the built program (or a stand-in), and treat
  # every message (unknown keys, bad values) as a finding.
  local prog tmp out status var ok=0
  for prog in ldp-server ldp-shuffler; do
    tmp=$(mktemp -d)
    if [ -x "$BUILD/server/$prog" ]; then
      cp "$BUILD/server/$prog" "$tmp/$prog"
    else
      printf '#!/bin/sh\nexit 0\n' > "$tmp/$prog"; chmod 0755 "$tmp/$prog"
    fi
    sed "s|^ExecStart=/usr/local/bin/$prog|ExecStart=$tmp/$prog|" \
      "$DEPLOY/systemd/$prog.service" > "$tmp/$prog.service"
    if ! grep -q "^ExecStart=$tmp/$prog " "$tmp/$prog.service"; then
      echo "systemd: $prog.service: ExecStart is not /usr/local/bin/$prog ..."; rm -rf "$tmp"; ok=1; continue
    fi
    out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$tmp/$prog.service" 2>&1)
    status=$?
    rm -rf "$tmp"
    if [ $status -ne 0 ] || [ -n "$out" ]; then echo "$out"; ok=1; continue; fi
    # The example environment file must define what ExecStart uses.
    var=$(tr 'a-z-' 'A-Z_' <<< "$prog")_ARGS
    if ! grep -q "^$var=" "$DEPLOY/systemd/$prog.env.example"; then
      echo "systemd: $prog.env.example does not set $var"; ok=1; continue
    fi
    echo "systemd: $prog.service verified"
  done
  return $ok
}

check_pgbouncer() {
  # Start pgbouncer (as nobody: it refuses root) on a copy of the example
  # with a stand-in auth file, a free loopback port and a private socket
  # directory; it must load the file cleanly and come up.
  local tmp port out pid
  tmp=$(mktemp -d)
  port=$(( 40000 + RANDOM % 20000 ))
  printf '"ldp" "stand-in"\n' > "$tmp/userlist.txt"
  sed -e "s|^auth_file = .*|auth_file = $tmp/userlist.txt|" \
      -e "s|^unix_socket_dir = .*|unix_socket_dir = $tmp|" \
      -e "s|^listen_addr = .*|listen_addr = 127.0.0.1|" \
      -e "s|^listen_port = .*|listen_port = $port|" \
      "$DEPLOY/postgres/pgbouncer.ini.example" > "$tmp/pgbouncer.ini"
  chmod 0755 "$tmp"; chmod 0644 "$tmp"/*
  local run=(pgbouncer "$tmp/pgbouncer.ini")
  if [ "$(id -u)" -eq 0 ]; then
    chown nobody "$tmp"   # its Unix socket goes there
    run=(setpriv --reuid=nobody --regid=nogroup --clear-groups "${run[@]}")
  fi
  "${run[@]}" > "$tmp/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 30); do
    grep -q "process up" "$tmp/log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  out=$(cat "$tmp/log")
  rm -rf "$tmp"
  if ! grep -q "process up" <<< "$out" || grep -Eq " (WARNING|ERROR|FATAL) " <<< "$out"; then
    echo "$out"; return 1
  fi
  grep "process up" <<< "$out" | sed 's/^.* LOG /pgbouncer: /'
}

check_patroni() { patroni --validate-config "$DEPLOY/postgres/patroni.yml.example"; }

check_flags() { node "$LINT/check-flags.mjs" "$ROOT"; }

step "yamllint" check_yamllint
step "kubernetes manifests" check_k8s
step "compose file" check_compose
step "Dockerfile" check_dockerfile
step "systemd units" check_systemd
step "pgbouncer config" check_pgbouncer
step "patroni config" check_patroni
step "flags" check_flags
step "C and C++ format" bash "$ROOT/tests/lint/check_format.sh" "$ROOT"

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "deploy lint: ${#failed[@]} of $steps checks failed: ${failed[*]}"
  exit 1
fi
echo "deploy lint: all $steps checks passed"

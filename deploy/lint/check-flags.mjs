// Every ldp-server / ldp-loadtest flag that deploy/ uses must exist in the
// sources (ABSL_FLAG definitions), and OPERATIONS.md's configuration table
// must list exactly ldp-server's flags: a renamed or new flag fails here
// until deploy/ follows.
//
// Usage: node check-flags.mjs REPO_ROOT   (exit 1 on any finding)
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const root = process.argv[2];
if (!root) {
  console.error('usage: check-flags.mjs REPO_ROOT');
  process.exit(2);
}
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const findings = [];
const finding = (m) => findings.push(m);

function definedFlags(files) {
  const flags = new Set();
  for (const f of files) {
    for (const m of read(f).matchAll(/ABSL_FLAG\(\s*[^,]+,\s*([a-z0-9_]+)\s*,/g)) flags.add(m[1]);
  }
  return flags;
}
function sources(dir, exclude) {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
    const rel = path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name));
    if (entry.isFile() && rel.endsWith('.cc') && !exclude.includes(rel)) out.push(rel);
  }
  return out;
}
// absl's own: --flagfile, --fromenv, --tryfromenv, --undefok.
const absl = ['flagfile', 'fromenv', 'tryfromenv', 'undefok'];
const serverOwn = definedFlags(sources('server', []));
const server = new Set([...serverOwn, ...absl]);
const loadtest = new Set([...definedFlags(['tools/loadtest/loadtest_main.cc', 'client/tls_flags/tls_flags.cc']), ...absl]);
if (!serverOwn.has('db')) finding('server/: no --db flag found (parsing the sources failed?)');

const flagsIn = (text) => [...text.matchAll(/(?:^|[\s"'[,])--([a-z][a-z0-9_]*)/g)].map((m) => m[1]);
function check(where, text, known, program) {
  for (const flag of flagsIn(text)) {
    if (!known.has(flag)) finding(`${where}: --${flag} is not a flag of ${program}`);
  }
}

// k8s: the flag file and the container args.
const configmap = YAML.parse(read('deploy/k8s/configmap.yaml'));
check('deploy/k8s/configmap.yaml', configmap.data['ldp-server.flags'], server, 'ldp-server');
const deployment = YAML.parse(read('deploy/k8s/deployment.yaml'));
for (const c of deployment.spec.template.spec.containers) {
  check('deploy/k8s/deployment.yaml', (c.args ?? []).join(' '), server, 'ldp-server');
}

// compose: the ldp-server and ldp-loadtest command lines.
const compose = YAML.parse(read('deploy/compose.yaml'), { merge: true });
for (const [name, s] of Object.entries(compose.services)) {
  const script = [].concat(s.command ?? []).join('\n');
  for (const m of script.matchAll(/\bexec ldp-server((?:[^\n]*\\\n)*[^\n]*)/g)) {
    check(`deploy/compose.yaml ${name}`, m[1], server, 'ldp-server');
  }
  for (const m of script.matchAll(/\bldp-loadtest((?:[^\n]*\\\n)*[^\n]*)/g)) {
    check(`deploy/compose.yaml ${name}`, m[1], loadtest, 'ldp-loadtest');
  }
}

// Dockerfile: the default command.
const cmd = /^CMD\s+(\[[^\]]*\])/m.exec(read('deploy/Dockerfile').replace(/\\\n/g, ' '));
if (!cmd) finding('deploy/Dockerfile: no CMD');
else check('deploy/Dockerfile CMD', JSON.parse(cmd[1]).join(' '), server, 'ldp-server');

// systemd: every LDP_SERVER_ARGS line, commented examples included.
for (const line of read('deploy/systemd/ldp-server.env.example').split('\n')) {
  if (/LDP_SERVER_ARGS=/.test(line)) check('deploy/systemd/ldp-server.env.example', line, server, 'ldp-server');
}

// OPERATIONS.md: the table rows "| `--flag` | default | ... |".
const documented = new Set([...read('deploy/OPERATIONS.md').matchAll(/^\|\s*`--([a-z0-9_]+)`/gm)].map((m) => m[1]));
for (const flag of serverOwn) {
  if (!documented.has(flag)) finding(`deploy/OPERATIONS.md: ldp-server --${flag} is not in the configuration table`);
}
for (const flag of documented) {
  if (!server.has(flag)) finding(`deploy/OPERATIONS.md: the table lists --${flag}, which ldp-server does not have`);
}

for (const f of findings) console.log(`flags: ${f}`);
console.log(`flags: ldp-server has ${serverOwn.size} flags, ldp-loadtest ${loadtest.size - absl.length}; ${findings.length} findings`);
process.exit(findings.length ? 1 : 0);

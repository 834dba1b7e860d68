// Every ldp-server / ldp-shuffler / ldp-loadtest flag that deploy/ uses
// must exist in the sources (ABSL_FLAG definitions), and OPERATIONS.md's
// tables must list exactly ldp-server's flags (the configuration reference)
// and ldp-shuffler's (in "Running a shuffler"): a renamed or new flag fails
// here until deploy/ follows.
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
function sources(dir, exclude) {  // exclude: path prefixes
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
    const rel = path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name));
    if (entry.isFile() && rel.endsWith('.cc') && !exclude.some((e) => rel.startsWith(e))) out.push(rel);
  }
  return out;
}
// absl's own: --flagfile, --fromenv, --tryfromenv, --undefok.
const absl = ['flagfile', 'fromenv', 'tryfromenv', 'undefok'];
// server/shuffler/ is another program: ldp-shuffler.
const serverOwn = definedFlags(sources('server', ['server/shuffler/']));
const server = new Set([...serverOwn, ...absl]);
const shufflerOwn = definedFlags(sources('server/shuffler', []));
const shuffler = new Set([...shufflerOwn, ...absl]);
const loadtest = new Set([...definedFlags(['tools/loadtest/loadtest_main.cc', 'client/tls_flags/tls_flags.cc']), ...absl]);
if (!serverOwn.has('db')) finding('server/: no --db flag found (parsing the sources failed?)');
if (!shufflerOwn.has('data_dir')) finding('server/shuffler/: no --data_dir flag found (parsing the sources failed?)');

const flagsIn = (text) => [...text.matchAll(/(?:^|[\s"'[,])--([a-z][a-z0-9_]*)/g)].map((m) => m[1]);
function check(where, text, known, program) {
  for (const flag of flagsIn(text)) {
    if (!known.has(flag)) finding(`${where}: --${flag} is not a flag of ${program}`);
  }
}

// k8s: the flag files (ConfigMap keys PROGRAM.flags) and the args of the
// image's containers (ldp-server, its entrypoint, unless command says
// otherwise).
const programs = { 'ldp-server': server, 'ldp-shuffler': shuffler };
let flagFiles = 0;
for (const file of fs.readdirSync(path.join(root, 'deploy/k8s')).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const where = `deploy/k8s/${file}`;
  for (const obj of YAML.parseAllDocuments(read(where)).map((d) => d.toJS())) {
    if (obj?.kind === 'ConfigMap') {
      for (const [key, text] of Object.entries(obj.data ?? {})) {
        const program = /^(.+)\.flags$/.exec(key)?.[1];
        if (!program) continue;
        if (!programs[program]) { finding(`${where}: flag file ${key} of an unknown program`); continue; }
        check(where, text, programs[program], program);
        flagFiles++;
      }
    }
    for (const c of obj?.spec?.template?.spec?.containers ?? []) {
      if (!/^ldp-aggregator[:@]/.test(c.image ?? '')) continue;
      const program = c.command?.[0] ?? 'ldp-server';
      if (!programs[program]) { finding(`${where}: container ${c.name} runs ${program}, unknown here`); continue; }
      check(where, (c.args ?? []).join(' '), programs[program], program);
    }
  }
}
if (flagFiles < 2) finding('deploy/k8s: expected the ldp-server.flags and ldp-shuffler.flags ConfigMap keys');

// compose: the ldp-server, ldp-shuffler and ldp-loadtest command lines.
const compose = YAML.parse(read('deploy/compose.yaml'), { merge: true });
for (const [name, s] of Object.entries(compose.services)) {
  const script = [].concat(s.command ?? []).join('\n');
  for (const m of script.matchAll(/\bexec ldp-server((?:[^\n]*\\\n)*[^\n]*)/g)) {
    check(`deploy/compose.yaml ${name}`, m[1], server, 'ldp-server');
  }
  for (const m of script.matchAll(/\bexec ldp-shuffler((?:[^\n]*\\\n)*[^\n]*)/g)) {
    check(`deploy/compose.yaml ${name}`, m[1], shuffler, 'ldp-shuffler');
  }
  for (const m of script.matchAll(/\bldp-loadtest((?:[^\n]*\\\n)*[^\n]*)/g)) {
    check(`deploy/compose.yaml ${name}`, m[1], loadtest, 'ldp-loadtest');
  }
}

// Dockerfile: the default command.
const cmd = /^CMD\s+(\[[^\]]*\])/m.exec(read('deploy/Dockerfile').replace(/\\\n/g, ' '));
if (!cmd) finding('deploy/Dockerfile: no CMD');
else check('deploy/Dockerfile CMD', JSON.parse(cmd[1]).join(' '), server, 'ldp-server');

// systemd: every LDP_SERVER_ARGS / LDP_SHUFFLER_ARGS line, commented
// examples included.
for (const line of read('deploy/systemd/ldp-server.env.example').split('\n')) {
  if (/LDP_SERVER_ARGS=/.test(line)) check('deploy/systemd/ldp-server.env.example', line, server, 'ldp-server');
}
for (const line of read('deploy/systemd/ldp-shuffler.env.example').split('\n')) {
  if (/LDP_SHUFFLER_ARGS=/.test(line)) check('deploy/systemd/ldp-shuffler.env.example', line, shuffler, 'ldp-shuffler');
}

// OPERATIONS.md: the table rows "| `--flag` | default | ... |"; those of
// the section "## Running a shuffler" are ldp-shuffler's, the rest
// ldp-server's.
const operations = read('deploy/OPERATIONS.md');
const shufflerSection = /^## Running a shuffler\n[\s\S]*?(?=^## |(?![\s\S]))/m.exec(operations)?.[0] ?? '';
if (!shufflerSection) finding('deploy/OPERATIONS.md: no section "## Running a shuffler"');
const rows = (text) => new Set([...text.matchAll(/^\|\s*`--([a-z0-9_]+)`/gm)].map((m) => m[1]));
function checkTable(documented, own, known, program, table) {
  for (const flag of own) {
    if (!documented.has(flag)) finding(`deploy/OPERATIONS.md: ${program} --${flag} is not in ${table}`);
  }
  for (const flag of documented) {
    if (!known.has(flag)) finding(`deploy/OPERATIONS.md: ${table} lists --${flag}, which ${program} does not have`);
  }
}
checkTable(rows(operations.replace(shufflerSection, '')), serverOwn, server, 'ldp-server', 'the configuration reference');
checkTable(rows(shufflerSection), shufflerOwn, shuffler, 'ldp-shuffler', 'the table of "Running a shuffler"');

for (const f of findings) console.log(`flags: ${f}`);
console.log(`flags: ldp-server has ${serverOwn.size} flags, ldp-shuffler ${shufflerOwn.size}, ` +
  `ldp-loadtest ${loadtest.size - absl.length}; ${findings.length} findings`);
process.exit(findings.length ? 1 : 0);

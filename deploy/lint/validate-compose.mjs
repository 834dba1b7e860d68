// Validates deploy/compose.yaml offline against the Compose Specification
// JSON schema (the copy bundled in the dclint npm package), then checks
// what the schema cannot: references between services, secrets and
// volumes, files the compose file mounts or builds from, image tags, and
// the prometheus scrape targets.
//
// Usage: node validate-compose.mjs COMPOSE_FILE   (exit 1 on any finding)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import YAML from 'yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const file = process.argv[2];
if (!file) {
  console.error('usage: validate-compose.mjs COMPOSE_FILE');
  process.exit(2);
}
const base = path.dirname(path.resolve(file));
const findings = [];
const finding = (message) => findings.push(message);

const doc = YAML.parseDocument(fs.readFileSync(file, 'utf8'), { merge: true });
for (const e of doc.errors) finding(`YAML: ${e.message}`);
const compose = doc.toJS({ maxAliasCount: 100 }) ?? {};

// ------------------------------------------------------------- the schema
const require = createRequire(import.meta.url);
const schemaPath = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
delete schema.$schema; // draft-07, Ajv's default
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);
if (!validate(compose)) {
  for (const e of validate.errors) {
    finding(`schema: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}

// ------------------------------------------------------------ references
const services = compose.services ?? {};
const secrets = compose.secrets ?? {};
const volumes = compose.volumes ?? {};
const names = (list) => (Array.isArray(list) ? list.map((x) => (typeof x === 'string' ? x : x.source)) : []);

for (const [name, s] of Object.entries(services)) {
  const where = `service ${name}`;
  const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
  for (const d of deps) if (!services[d]) finding(`${where}: depends_on unknown service ${d}`);
  for (const [d, spec] of Object.entries(Array.isArray(s.depends_on) ? {} : s.depends_on ?? {})) {
    if (spec.condition === 'service_healthy' && services[d] && !services[d].healthcheck) {
      finding(`${where}: waits for ${d} to be healthy, but ${d} has no healthcheck`);
    }
  }
  for (const sec of names(s.secrets)) if (!secrets[sec]) finding(`${where}: secret ${sec} is not defined`);
  for (const v of s.volumes ?? []) {
    const spec = typeof v === 'string' ? v : `${v.source}:${v.target}`;
    const source = spec.split(':')[0];
    if (source.startsWith('.') || source.startsWith('/')) {
      if (!fs.existsSync(path.resolve(base, source))) finding(`${where}: bind mount source ${source} does not exist`);
    } else if (!volumes.hasOwnProperty(source)) {
      finding(`${where}: named volume ${source} is not defined`);
    }
  }
  if (s.build) {
    const context = path.resolve(base, typeof s.build === 'string' ? s.build : s.build.context ?? '.');
    const dockerfile = path.resolve(context, s.build.dockerfile ?? 'Dockerfile');
    if (!fs.existsSync(dockerfile)) finding(`${where}: Dockerfile ${dockerfile} does not exist`);
  }
  if (!s.image && !s.build) finding(`${where}: neither image nor build`);
  if (s.image) {
    const tag = /^[^@]+:([^/:@]+)$/.exec(s.image)?.[1];
    if (!tag && !s.image.includes('@sha256:')) finding(`${where}: image ${s.image} has no tag`);
    if (tag === 'latest') finding(`${where}: image ${s.image} uses the latest tag`);
    // An image no service builds would be pulled: it must not be ours.
    const built = Object.values(services).some((o) => o.build && o.image === s.image);
    if (!s.build && s.image.startsWith('ldp-') && !built) finding(`${where}: image ${s.image} is built by no service`);
  }
}
for (const [name, sec] of Object.entries(secrets)) {
  if (sec.file && !/^\.\/secrets\//.test(sec.file)) {
    finding(`secret ${name}: keep secret files under ./secrets/ (git-ignored), not ${sec.file}`);
  }
  if (sec.environment === undefined && sec.file === undefined && !sec.external) {
    finding(`secret ${name}: needs file, environment or external`);
  }
}

// Prometheus scrape targets must be compose services with that port.
const prometheus = Object.values(services).find((s) => /prometheus/.test(s.image ?? ''));
if (prometheus) {
  for (const v of prometheus.volumes ?? []) {
    const [source, target] = (typeof v === 'string' ? v : `${v.source}:${v.target}`).split(':');
    if (!target?.endsWith('prometheus.yml')) continue;
    const config = YAML.parse(fs.readFileSync(path.resolve(base, source), 'utf8'));
    for (const job of config.scrape_configs ?? []) {
      for (const sc of job.static_configs ?? []) {
        for (const t of sc.targets ?? []) {
          const [host, port] = t.split(':');
          const svc = services[host];
          if (!svc) finding(`prometheus job ${job.job_name}: target ${t} is no compose service`);
          else if (!JSON.stringify(svc.command ?? '').includes(`:${port}`)) {
            finding(`prometheus job ${job.job_name}: service ${host} does not appear to serve port ${port}`);
          }
        }
      }
    }
  }
}

for (const f of findings) console.log(`compose: ${f}`);
console.log(`compose: ${Object.keys(services).length} services, ${findings.length} findings`);
process.exit(findings.length ? 1 : 0);

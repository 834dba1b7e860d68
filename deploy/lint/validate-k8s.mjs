// Validates the Kubernetes manifests of deploy/k8s offline.
//
// 1. Schema: each object against the Kubernetes OpenAPI schema bundled in
//    kubernetes-models (types, required fields, enums, formats).
// 2. Unknown fields: those schemas allow extra properties, so a misspelt key
//    (readinesProbe) would pass; every key is checked against the model
//    attribute maps of @kubernetes/client-node (generated from the same
//    OpenAPI spec), as `kubectl --validate=strict` would on a server.
// 3. References inside the set: selectors match pod labels, named ports
//    exist, ConfigMaps/Secrets (and their keys) exist, the kustomization
//    lists every non-example manifest, one namespace throughout.
//
// Usage: node validate-k8s.mjs DIR    (exit 1 on any finding)
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import * as k8s from '@kubernetes/client-node';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: validate-k8s.mjs DIR');
  process.exit(2);
}
const findings = [];
const finding = (where, message) => findings.push(`${where}: ${message}`);

// ------------------------------------------------------------------ parse
const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
const objects = []; // {file, index, obj}
let kustomization = null;
for (const file of files) {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  const docs = YAML.parseAllDocuments(text, { version: '1.1' });
  docs.forEach((doc, index) => {
    for (const e of doc.errors) finding(`${file}#${index}`, `YAML: ${e.message}`);
    const obj = doc.toJS();
    if (obj == null) return;
    if (file === 'kustomization.yaml') kustomization = obj;
    else objects.push({ file, index, obj });
  });
}

// ------------------------------------------------------ 1. OpenAPI schema
function modelModule(apiVersion) {
  // "v1" -> kubernetes-models/v1; "apps/v1" -> kubernetes-models/apps/v1
  return `kubernetes-models/${apiVersion}`;
}
for (const { file, index, obj } of objects) {
  const where = `${file}#${index} ${obj.kind}/${obj.metadata?.name}`;
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') {
    finding(where, 'apiVersion and kind are required');
    continue;
  }
  let Model;
  try {
    Model = (await import(modelModule(obj.apiVersion)))[obj.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) {
    finding(where, `unknown apiVersion/kind ${obj.apiVersion} ${obj.kind}`);
    continue;
  }
  try {
    new Model(obj).validate();
  } catch (e) {
    const errors = e.errors ?? [{ instancePath: '', message: e.message }];
    for (const err of errors) {
      finding(where, `schema: ${err.instancePath || '/'} ${err.message}` +
        (err.params && Object.keys(err.params).length ? ` ${JSON.stringify(err.params)}` : ''));
    }
  }
}

// ---------------------------------------------------- 2. unknown fields
function typeName(apiVersion, kind) {
  const version = apiVersion.split('/').pop(); // v1, v2, v1beta1
  return version.charAt(0).toUpperCase() + version.slice(1) + kind;
}
function checkFields(value, type, at, where) {
  if (value == null) return;
  let m;
  if ((m = /^Array<(.+)>$/.exec(type))) {
    if (Array.isArray(value)) value.forEach((v, i) => checkFields(v, m[1], `${at}[${i}]`, where));
    return;
  }
  if ((m = /^\{ \[key: string\]: (.+); \}$/.exec(type))) {
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) checkFields(v, m[1], `${at}.${k}`, where);
    }
    return;
  }
  const Model = k8s[type];
  if (typeof Model?.getAttributeTypeMap !== 'function') return; // scalars, IntOrString, object
  if (typeof value !== 'object' || Array.isArray(value)) return; // schema check reports it
  const attributes = new Map(Model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, v] of Object.entries(value)) {
    if (!attributes.has(key)) {
      finding(where, `unknown field ${at ? at + '.' : ''}${key} (not in ${type})`);
      continue;
    }
    checkFields(v, attributes.get(key), at ? `${at}.${key}` : key, where);
  }
}
for (const { file, index, obj } of objects) {
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') continue;
  const type = typeName(obj.apiVersion, obj.kind);
  const where = `${file}#${index} ${obj.kind}/${obj.metadata?.name}`;
  if (typeof k8s[type]?.getAttributeTypeMap !== 'function') {
    finding(where, `no model ${type} to check fields against`);
    continue;
  }
  checkFields(obj, type, '', where);
}

// ------------------------------------------------------- 3. references
const byKind = (kind) => objects.filter(({ obj }) => obj.kind === kind);
const nameOf = ({ obj }) => obj.metadata?.name;
const whereOf = ({ file, index, obj }) => `${file}#${index} ${obj.kind}/${obj.metadata?.name}`;
const matches = (selector, labels) =>
  selector && Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

const namespaces = new Set(byKind('Namespace').map(nameOf));
for (const o of objects) {
  if (o.obj.kind === 'Namespace') continue;
  const ns = o.obj.metadata?.namespace;
  if (!ns) finding(whereOf(o), 'metadata.namespace is not set');
  else if (namespaces.size && !namespaces.has(ns)) finding(whereOf(o), `namespace ${ns} is not defined here`);
}

const workloads = [...byKind('Deployment'), ...byKind('StatefulSet')];
const configMaps = new Map(byKind('ConfigMap').map((o) => [nameOf(o), o.obj]));
const secrets = new Map(byKind('Secret').map((o) => [nameOf(o), o.obj]));
const keysOf = (obj) => new Set([...Object.keys(obj?.data ?? {}), ...Object.keys(obj?.stringData ?? {})]);

for (const w of workloads) {
  const spec = w.obj.spec ?? {};
  const podLabels = spec.template?.metadata?.labels ?? {};
  if (!matches(spec.selector?.matchLabels, podLabels)) {
    finding(whereOf(w), 'spec.selector.matchLabels does not match the pod template labels');
  }
  const pod = spec.template?.spec ?? {};
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  for (const v of volumes.values()) {
    if (v.configMap && !configMaps.has(v.configMap.name)) finding(whereOf(w), `volume ${v.name}: no ConfigMap ${v.configMap.name}`);
    if (v.secret && !secrets.has(v.secret.secretName)) finding(whereOf(w), `volume ${v.name}: no Secret ${v.secret.secretName}`);
  }
  const claimTemplates = new Set((spec.volumeClaimTemplates ?? []).map((c) => c.metadata?.name));
  for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const ports = new Set((c.ports ?? []).map((p) => p.name).filter(Boolean));
    for (const m of c.volumeMounts ?? []) {
      if (!volumes.has(m.name) && !claimTemplates.has(m.name)) finding(whereOf(w), `container ${c.name}: mount of undefined volume ${m.name}`);
    }
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const p = c[probe];
      const port = p?.tcpSocket?.port ?? p?.httpGet?.port;
      if (typeof port === 'string' && !ports.has(port)) finding(whereOf(w), `container ${c.name}: ${probe} names unknown port ${port}`);
      if (p?.grpc && !(c.ports ?? []).some((cp) => cp.containerPort === p.grpc.port)) {
        finding(whereOf(w), `container ${c.name}: ${probe}.grpc.port ${p.grpc.port} is not a container port`);
      }
    }
    for (const e of c.env ?? []) {
      const s = e.valueFrom?.secretKeyRef;
      if (s && !s.optional) {
        if (!secrets.has(s.name)) finding(whereOf(w), `env ${e.name}: no Secret ${s.name}`);
        else if (!keysOf(secrets.get(s.name)).has(s.key)) finding(whereOf(w), `env ${e.name}: Secret ${s.name} has no key ${s.key}`);
      }
      const cm = e.valueFrom?.configMapKeyRef;
      if (cm && !cm.optional) {
        if (!configMaps.has(cm.name)) finding(whereOf(w), `env ${e.name}: no ConfigMap ${cm.name}`);
        else if (!keysOf(configMaps.get(cm.name)).has(cm.key)) finding(whereOf(w), `env ${e.name}: ConfigMap ${cm.name} has no key ${cm.key}`);
      }
    }
    // A file named by an argument under a mounted ConfigMap or Secret must
    // be one of its keys (e.g. --flagfile=/etc/ldp/config/ldp-server.flags).
    for (const arg of [...(c.args ?? []), ...(c.command ?? [])]) {
      const file = /=(\/\S+)$/.exec(String(arg))?.[1];
      if (file) checkMountedFile(w, c, volumes, file, `argument ${arg}`);
    }
    // Likewise for every path a mounted flag file names (files and
    // directories: --tls_cert=..., --data_dir=...).
    for (const m of c.volumeMounts ?? []) {
      const cmName = volumes.get(m.name)?.configMap?.name;
      const cmObj = configMaps.get(cmName);
      for (const [key, text] of Object.entries(cmObj?.data ?? {})) {
        for (const line of String(text).split('\n')) {
          const file = /^\s*--[a-z_]+=(\/\S+)\s*$/.exec(line)?.[1];
          if (file) checkMountedFile(w, c, volumes, file, `${cmName}/${key}: ${line.trim()}`);
        }
      }
    }
  }
}

function checkMountedFile(w, c, volumes, file, what) {
  const dirOf = (m) => m.mountPath.replace(/\/?$/, '/');
  const mount = (c.volumeMounts ?? []).find((m) => file.startsWith(dirOf(m)) || file + '/' === dirOf(m));
  if (!mount) {
    finding(whereOf(w), `container ${c.name}: ${what}: ${file} is under no volume mount`);
    return;
  }
  if (file + '/' === dirOf(mount)) return; // the mounted directory itself
  const v = volumes.get(mount.name);
  const source = v?.configMap ? configMaps.get(v.configMap.name) : v?.secret ? secrets.get(v.secret.secretName) : null;
  if (!source) return; // emptyDir etc.
  const key = file.slice(mount.mountPath.replace(/\/?$/, '/').length);
  if (!keysOf(source).has(key)) {
    finding(whereOf(w), `container ${c.name}: ${what}: ${source.kind} ${source.metadata?.name} has no key ${key}`);
  }
}

const podsOf = (selector) => workloads.filter((w) => matches(selector, w.obj.spec?.template?.metadata?.labels));
for (const s of byKind('Service')) {
  const targets = podsOf(s.obj.spec?.selector);
  if (targets.length === 0) {
    finding(whereOf(s), 'selector matches no Deployment/StatefulSet pods here');
    continue;
  }
  for (const p of s.obj.spec?.ports ?? []) {
    if (typeof p.targetPort !== 'string') continue;
    const found = targets.some((w) => (w.obj.spec.template.spec.containers ?? [])
      .some((c) => (c.ports ?? []).some((cp) => cp.name === p.targetPort)));
    if (!found) finding(whereOf(s), `targetPort ${p.targetPort} is not a named container port of the selected pods`);
  }
}
for (const s of byKind('StatefulSet')) {
  if (!byKind('Service').some((svc) => nameOf(svc) === s.obj.spec?.serviceName)) {
    finding(whereOf(s), `serviceName ${s.obj.spec?.serviceName} is not a Service here`);
  }
}
for (const p of byKind('PodDisruptionBudget')) {
  if (podsOf(p.obj.spec?.selector?.matchLabels).length === 0) finding(whereOf(p), 'selector matches no pods here');
}

// ----------------------------------------------------- kustomization.yaml
if (!kustomization) {
  finding('kustomization.yaml', 'missing');
} else {
  const allowed = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'labels',
    'commonLabels', 'commonAnnotations', 'configMapGenerator', 'secretGenerator', 'patches',
    'replicas', 'namePrefix', 'nameSuffix', 'components', 'generatorOptions']);
  for (const key of Object.keys(kustomization)) {
    if (!allowed.has(key)) finding('kustomization.yaml', `unexpected field ${key}`);
  }
  if (kustomization.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || kustomization.kind !== 'Kustomization') {
    finding('kustomization.yaml', 'apiVersion/kind must be kustomize.config.k8s.io/v1beta1 Kustomization');
  }
  const listed = new Set(kustomization.resources ?? []);
  for (const r of listed) {
    if (!fs.existsSync(path.join(dir, r))) finding('kustomization.yaml', `resource ${r} does not exist`);
  }
  for (const f of files) {
    if (f === 'kustomization.yaml' || /\.example\.ya?ml$/.test(f)) continue;
    if (!listed.has(f)) finding('kustomization.yaml', `${f} is not listed in resources`);
  }
  for (const f of listed) {
    if (/\.example\.ya?ml$/.test(f)) finding('kustomization.yaml', `${f}: example Secrets must not be applied`);
  }
  const images = new Set(workloads.flatMap((w) => (w.obj.spec.template.spec.containers ?? [])
    .map((c) => c.image.replace(/[:@].*$/, ''))));
  for (const i of kustomization.images ?? []) {
    if (!images.has(i.name)) finding('kustomization.yaml', `images: ${i.name} is no container's image`);
  }
  if (kustomization.namespace && namespaces.size && !namespaces.has(kustomization.namespace)) {
    finding('kustomization.yaml', `namespace ${kustomization.namespace} is not defined here`);
  }
}

for (const f of findings) console.log(`k8s: ${f}`);
console.log(`k8s: ${objects.length} objects in ${files.length} files, ${findings.length} findings`);
process.exit(findings.length ? 1 : 0);

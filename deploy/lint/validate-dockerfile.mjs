// Checks deploy/Dockerfile offline: the instruction-level validator of
// dockerfile-utils (the one behind the VS Code Docker extension: argument
// counts, flags, casing, JSON forms, duplicate stages...), then the image
// conventions of deploy/ that hadolint would otherwise cover:
//   - every FROM is a named stage on a pinned, non-latest tag;
//   - COPY --from names an earlier stage;
//   - apt-get install uses --no-install-recommends and the lists are removed;
//   - the final stage runs as a non-root USER, with an exec-form
//     ENTRYPOINT ["ldp-server"] and EXPOSEs the gRPC and metrics ports;
//   - HEALTHCHECK only if a tool for it is installed.
// Prints the apt packages of each stage (one "stage NAME: pkg..." line) for
// deploy/lint.sh to check against the Debian archive.
//
// Usage: node validate-dockerfile.mjs DOCKERFILE [--packages]
import fs from 'node:fs';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { DockerfileParser } from 'dockerfile-ast';

const file = process.argv[2];
const printPackages = process.argv.includes('--packages');
if (!file) {
  console.error('usage: validate-dockerfile.mjs DOCKERFILE [--packages]');
  process.exit(2);
}
const content = fs.readFileSync(file, 'utf8');
const findings = [];
const finding = (line, message) => findings.push(`${file}:${line}: ${message}`);

const W = ValidationSeverity.WARNING;
for (const d of validate(content, {
  deprecatedMaintainer: W, directiveCasing: W, emptyContinuationLine: W,
  instructionCasing: W, instructionCmdMultiple: W, instructionEntrypointMultiple: W,
  instructionHealthcheckMultiple: W, instructionJSONInSingleQuotes: W,
  instructionWorkdirRelative: W,
})) {
  finding(d.range.start.line + 1, d.message);
}

const dockerfile = DockerfileParser.parse(content);
const stages = []; // {name, from, instructions}
for (const instruction of dockerfile.getInstructions()) {
  const keyword = instruction.getKeyword();
  const line = instruction.getRange().start.line + 1;
  const args = instruction.getArguments().map((a) => a.getValue());
  if (keyword === 'FROM') {
    const image = args[0] ?? '';
    const name = args.length === 3 && args[1].toUpperCase() === 'AS' ? args[2] : null;
    if (!name) finding(line, `FROM ${image}: name the stage (FROM image AS name)`);
    const tag = /^[^@]+:([^/:@]+)$/.exec(image)?.[1];
    if (!image.includes('@sha256:') && !tag && !stages.some((s) => s.name === image)) {
      finding(line, `FROM ${image}: no tag`);
    }
    if (tag === 'latest') finding(line, `FROM ${image}: the latest tag is not reproducible`);
    stages.push({ name, from: image, line, instructions: [] });
    continue;
  }
  if (stages.length === 0) {
    if (keyword !== 'ARG') finding(line, `${keyword} before the first FROM`);
    continue;
  }
  stages.at(-1).instructions.push({ keyword, line, args, text: instruction.getTextContent(), instruction });
}
if (stages.length < 2) finding(1, 'expected a multi-stage build (build and runtime stages)');

const packagesByStage = [];
stages.forEach((stage, index) => {
  const packages = [];
  for (const { keyword, line, args, text } of stage.instructions) {
    if (keyword === 'COPY') {
      const from = /--from=(\S+)/.exec(text)?.[1];
      if (from && !stages.slice(0, index).some((s) => s.name === from)) {
        finding(line, `COPY --from=${from}: no earlier stage of that name`);
      }
    }
    if (keyword === 'RUN' && /apt-get\s+install/.test(text)) {
      if (!/--no-install-recommends/.test(text)) finding(line, 'apt-get install without --no-install-recommends');
      if (!/-y\b|--yes\b|--assume-yes\b/.test(text)) finding(line, 'apt-get install without -y');
      if (!/apt-get update/.test(text)) finding(line, 'apt-get install without apt-get update in the same RUN');
      if (!/rm -rf \/var\/lib\/apt\/lists/.test(text)) finding(line, 'apt lists not removed in the same RUN');
      // The package names: the words after "install" and its options, up to
      // the next && or ;.
      const command = text.replace(/\\\r?\n/g, ' ').replace(/#[^\n]*\n/g, ' ');
      const m = /apt-get\s+install\s+([^&;]*)/.exec(command);
      for (const word of (m?.[1] ?? '').split(/\s+/)) {
        if (word && !word.startsWith('-')) packages.push(word);
      }
    }
  }
  packagesByStage.push({ name: stage.name ?? `#${index}`, packages });
});

const final = stages.at(-1);
if (final) {
  const find = (k) => final.instructions.filter((i) => i.keyword === k);
  const users = find('USER');
  const user = users.at(-1)?.args[0];
  if (!user) finding(final.line, 'the final stage sets no USER (it would run as root)');
  else if (/^(root|0)(:|$)/.test(user)) finding(users.at(-1).line, `USER ${user} is root`);
  const entrypoint = find('ENTRYPOINT').at(-1);
  if (!entrypoint) finding(final.line, 'no ENTRYPOINT in the final stage');
  else {
    const text = entrypoint.text.replace(/^ENTRYPOINT\s+/i, '').trim();
    let parsed = null;
    try { parsed = JSON.parse(text); } catch { /* shell form */ }
    if (!Array.isArray(parsed)) finding(entrypoint.line, 'ENTRYPOINT must be in exec (JSON) form');
    else if (parsed[0] !== 'ldp-server') finding(entrypoint.line, `ENTRYPOINT runs ${parsed[0]}, expected ldp-server`);
  }
  const exposed = new Set(find('EXPOSE').flatMap((i) => i.args.map((a) => a.replace(/\/tcp$/, ''))));
  for (const port of ['50051', '9464']) if (!exposed.has(port)) finding(final.line, `port ${port} is not EXPOSEd`);
  const healthcheck = find('HEALTHCHECK').at(-1);
  if (healthcheck && !/\bNONE\b/i.test(healthcheck.text)) {
    const tool = /CMD\s+\[?\s*"?([^\s",\]]+)/.exec(healthcheck.text)?.[1] ?? '';
    const installed = packagesByStage.at(-1).packages.join(' ');
    if (!/grpc[-_]health[-_]probe|grpcurl/.test(tool + ' ' + installed)) {
      finding(healthcheck.line, `HEALTHCHECK uses ${tool}, but no gRPC health client is installed`);
    }
  }
  const copiesBinaries = final.instructions.some((i) => i.keyword === 'COPY' && /--from=/.test(i.text));
  if (!copiesBinaries) finding(final.line, 'the final stage copies nothing from the build stage');
}

if (printPackages) {
  for (const { name, packages } of packagesByStage) console.log(`stage ${name}: ${packages.join(' ')}`);
} else {
  for (const f of findings) console.log(`dockerfile: ${f}`);
  console.log(`dockerfile: ${stages.length} stages, ${findings.length} findings`);
}
process.exit(findings.length ? 1 : 0);

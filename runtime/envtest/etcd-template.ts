/**
 * etcd templates: a copy of a control plane's etcd data taken right after kube-apiserver's first start, when it has
 * written its bootstrap objects (the system namespaces, the RBAC roles and bindings, the priority classes, the
 * flow-control schemas and levels) and nothing else. A control plane whose etcd starts from a copy finds them there,
 * as an apiserver restarted on a cluster does, and skips writing them: about a sixth of a start's CPU
 * (bench/latest/envtest-start.json). Beside the data the template keeps the apiserver's serving certificate and key
 * and the ServiceAccount signing key pair, which a restarted apiserver also finds in place: made at every start they
 * cost three RSA keys, two made by kube-apiserver (0.17 CPU-s a start: 3.49 from a template without them, 3.32 with
 * them) and one by this process.
 * A plane's tokens are still its own (the admin token; its ServiceAccount tokens name its own URL as issuer, so
 * another plane of the template refuses them).
 *
 * One template per configuration that can change what the apiserver bootstraps: the kube-apiserver and etcd binaries
 * and the apiserver's extra flags (a feature gate, a runtime-config). A configuration's template is made by its second
 * start (the first only notes that it started), so that one started once pays nothing. Several processes may share the
 * folder (jest's workers): a template is written under a temporary name and renamed into place, so a reader sees all
 * of it or none, and the first of two writers wins.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ControlPlaneBinaries } from './assets';

/** Where the template of this configuration is (or will be) in `dir`. */
export function templatePath(dir: string, binaries: ControlPlaneBinaries, apiServerFlags: readonly string[]): string {
  // size and modification time tell two builds at one path apart (setup-envtest replacing a version in place)
  const identity = (path: string) => {
    const s = statSync(path);
    return `${path}:${s.size}:${s.mtimeMs}`;
  };
  const key = createHash('sha256')
    .update(JSON.stringify([identity(binaries.kubeApiServer), identity(binaries.etcd), apiServerFlags]))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `etcd-${basename(binaries.kubeApiServer)}-${key}`);
}

/** The files a template keeps beside etcd's data, by name: each plane's path of it. */
export type TemplateKeys = Readonly<Record<string, string>>;

const keysOf = (template: string) => `${template}.keys`;

/**
 * Copies the template into an etcd data folder that does not exist yet: 'copied'. Without a template: 'make one'
 * when a plane of this configuration started before (so a configuration started once, such as flags naming a
 * test's own file, never pays for a template it would not use), else 'none' (and the start is remembered).
 */
export function copyTemplate(template: string, etcdData: string): 'copied' | 'make one' | 'none' {
  if (existsSync(template)) {
    cpSync(template, etcdData, { recursive: true });
    return 'copied';
  }
  const seen = `${template}.seen`;
  if (existsSync(seen)) return 'make one';
  mkdirSync(dirname(template), { recursive: true });
  writeFileSync(seen, '');
  return 'none';
}

/**
 * Copies the template's keys to the plane's paths of them: false when the template has none (one saved without
 * them), and the plane makes its own.
 */
export function copyTemplateKeys(template: string, keys: TemplateKeys): boolean {
  const dir = keysOf(template);
  if (!Object.keys(keys).every((name) => existsSync(join(dir, name)))) return false;
  for (const [name, path] of Object.entries(keys)) cpSync(join(dir, name), path);
  return true;
}

/**
 * Saves a stopped etcd's data folder as the template, and the plane's keys beside it (first, so that a template
 * found has its keys), unless another process saved them first.
 */
export function saveTemplate(etcdData: string, template: string, keys: TemplateKeys): void {
  mkdirSync(dirname(template), { recursive: true });
  saveOnce(keysOf(template), (staging) => {
    mkdirSync(staging);
    for (const [name, path] of Object.entries(keys)) cpSync(path, join(staging, name));
  });
  saveOnce(template, (staging) => cpSync(etcdData, staging, { recursive: true }));
}

/** Writes a folder under a temporary name and renames it into place; the first of two writers wins. */
function saveOnce(target: string, write: (staging: string) => void): void {
  const staging = `${target}.${process.pid}-${Date.now().toString(36)}`;
  write(staging);
  try {
    renameSync(staging, target);
  } catch {
    // another process renamed its copy into place first (ENOTEMPTY, EEXIST): the same bootstrap, keep theirs
    rmSync(staging, { recursive: true, force: true });
  }
}

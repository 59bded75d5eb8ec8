/**
 * etcd templates: a copy of a control plane's etcd data taken right after kube-apiserver's first start, when it has
 * written its bootstrap objects (the system namespaces, the RBAC roles and bindings, the priority classes, the
 * flow-control schemas and levels) and nothing else. A control plane whose etcd starts from a copy finds them there,
 * as an apiserver restarted on a cluster does, and skips writing them: about a sixth of a start's CPU
 * (bench/latest/envtest-start.json). The plane's certificates, keys and tokens are still its own: they are not in etcd.
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

/** Saves a stopped etcd's data folder as the template, unless another process saved one first. */
export function saveTemplate(etcdData: string, template: string): void {
  mkdirSync(dirname(template), { recursive: true });
  const staging = `${template}.${process.pid}-${Date.now().toString(36)}`;
  cpSync(etcdData, staging, { recursive: true });
  try {
    renameSync(staging, template);
  } catch {
    // another process renamed its copy into place first (ENOTEMPTY, EEXIST): the same bootstrap, keep theirs
    rmSync(staging, { recursive: true, force: true });
  }
}

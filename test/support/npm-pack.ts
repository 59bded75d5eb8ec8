/**
 * `npm pack` of this repository, one at a time: prepack rebuilds build/ from scratch (`rm -rf build && tsc`), so two
 * packs at once (jest's package tests and the node suites run side by side in CI) would remove each other's output.
 * The lock is an flock(1) on a file named after the checkout.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** What `npm pack --json` reports of the one package packed. */
export interface PackedPackage {
  readonly filename: string;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

/** Packs the repository into `destination`; throws with npm's output when it fails. */
export function npmPack(destination: string, env: NodeJS.ProcessEnv = process.env): PackedPackage {
  const lock = path.join(tmpdir(), `cdk8s-operator-pack-${ROOT.replace(/[^A-Za-z0-9]+/g, '-')}.lock`);
  const packed = spawnSync('flock', [lock, 'npm', 'pack', '--json', '--pack-destination', destination], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (packed.status !== 0) throw new Error(`npm pack failed (${packed.status ?? packed.signal}):\n${packed.stderr}`);
  return JSON.parse(packed.stdout)[0];
}

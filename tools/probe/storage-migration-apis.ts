/**
 * Which `storagemigration.k8s.io` API versions (Kubernetes' in-tree StorageVersionMigration) the real apiservers
 * here serve, and with which switches: kube-apiserver 1.32 and 1.36 (../shared/k8s/install.sh --version …), each
 * started bare with no flag, with the `StorageVersionMigrator` feature gate, with `--runtime-config` for one API
 * version, and with both; what discovery lists under the group, or why the apiserver did not start.
 * Writes bench/latest/storage-migration-apis.json (`npx tsx tools/probe/storage-migration-apis.ts`); docs/API.md,
 * docs/storage-migration.md and lib/apimachinery/served-apis.ts cite it, test/apimachinery/storage-migration-apis.test.ts
 * checks served-apis.ts against it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '../../runtime/envtest';

export const STORAGE_MIGRATION_APIS = join(__dirname, '../../bench/latest/storage-migration-apis.json');

const GROUP = 'storagemigration.k8s.io';
const GATE = '--feature-gates=StorageVersionMigrator=true';
const API_VERSIONS = ['v1alpha1', 'v1beta1'] as const;

/** One configuration of one apiserver and what it served. */
export interface StorageMigrationProbe {
  readonly flags: readonly string[];
  /** The versions of the group discovery lists (`[]`: the group is not served), or undefined when it did not start. */
  readonly served?: readonly string[];
  /** Why the apiserver did not start: its `command failed` error. */
  readonly startError?: string;
}

/** The probe's output: per apiserver version, its exact version and each configuration's outcome. */
export interface StorageMigrationApis {
  readonly generatedBy: string;
  readonly loadAverage1m: number;
  readonly versions: {
    readonly [version: string]: { readonly serverVersion: string; readonly probes: readonly StorageMigrationProbe[] };
  };
}

function assetsDir(version: string): string {
  const out = execFileSync('bash', [join(__dirname, '../../../shared/k8s/install.sh'), '--version', version], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  return out[out.length - 1];
}

async function probe(dir: string, flags: readonly string[]): Promise<StorageMigrationProbe & { server?: string }> {
  let plane: ControlPlane | undefined;
  try {
    plane = await ControlPlane.start({ assetsDir: dir, controllerManager: false, apiServerFlags: flags });
    const group = await plane.request('GET', `/apis/${GROUP}`);
    const served = group.code === 200 ? group.body.versions.map((v: { version: string }) => v.version) : [];
    return { flags, served, server: (await plane.request('GET', '/version')).body.gitVersion };
  } catch (e) {
    // kube-apiserver's last words, e.g. `E… run.go:72] "command failed" err="group version … not been registered"`
    const message = (e as Error).message;
    const failed = message.match(/"command failed" err="(.*)"/);
    return { flags, startError: failed ? failed[1] : message.split('\n')[0] };
  } finally {
    await plane?.stop();
  }
}

async function main(): Promise<void> {
  const versions: Record<string, { serverVersion: string; probes: StorageMigrationProbe[] }> = {};
  for (const version of ['1.32', '1.36']) {
    const dir = assetsDir(version);
    const configs: string[][] = [[], [GATE]];
    for (const v of API_VERSIONS) {
      configs.push([`--runtime-config=${GROUP}/${v}=true`], [`--runtime-config=${GROUP}/${v}=true`, GATE]);
    }
    let serverVersion = '';
    const probes: StorageMigrationProbe[] = [];
    for (const flags of configs) {
      const { server, ...result } = await probe(dir, flags);
      serverVersion ||= server ?? '';
      probes.push(result);
      console.log(version, flags.join(' ') || '(no flag)', JSON.stringify(result.served ?? result.startError));
    }
    versions[version] = { serverVersion, probes };
  }
  const out: StorageMigrationApis = {
    generatedBy: 'npx tsx tools/probe/storage-migration-apis.ts',
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
    versions,
  };
  writeFileSync(STORAGE_MIGRATION_APIS, JSON.stringify(out, null, 2) + '\n');
  console.log(STORAGE_MIGRATION_APIS);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

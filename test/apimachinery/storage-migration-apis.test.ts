/**
 * The served-APIs table and the storage migrator against the committed output of the probe of the real apiservers
 * (tools/probe/storage-migration-apis.ts, bench/latest/storage-migration-apis.json): no apiserver runs here; rerun
 * the probe to refresh the output.
 */
import { readFileSync } from 'node:fs';
import { KubernetesVersion } from '../../lib/apimachinery/kubernetes-versions';
import { servedBy } from '../../lib/apimachinery/served-apis';
import { IN_TREE_MIGRATION_API_VERSIONS } from '../../runtime/conversion';
import { STORAGE_MIGRATION_APIS, StorageMigrationApis } from '../../tools/probe/storage-migration-apis';

const probed: StorageMigrationApis = JSON.parse(readFileSync(STORAGE_MIGRATION_APIS, 'utf8'));
const GATE = '--feature-gates=StorageVersionMigrator=true';
const served = (version: string, flags: readonly string[]) =>
  probed.versions[version].probes.find((p) => JSON.stringify(p.flags) === JSON.stringify(flags))!;

describe('storagemigration.k8s.io as the real 1.32.13 and 1.36.3 serve it (the committed probe output)', () => {
  test('the probe ran on v1.32.13 and v1.36.3', () => {
    expect(Object.fromEntries(Object.entries(probed.versions).map(([v, r]) => [v, r.serverVersion]))).toEqual({
      '1.32': 'v1.32.13',
      '1.36': 'v1.36.3',
    });
  });

  test.each([
    ['1.32', 'v1alpha1', 'v1beta1'],
    ['1.36', 'v1beta1', 'v1alpha1'],
  ])('%s serves %s only with both the gate and --runtime-config, and does not know %s', (version, known, unknown) => {
    const rc = (v: string) => `--runtime-config=storagemigration.k8s.io/${v}=true`;
    expect(served(version, []).served).toEqual([]);
    expect(served(version, [GATE]).served).toEqual([]);
    expect(served(version, [rc(known)]).served).toEqual([]);
    expect(served(version, [rc(known), GATE]).served).toEqual([known]);
    expect(served(version, [rc(unknown), GATE]).startError).toBe(
      `group version storagemigration.k8s.io/${unknown} that has not been registered`,
    );
    // the table: not served by default by this version
    expect(servedBy(`storagemigration.k8s.io/${known}`, 'StorageVersionMigration', version as KubernetesVersion)).toBe(
      false,
    );
  });

  test("the migrator uses what 1.36 serves when switched on, and not 1.32's alpha", () => {
    expect(IN_TREE_MIGRATION_API_VERSIONS).toContain('storagemigration.k8s.io/v1beta1');
    expect(IN_TREE_MIGRATION_API_VERSIONS).not.toContain('storagemigration.k8s.io/v1alpha1');
  });
});

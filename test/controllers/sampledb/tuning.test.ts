import { postgresArgs } from '../../../controllers/sampledb/instance-script';
import {
  containerResources,
  DEFAULT_RESOURCES,
  derivedParameters,
  desiredParameters,
  isParameterName,
  OPERATOR_OWNED_PARAMETERS,
  quantityBytes,
  tuningMemory,
} from '../../../controllers/sampledb/tuning';
import { Database, SampleDB } from '../../../controllers/sampledb/types';

function db(spec: Partial<SampleDB['spec']> = {}): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u-1', resourceVersion: '1', generation: 1 },
    spec: { version: '16.4', ...spec },
  };
}
const GiB = 2 ** 30;
const MiB = 2 ** 20;

describe('quantities', () => {
  test.each<[string, number | undefined]>([
    ['1Gi', GiB],
    ['512Mi', 512 * MiB],
    ['1.5Gi', 1.5 * GiB],
    ['1G', 1e9],
    ['100M', 1e8],
    ['2048', 2048],
    ['1k', 1000],
    ['1x', undefined],
    ['', undefined],
  ])('%s is %s bytes', (q, bytes) => expect(quantityBytes(q)).toBe(bytes));
});

describe('derived parameters (Spilo memory/5 and memory/30MB, PGTune for the rest)', () => {
  test('a 1 GiB container on a 1 GiB volume', () => {
    expect(derivedParameters(GiB, GiB)).toEqual({
      shared_buffers: '204MB', // 1024 / 5, whole MB (Spilo)
      max_connections: '100', // 1024 / 30 = 34 → at least 100 (Spilo)
      effective_cache_size: '768MB', // 3/4 (PGTune)
      maintenance_work_mem: '64MB', // 1/16 (PGTune)
      work_mem: '2591kB', // (1024 - 204) MiB / ((100 + 8) × 3) (PGTune)
      wal_buffers: '6266kB', // 3 % of shared_buffers (PGTune)
      max_wal_size: '256MB', // volume / 4 (4 GB of WAL would fill it)
      min_wal_size: '64MB',
    });
  });

  test("a 64 GiB container: connections capped at 1000, maintenance_work_mem at 2 GiB, WAL buffers at 16 MB, WAL at PGTune's 4 GB / 1 GB", () => {
    const p = derivedParameters(64 * GiB, 100 * GiB);
    expect(p).toMatchObject({
      shared_buffers: '13107MB',
      max_connections: '1000',
      effective_cache_size: '49152MB',
      maintenance_work_mem: '2048MB',
      wal_buffers: '16MB',
      max_wal_size: '4096MB',
      min_wal_size: '1024MB',
    });
    expect(derivedParameters(8 * GiB, 100 * GiB).max_connections).toBe('273'); // 8192 / 30
  });

  test("a tiny container keeps PostgreSQL's minimums (work_mem 64 kB, wal_buffers 32 kB, min_wal_size 32 MB)", () => {
    const p = derivedParameters(16 * MiB, 64 * MiB);
    expect(p).toMatchObject({
      shared_buffers: '3072kB',
      work_mem: '64kB',
      wal_buffers: '92kB',
      max_wal_size: '64MB',
      min_wal_size: '32MB',
    });
    expect(derivedParameters(4 * MiB, 64 * MiB).wal_buffers).toBe('32kB');
  });

  test('more memory never derives less of any memory setting', () => {
    const bytes = (v: string) => (v.endsWith('MB') ? parseInt(v, 10) * MiB : parseInt(v, 10) * 1024);
    let previous = derivedParameters(128 * MiB, GiB);
    for (let m = 256 * MiB; m <= 32 * GiB; m *= 2) {
      const next = derivedParameters(m, GiB);
      for (const k of ['shared_buffers', 'effective_cache_size', 'maintenance_work_mem', 'wal_buffers']) {
        expect(bytes(next[k])).toBeGreaterThanOrEqual(bytes(previous[k]));
      }
      expect(Number(next.max_connections)).toBeGreaterThanOrEqual(Number(previous.max_connections));
      previous = next;
    }
  });
});

describe('desired parameters', () => {
  test("a SampleDB without resources (written before the field existed) derives nothing and keeps 0.1.0's container resources", () => {
    expect(desiredParameters(db())).toEqual({});
    expect(tuningMemory(db())).toBeUndefined();
    expect(containerResources(db())).toEqual(DEFAULT_RESOURCES);
  });

  test('derived from limits.memory (else requests.memory) and the data volume; user parameters win', () => {
    const d = db({
      storage: '4Gi',
      resources: { requests: { memory: '512Mi' }, limits: { memory: '2Gi' } },
      postgresql: { parameters: { work_mem: '16MB', 'pg_stat_statements.max': '500' } },
    });
    const p = desiredParameters(d);
    expect(p).toMatchObject({
      shared_buffers: '409MB',
      max_wal_size: '1024MB',
      work_mem: '16MB',
      'pg_stat_statements.max': '500',
    });
    expect(Object.keys(p)).toEqual([...Object.keys(p)].sort());
    expect(desiredParameters(db({ resources: { requests: { memory: '512Mi' } } })).shared_buffers).toBe('102MB');
  });

  test("autoTune: false applies only the user's parameters", () => {
    expect(
      desiredParameters(
        db({
          resources: { limits: { memory: '2Gi' } },
          postgresql: { autoTune: false, parameters: { work_mem: '16MB' } },
        }),
      ),
    ).toEqual({ work_mem: '16MB' });
  });

  test('owned settings and names that are not setting names never reach SQL, even past the CRD', () => {
    const p = desiredParameters(
      db({ postgresql: { parameters: { wal_level: 'minimal', 'x; drop table t': '1', ok_name: 'on' } } }),
    );
    expect(p).toEqual({ ok_name: 'on' });
    expect(isParameterName('pg_stat_statements.max')).toBe(true);
    expect(isParameterName("work_mem = '1'; --")).toBe(false);
  });

  test('every setting the instance script passes on the command line is owned (a command-line value would hide the parameter)', () => {
    const onCommandLine = postgresArgs(db())
      .filter((a) => a !== '-c')
      .map((a) => a.split('=')[0]);
    expect(onCommandLine.filter((k) => !OPERATOR_OWNED_PARAMETERS.includes(k))).toEqual([]);
  });
});

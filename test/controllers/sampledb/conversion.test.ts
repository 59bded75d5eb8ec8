/**
 * SampleDB's conversion, property-tested with the CRD's own schemas as the oracle: random objects of every
 * served version that the schema validation (lib/apiserver/value-validation, the apiserver's rules and CEL)
 * accepts are converted to every other version; the result must be valid there, and converting back must
 * give the original object exactly (hub → spoke → hub and spoke → hub → spoke).
 */
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION, sampleDbV1ToV2, sampleDbV2ToV1 } from '../../../controllers/sampledb/conversion';
import { validateValue } from '../../../lib';
import { KubeObject } from '../../../runtime';
import { randomFromSchema } from '../../support/random-from-schema';
import { seededRandom } from '../../support/seeded-random';

const crd = sampleDbCrd(new Chart(new App(), 'test'));
const GROUP = 'database.example.com';
const VERSIONS = crd
  .toManifest()
  .spec.versions.filter((v) => v.served)
  .map((v) => v.name);
const ANNOTATION = SAMPLEDB_CONVERSION.annotation;
const PER_VERSION = 400;

function errorsAt(version: string, obj: unknown): string[] {
  return validateValue(crd.schemaFor(version), obj)
    .issues.filter((i) => i.severity !== 'warning')
    .map((i) => `${i.path}: ${i.message}`);
}

/** Random schema-valid objects of `version`, defaulted as the apiserver stores them. */
function validObjects(version: string, seed: number): KubeObject[] {
  const rand = seededRandom(seed);
  const out: KubeObject[] = [];
  for (let i = 0; out.length < PER_VERSION && i < PER_VERSION * 20; i++) {
    const body = randomFromSchema(crd.schemaFor(version), rand) as Record<string, unknown>;
    const name = rand() < 0.5 ? `db-${i}` : 'nightly-1';
    const metadata: Record<string, unknown> = {
      name,
      namespace: 'ns',
      uid: `uid-${i}`,
      resourceVersion: String(i + 1),
      generation: 1,
    };
    if (rand() < 0.3) metadata.annotations = { 'example.com/owner': 'team-a' };
    if (rand() < 0.3) metadata.labels = { app: 'x' };
    const obj: Record<string, unknown> = { apiVersion: `${GROUP}/${version}`, kind: 'SampleDB', metadata, ...body };
    // v2 restoring from the database itself, named explicitly (v1 can express it, the name must survive)
    const spec = obj.spec as Record<string, any> | undefined;
    if (typeof spec?.restoreFrom === 'object' && rand() < 0.3) spec.restoreFrom.sampleDB = name;
    const validation = validateValue(crd.schemaFor(version), obj);
    if (validation.issues.some((x) => x.severity !== 'warning')) continue;
    out.push(validation.value as KubeObject);
  }
  return out;
}

describe('SampleDB conversion, every served version pair, schemas as the oracle', () => {
  test('v1 and v2 are served, v2 is the storage version and the hub', () => {
    expect(VERSIONS).toEqual(['v1', 'v2']);
    expect(crd.storageVersion).toBe('v2');
    expect(SAMPLEDB_CONVERSION.hub).toBe('v2');
    expect([...SAMPLEDB_CONVERSION.versions].sort()).toEqual(VERSIONS);
  });

  for (const [i, from] of VERSIONS.entries()) {
    for (const to of VERSIONS.filter((v) => v !== from)) {
      test(`${from} → ${to} → ${from}: valid at ${to}, identical back at ${from} (${PER_VERSION} generated objects)`, () => {
        const objects = validObjects(from, 1000 + i);
        expect(objects.length).toBe(PER_VERSION);
        let withLoss = 0;
        let withRestore = 0;
        for (const obj of objects) {
          const converted = SAMPLEDB_CONVERSION.convert(obj, `${GROUP}/${to}`);
          expect({ name: obj.metadata?.name, errors: errorsAt(to, converted) }).toEqual({
            name: obj.metadata?.name,
            errors: [],
          });
          expect(converted.apiVersion).toBe(`${GROUP}/${to}`);
          // the apiserver refuses a conversion that changes metadata other than labels and annotations
          const { labels: _l, annotations: _a, ...meta } = converted.metadata ?? {};
          const { labels: _l0, annotations: _a0, ...meta0 } = obj.metadata ?? {};
          expect(meta).toEqual(meta0);
          if (converted.metadata?.annotations?.[ANNOTATION]) withLoss++;
          if ((obj.spec as any)?.restoreFrom !== undefined) withRestore++;
          expect(SAMPLEDB_CONVERSION.convert(converted, `${GROUP}/${from}`)).toEqual(obj);
        }
        // the generator reaches the interesting cases: objects with a restoreFrom, and (v2 → v1) fields v1 cannot hold
        expect(withRestore).toBeGreaterThan(PER_VERSION / 10);
        if (from === 'v2') expect(withLoss).toBeGreaterThan(PER_VERSION / 2);
        else expect(withLoss).toBe(0);
      });
    }
  }
});

describe('SampleDB v1 ↔ v2', () => {
  const meta = { name: 'db', namespace: 'ns', uid: 'u', resourceVersion: '7' };

  test('a v1 string restoreFrom: X is the v2 { backup: X }, and back', () => {
    const v1 = {
      apiVersion: 'database.example.com/v1' as const,
      kind: 'SampleDB' as const,
      metadata: meta,
      spec: { version: '16', restoreFrom: 'nightly-1' },
    };
    const v2 = SAMPLEDB_CONVERSION.convert(v1, 'database.example.com/v2');
    expect(v2).toEqual({
      apiVersion: 'database.example.com/v2',
      kind: 'SampleDB',
      metadata: meta,
      spec: { version: '16', restoreFrom: { backup: 'nightly-1' } },
    });
    expect(SAMPLEDB_CONVERSION.convert(v2, 'database.example.com/v1')).toEqual(v1);
    expect(sampleDbV1ToV2(v1).spec?.restoreFrom).toEqual({ backup: 'nightly-1' });
  });

  test('restoring from another SampleDB is not expressible in v1: no restoreFrom there, kept in the annotation, restored at v2', () => {
    const v2 = {
      apiVersion: 'database.example.com/v2' as const,
      kind: 'SampleDB' as const,
      metadata: meta,
      spec: { version: '16', synchronous: true, restoreFrom: { sampleDB: 'other', backup: 'b-1' } },
    };
    expect(sampleDbV2ToV1(v2).spec).toEqual({ version: '16' });
    const v1 = SAMPLEDB_CONVERSION.convert(v2, 'database.example.com/v1');
    expect(v1.spec).toEqual({ version: '16' });
    expect(JSON.parse(v1.metadata!.annotations![ANNOTATION])).toEqual({
      lost: [
        { path: ['spec', 'restoreFrom'], value: { sampleDB: 'other', backup: 'b-1' } },
        { path: ['spec', 'synchronous'], value: true },
      ],
    });
    expect(SAMPLEDB_CONVERSION.convert(v1, 'database.example.com/v2')).toEqual(v2);
  });

  test('a v1 client that changes what v1 expresses wins; what v1 cannot express survives the edit', () => {
    const v2 = {
      apiVersion: 'database.example.com/v2' as const,
      kind: 'SampleDB' as const,
      metadata: meta,
      spec: { version: '16', replicas: 3, failoverDelaySeconds: 5, restoreFrom: { sampleDB: 'db', backup: 'b-1' } },
    };
    const v1 = SAMPLEDB_CONVERSION.convert(v2, 'database.example.com/v1') as any;
    expect(v1.spec.restoreFrom).toBe('b-1');
    v1.spec.replicas = 5;
    v1.spec.restoreFrom = 'b-2';
    const back = SAMPLEDB_CONVERSION.convert(v1, 'database.example.com/v2');
    expect(back.spec).toEqual({
      version: '16',
      replicas: 5,
      failoverDelaySeconds: 5,
      restoreFrom: { sampleDB: 'db', backup: 'b-2' },
    });
    expect(back.metadata?.annotations).toBeUndefined();
    delete v1.spec.restoreFrom; // removing restoreFrom at v1 removes it at v2 (not a half object with only sampleDB)
    expect(SAMPLEDB_CONVERSION.convert(v1, 'database.example.com/v2').spec).toEqual({
      version: '16',
      replicas: 5,
      failoverDelaySeconds: 5,
    });
  });
});

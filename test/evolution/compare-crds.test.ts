import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compareCrdManifests, CrdBaselines, CrdManifest, JSONSchemaProps } from '../../lib';
import { formatCrdChange } from '../../lib/evolution/crd-change';

/** A CRD manifest with one version per entry of `schemas` (the first is the storage version). */
function manifest(
  schemas: Record<string, JSONSchemaProps>,
  extra: { spec?: any; status?: any; version?: any } = {},
): CrdManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'dbs.db.example.com' },
    spec: {
      group: 'db.example.com',
      names: { kind: 'Db', plural: 'dbs', singular: 'db', listKind: 'DbList', shortNames: ['d'] },
      scope: 'Namespaced',
      versions: Object.entries(schemas).map(([name, schema], i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: schema },
        ...extra.version,
      })),
      ...extra.spec,
    },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

const root = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });
const ids = (b: CrdManifest, c: CrdManifest) => compareCrdManifests(b, c).map(formatCrdChange);

describe('compareCrdManifests', () => {
  const base = root({
    type: 'object',
    properties: { a: { type: 'string', description: 'A.' }, list: { type: 'array', items: { type: 'string' } } },
  });

  test('ignores description changes and reports nothing for an identical CRD', () => {
    const described = root({
      type: 'object',
      description: 'new text',
      properties: { a: { type: 'string', description: 'Other.' }, list: { type: 'array', items: { type: 'string' } } },
    });
    expect(ids(manifest({ v1: base }), manifest({ v1: described }))).toStrictEqual([]);
  });

  test('CRD-level breaking changes: scope, names, short names, a version no longer served', () => {
    const next = manifest(
      { v1: base },
      {
        spec: { scope: 'Cluster', names: { kind: 'Db', plural: 'databases', singular: 'db', listKind: 'DbList' } },
        version: { served: false },
      },
    );
    expect(ids(manifest({ v1: base }), next)).toStrictEqual([
      'BREAKING scope-changed scope: scope Namespaced → Cluster',
      'BREAKING names-changed names.plural: plural dbs → databases',
      'BREAKING names-changed names.shortNames: removed ["d"]',
      'BREAKING version-unserved v1:served: no longer served while objects may still be stored in it: stop serving it only after a storage migration ' +
        'removed it from status.storedVersions and the baseline records that (the baseline records no status.storedVersions)',
    ]);
  });

  test('a version listed in status.storedVersions is reported as possibly stored when removed', () => {
    const baseline = manifest({ v2: base, v1: base }, { status: { storedVersions: ['v1', 'v2'] } });
    expect(ids(baseline, manifest({ v2: base }))).toStrictEqual([
      expect.stringMatching(/^BREAKING stored-version-removed v1:versions: /),
    ]);
    // without a record any version may hold objects; with one, a served version removed still breaks its clients
    expect(ids(manifest({ v2: base, v1: base }), manifest({ v2: base }))).toStrictEqual([
      expect.stringMatching(/^BREAKING stored-version-removed v1:versions: /),
    ]);
    expect(
      ids(manifest({ v2: base, v1: base }, { status: { storedVersions: ['v2'] } }), manifest({ v2: base })),
    ).toStrictEqual(['BREAKING version-removed v1:versions: version v1 removed']);
  });

  test('/status added or removed is breaking, printer columns are not', () => {
    const withStatus = manifest(
      { v1: base },
      {
        version: {
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }],
        },
      },
    );
    expect(ids(manifest({ v1: base }), withStatus)).toStrictEqual([
      'BREAKING subresource-changed v1:subresources.status: /status subresource added: updates through the main endpoint now ignore status',
      'presentation-changed v1:additionalPrinterColumns: printer columns (none) → A',
    ]);
    expect(ids(withStatus, manifest({ v1: base }))[0]).toBe(
      'BREAKING subresource-changed v1:subresources.status: /status subresource removed',
    );
  });

  test('schema: merge strategy, nullable, unknown fields, item types; loosening is not breaking', () => {
    const b = root({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        list: { type: 'array', items: { type: 'string' } },
        n: { type: 'string', nullable: true },
        m: { type: 'integer', maximum: 3 },
        req: { type: 'string' },
      },
      required: ['req'],
    });
    const c = root({
      type: 'object',
      properties: {
        list: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
        n: { type: 'string' },
        m: { type: 'integer', default: 2 },
        req: { type: 'string' },
        extra: { type: 'boolean' },
      },
    });
    expect(ids(manifest({ v1: b }), manifest({ v1: c }))).toStrictEqual([
      'BREAKING merge-strategy-changed v1:.spec.list: x-kubernetes-list-type "atomic" → "set"',
      'BREAKING type-changed v1:.spec.list[*]: type string → integer',
      'BREAKING validation-tightened v1:.spec.n: nullable true → false',
      'validation-loosened v1:.spec.m: maximum 3 → (unset)',
      'default-changed v1:.spec.m: default (unset) → 2',
      'field-added v1:.spec.extra: new field of type boolean',
      'required-removed v1:.spec.req: no longer required',
      'BREAKING validation-tightened v1:.spec: x-kubernetes-preserve-unknown-fields removed: unknown fields are now pruned',
    ]);
  });

  test('an unset list type equals atomic (no change reported)', () => {
    const explicit = root({
      type: 'object',
      properties: {
        a: { type: 'string', description: 'A.' },
        list: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
      },
    });
    expect(ids(manifest({ v1: base }), manifest({ v1: explicit }))).toStrictEqual([]);
  });
});

describe('CrdBaselines.read', () => {
  test('fails a baseline file holding another CRD or more than one document; undefined when absent', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baselines-'));
    try {
      const baselines = new CrdBaselines(dir);
      expect(baselines.read('dbs.db.example.com')).toBeUndefined();
      fs.writeFileSync(
        baselines.fileOf('dbs.db.example.com'),
        'kind: CustomResourceDefinition\nmetadata:\n  name: other.db.example.com\n',
      );
      expect(() => baselines.read('dbs.db.example.com')).toThrow(
        /holds CRD 'other\.db\.example\.com', expected 'dbs\.db\.example\.com'/,
      );
      fs.writeFileSync(
        baselines.fileOf('dbs.db.example.com'),
        'kind: CustomResourceDefinition\n---\nkind: CustomResourceDefinition\n',
      );
      expect(() => baselines.read('dbs.db.example.com')).toThrow(
        /must hold exactly one CustomResourceDefinition document, got CustomResourceDefinition, CustomResourceDefinition/,
      );
      fs.writeFileSync(baselines.fileOf('dbs.db.example.com'), 'kind: [CustomResourceDefinition\n');
      expect(() => baselines.read('dbs.db.example.com')).toThrow(
        /baseline '.*dbs\.db\.example\.com\.yaml' is not valid YAML: /,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('reads back what write wrote, strings YAML 1.1 would take for booleans or numbers included', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baselines-'));
    try {
      // kubectl reads manifests as YAML 1.1: unquoted, these would come back as true, false, 511, 1000 and 12
      const tricky = ['yes', 'off', '0777', '1_000', '+12', 'y', '2024-01-01', '~'];
      const crd = manifest({
        v1: root({ type: 'object', properties: { mode: { type: 'string', enum: tricky, description: 'no' } } }),
      });
      const baselines = new CrdBaselines(dir);
      const [file] = baselines.write([{ toManifest: () => crd } as any]);
      expect(fs.readFileSync(file, 'utf8')).toMatch(/^# Released CRD schema/);
      expect(baselines.read('dbs.db.example.com')).toStrictEqual(crd);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

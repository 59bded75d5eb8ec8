import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import {
  CrdBaselines,
  CustomResourceDefinition,
  CustomResourceDefinitionProps,
  CrdVersionProps,
  EvolutionOptions,
  OperatorApp,
  Schema,
  Warnings,
} from '../../lib';

/** Version v1 of a small CRD as released: the baseline of every test. */
function v1(overrides: Partial<CrdVersionProps> = {}): CrdVersionProps {
  return {
    name: 'v1',
    spec: Schema.object({
      description: 'Desired state.',
      properties: {
        replicas: Schema.integer({ description: 'Pods.', minimum: 1, maximum: 9, default: 1 }),
        tier: Schema.string({ description: 'Service tier.', enum: ['small', 'large'] }),
        legacy: Schema.string({ description: 'Unused.' }),
      },
    }),
    status: Schema.object({ properties: { ready: Schema.boolean({ description: 'Ready.' }) } }),
    ...overrides,
  };
}

function props(versions: CrdVersionProps[]): CustomResourceDefinitionProps {
  return { group: 'db.example.com', kind: 'Db', versions };
}

describe('OperatorApp evolution option', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evolution-'));
    // GIVEN a released baseline of v1
    const released = Testing.chart();
    new CrdBaselines(dir).write([new CustomResourceDefinition(released, 'Db', props([v1()]))]);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** An app that compares its CRDs with the baselines in `dir`. */
  function guardedApp(evolution: Partial<EvolutionOptions> = {}): OperatorApp {
    return new OperatorApp({
      outdir: path.join(dir, 'out'),
      report: false,
      descriptionCheck: false,
      evolution: { baselineDir: dir, ...evolution },
    });
  }

  /** Synthesizes the CRD built from `versions` under a guard; returns the errors (empty when synth passed). */
  function synthErrors(versions: CrdVersionProps[], acknowledge: any[] = []): string {
    const app = guardedApp({ acknowledge });
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props(versions));
    try {
      app.synth();
      return '';
    } catch (e) {
      return (e as Error).message;
    }
  }

  test('writes the baseline as <plural>.<group>.yaml', () => {
    const doc = yaml.parse(fs.readFileSync(path.join(dir, 'dbs.db.example.com.yaml'), 'utf8'));
    expect(doc.kind).toBe('CustomResourceDefinition');
    expect(doc.spec.versions.map((v: any) => v.name)).toStrictEqual(['v1']);
  });

  test('an unchanged CRD passes and records no change', () => {
    const app = guardedApp();
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1()]));
    app.synth();
    expect(app.evolutionResults).toStrictEqual([
      expect.objectContaining({ crd: 'dbs.db.example.com', hasBaseline: true, changes: [] }),
    ]);
  });

  test('fails a removed field, naming the construct, field and how to acknowledge it', () => {
    const spec = Schema.object({
      properties: {
        replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }),
        tier: Schema.string({ enum: ['small', 'large'] }),
      },
    });
    const err = synthErrors([v1({ spec })]);
    expect(err).toMatch(
      /\[db\/Db\] evolution: dbs\.db\.example\.com: BREAKING field-removed v1:\.spec\.legacy: field removed/,
    );
    expect(err).toContain("{ change: 'field-removed v1:.spec.legacy', reason: '…' }");
  });

  test('a new storage version with the same schema passes (recorded, not breaking); dropping the released storage version fails', () => {
    // v1 stays served, v2 added as the storage version: the storage migration moves the objects
    const v2: CrdVersionProps = { ...v1(), name: 'v2', storage: true };
    expect(synthErrors([v1({ storage: false }), v2])).toBe('');
    const app = guardedApp();
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1({ storage: false }), v2]));
    app.synth();
    expect(app.evolutionResults[0].changes.map((c) => `${c.breaking ? 'BREAKING ' : ''}${c.id}`)).toEqual([
      'storage-version-changed storage',
      'version-added v2:versions',
    ]);
    // …dropping v1, the released storage version, is caught as such
    const err = synthErrors([v2]);
    expect(err).toMatch(
      /BREAKING stored-version-removed v1:versions: version v1 removed while objects may still be stored in it/,
    );
  });

  test('a breaking change inside a served version is refused with the advice to add a new version with a conversion', () => {
    const spec = Schema.object({
      properties: {
        replicas: Schema.string({ default: '1' }),
        tier: Schema.string({ enum: ['small', 'large'] }),
        legacy: Schema.string(),
      },
    });
    const err = synthErrors([v1({ spec })]);
    expect(err).toContain('BREAKING type-changed v1:.spec.replicas: type integer → string');
    expect(err).toContain(
      'v1 is served: its clients and stored manifests still use the released schema. Keep v1 as released and make the change in a new version (e.g. v2) with a conversion between them',
    );
  });

  describe('a field renamed or re-typed across versions', () => {
    // v2 renames legacy → note and makes replicas a string
    const v2spec = Schema.object({
      properties: {
        replicas: Schema.string({ default: '1' }),
        tier: Schema.string({ enum: ['small', 'large'] }),
        note: Schema.string(),
      },
    });
    const versions = (): CrdVersionProps[] => [
      v1({ storage: false }),
      { ...v1(), name: 'v2', storage: true, spec: v2spec },
    ];

    test('without a conversion is breaking: the apiserver would only rewrite apiVersion', () => {
      const err = synthErrors(versions());
      expect(err).toContain(
        'BREAKING conversion-missing v2:.spec.legacy: v1 → v2: field removed (pruned from every request), and conversion strategy is None',
      );
      expect(err).toContain('BREAKING conversion-missing v2:.spec.replicas: v1 → v2: type integer → string');
    });

    test('with a conversion webhook declared is fine, and recorded', () => {
      const app = guardedApp();
      const crd = new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props(versions()));
      crd.setConversionWebhook({ service: { name: 'op-webhook', namespace: 'op-system' } });
      app.synth();
      const changes = app.evolutionResults[0].changes;
      expect(changes.filter((c) => c.breaking)).toEqual([]);
      expect(changes.map((c) => c.id)).toEqual(
        expect.arrayContaining([
          'conversion-added conversion.strategy',
          'converted-change v2:.spec.legacy',
          'converted-change v2:.spec.replicas',
        ]),
      );
      expect(crd.toManifest().spec.conversion).toEqual({
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { namespace: 'op-system', name: 'op-webhook', path: '/convert', port: 443 } },
          conversionReviewVersions: ['v1'],
        },
      });
    });
  });

  describe('a version stops being served only after a baseline records that migration removed it from storedVersions', () => {
    const v2 = (): CrdVersionProps => ({ ...v1(), name: 'v2', storage: true });
    beforeEach(() => {
      // released: v1 and v2, v2 the storage version
      new CrdBaselines(dir).write([
        new CustomResourceDefinition(Testing.chart(), 'Db', props([v1({ storage: false }), v2()])),
      ]);
    });

    test('refused while the baseline records no storedVersions (v1 objects may still be stored)', () => {
      expect(synthErrors([v1({ storage: false, served: false }), v2()])).toContain(
        'BREAKING version-unserved v1:served: no longer served while objects may still be stored in it',
      );
      expect(synthErrors([v2()])).toContain('BREAKING stored-version-removed v1:versions');
    });

    test('refused while the recorded storedVersions still hold it', () => {
      new CrdBaselines(dir).write(
        [new CustomResourceDefinition(Testing.chart(), 'Db', props([v1({ storage: false }), v2()]))],
        { storedVersions: { 'dbs.db.example.com': ['v1', 'v2'] } },
      );
      expect(synthErrors([v1({ storage: false, served: false }), v2()])).toContain(
        '(the baseline records status.storedVersions ["v1","v2"])',
      );
    });

    test('allowed once the baseline records storedVersions [v2]; then removing the unserved v1 is allowed too', () => {
      new CrdBaselines(dir).write(
        [new CustomResourceDefinition(Testing.chart(), 'Db', props([v1({ storage: false }), v2()]))],
        { storedVersions: { 'dbs.db.example.com': ['v2'] } },
      );
      expect(
        yaml.parse(
          fs
            .readFileSync(path.join(dir, 'dbs.db.example.com.yaml'), 'utf8')
            .split('\n')
            .filter((l) => !l.startsWith('#'))
            .join('\n'),
        ).status,
      ).toEqual({ storedVersions: ['v2'] });
      const app = guardedApp();
      new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1({ storage: false, served: false }), v2()]));
      app.synth();
      expect(app.evolutionResults[0].changes.map((c) => `${c.breaking ? 'BREAKING ' : ''}${c.id}`)).toEqual([
        'version-retired v1:served',
      ]);
      // the next release records it and drops v1 (unserved, not stored)
      new CrdBaselines(dir).write([
        new CustomResourceDefinition(Testing.chart(), 'Db', props([v1({ storage: false, served: false }), v2()])),
      ]);
      expect(synthErrors([v2()])).toBe('');
    });
  });

  test.each([
    [
      'maximum lowered',
      Schema.integer({ minimum: 1, maximum: 5, default: 1 }),
      'validation-tightened v1:.spec.replicas: maximum 9 → 5',
    ],
    [
      'minimum raised',
      Schema.integer({ minimum: 2, maximum: 9, default: 2 }),
      'validation-tightened v1:.spec.replicas: minimum 1 → 2',
    ],
    ['type changed', Schema.string({ default: '1' }), 'type-changed v1:.spec.replicas: type integer → string'],
  ])('fails tightened validation: %s', (_name, replicas, expected) => {
    const spec = Schema.object({
      properties: { replicas, tier: Schema.string({ enum: ['small', 'large'] }), legacy: Schema.string() },
    });
    expect(synthErrors([v1({ spec })])).toContain(`BREAKING ${expected}`);
  });

  test('fails an enum value removed, a pattern added and a CEL rule added', () => {
    const spec = Schema.object({
      properties: {
        replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }),
        tier: Schema.string({ enum: ['small'] }),
        legacy: Schema.string({ pattern: '^[a-z]+$' }),
      },
      validations: [{ rule: 'self.replicas <= 3 || self.tier == "large"', message: 'small tier allows 3 replicas' }],
    });
    const err = synthErrors([v1({ spec })]);
    expect(err).toContain('BREAKING validation-tightened v1:.spec.tier: enum values removed: ["large"]');
    expect(err).toContain('BREAKING validation-tightened v1:.spec.legacy: pattern (unset) → "^[a-z]+$"');
    expect(err).toContain(
      'BREAKING rule-added v1:.spec: CEL rule added: "self.replicas <= 3 || self.tier == \\"large\\""',
    );
  });

  test('fails a new required field without a default, accepts one with a default', () => {
    const withRequired = (zone: any) =>
      Schema.object({
        properties: {
          replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }),
          tier: Schema.string({ enum: ['small', 'large'] }),
          legacy: Schema.string(),
          zone,
        },
        required: ['zone'],
      });
    expect(synthErrors([v1({ spec: withRequired(Schema.string()) })])).toContain(
      'BREAKING required-added v1:.spec.zone: now required, without a default',
    );
    expect(synthErrors([v1({ spec: withRequired(Schema.string({ default: 'a' })) })])).toBe('');
  });

  test('an acknowledged change passes, is recorded with its reason, and other changes still fail', () => {
    const spec = Schema.object({
      properties: {
        replicas: Schema.integer({ minimum: 1, maximum: 5, default: 1 }),
        tier: Schema.string({ enum: ['small', 'large'] }),
      },
    });
    const ack = { change: 'field-removed v1:.spec.legacy', reason: 'never set by any user' };
    expect(synthErrors([v1({ spec })], [ack])).not.toContain('field-removed');
    expect(
      synthErrors(
        [v1({ spec })],
        [
          ack,
          {
            change: /^validation-tightened v1:\.spec\.replicas$/,
            reason: 'max 5 enforced by the controller since 0.2',
          },
        ],
      ),
    ).toBe('');
  });

  test('acknowledged changes are visible to the report; a stale acknowledgement warns', () => {
    const spec = Schema.object({
      properties: {
        replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }),
        tier: Schema.string({ enum: ['small', 'large', 'xl'] }),
      },
    });
    const app = guardedApp({
      acknowledge: [
        { change: 'field-removed v1:.spec.legacy', reason: 'never set' },
        { change: 'version-removed v0', reason: 'stale' },
      ],
    });
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1({ spec })]));
    app.synth();
    const [evolution] = app.evolutionResults;
    expect(evolution.changes.map((c) => [c.id, c.breaking, c.acknowledged])).toStrictEqual([
      ['validation-loosened v1:.spec.tier', false, undefined],
      ['field-removed v1:.spec.legacy', true, 'never set'],
    ]);
    expect(Warnings.collect(app)).toStrictEqual([
      '[] evolution: acknowledge[1] (version-removed v0) matches no breaking change; remove it',
    ]);
  });

  test('a CRD without a baseline is new; requireBaseline fails it', () => {
    const app = guardedApp();
    new CustomResourceDefinition(new Chart(app, 'db'), 'Other', {
      group: 'db.example.com',
      kind: 'Other',
      versions: [v1()],
    });
    app.synth();
    expect(app.evolutionResults).toStrictEqual([
      expect.objectContaining({ crd: 'others.db.example.com', hasBaseline: false }),
    ]);
    const strict = guardedApp({ requireBaseline: true });
    new CustomResourceDefinition(new Chart(strict, 'db'), 'Other', {
      group: 'db.example.com',
      kind: 'Other',
      versions: [v1()],
    });
    expect(() => strict.synth()).toThrow(/others\.db\.example\.com: no baseline at .*others\.db\.example\.com\.yaml/);
  });

  test('an acknowledgement without a reason fails synth, reported with the other problems', () => {
    const app = guardedApp({ acknowledge: [{ change: 'x', reason: ' ' }] });
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1()]));
    expect(() => app.synth()).toThrow(/evolution\.acknowledge\[0\]\.reason: must say why the change is safe, got " "/);
  });
});

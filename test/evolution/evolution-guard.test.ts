import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { CrdBaselines, CustomResourceDefinition, CustomResourceDefinitionProps, CrdVersionProps, EvolutionOptions, OperatorApp, Schema, Warnings } from '../../lib';

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
    return new OperatorApp({ outdir: path.join(dir, 'out'), report: false, descriptionCheck: false, evolution: { baselineDir: dir, ...evolution } });
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
    expect(app.evolutionResults).toStrictEqual([expect.objectContaining({ crd: 'dbs.db.example.com', hasBaseline: true, changes: [] })]);
  });

  test('fails a removed field, naming the construct, field and how to acknowledge it', () => {
    const spec = Schema.object({ properties: { replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }), tier: Schema.string({ enum: ['small', 'large'] }) } });
    const err = synthErrors([v1({ spec })]);
    expect(err).toMatch(/\[db\/Db\] evolution: dbs\.db\.example\.com: BREAKING field-removed v1:\.spec\.legacy: field removed/);
    expect(err).toContain("{ change: 'field-removed v1:.spec.legacy', reason: '…' }");
  });

  test('fails a removed version that was never stored, and one that may still be stored', () => {
    // v1 stays (as storage), v2 added: non-breaking by itself…
    const v2: CrdVersionProps = { ...v1(), name: 'v2', storage: true };
    expect(synthErrors([v1({ storage: false }), v2])).toMatch(/storage-version-changed storage: storage version v1 → v2/);
    // …dropping v1, the released storage version, is caught as such
    const err = synthErrors([v2]);
    expect(err).toMatch(/BREAKING stored-version-removed v1:versions: version v1 removed while objects may still be stored in it/);
  });

  test.each([
    ['maximum lowered', Schema.integer({ minimum: 1, maximum: 5, default: 1 }), 'validation-tightened v1:.spec.replicas: maximum 9 → 5'],
    ['minimum raised', Schema.integer({ minimum: 2, maximum: 9, default: 2 }), 'validation-tightened v1:.spec.replicas: minimum 1 → 2'],
    ['type changed', Schema.string({ default: '1' }), 'type-changed v1:.spec.replicas: type integer → string'],
  ])('fails tightened validation: %s', (_name, replicas, expected) => {
    const spec = Schema.object({ properties: { replicas, tier: Schema.string({ enum: ['small', 'large'] }), legacy: Schema.string() } });
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
    expect(err).toContain('BREAKING rule-added v1:.spec: CEL rule added: "self.replicas <= 3 || self.tier == \\"large\\""');
  });

  test('fails a new required field without a default, accepts one with a default', () => {
    const withRequired = (zone: any) => Schema.object({
      properties: { replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }), tier: Schema.string({ enum: ['small', 'large'] }), legacy: Schema.string(), zone },
      required: ['zone'],
    });
    expect(synthErrors([v1({ spec: withRequired(Schema.string()) })]))
      .toContain('BREAKING required-added v1:.spec.zone: now required, without a default');
    expect(synthErrors([v1({ spec: withRequired(Schema.string({ default: 'a' })) })])).toBe('');
  });

  test('an acknowledged change passes, is recorded with its reason, and other changes still fail', () => {
    const spec = Schema.object({ properties: { replicas: Schema.integer({ minimum: 1, maximum: 5, default: 1 }), tier: Schema.string({ enum: ['small', 'large'] }) } });
    const ack = { change: 'field-removed v1:.spec.legacy', reason: 'never set by any user' };
    expect(synthErrors([v1({ spec })], [ack])).not.toContain('field-removed');
    expect(synthErrors([v1({ spec })], [ack, { change: /^validation-tightened v1:\.spec\.replicas$/, reason: 'max 5 enforced by the controller since 0.2' }])).toBe('');
  });

  test('acknowledged changes are visible to the report; a stale acknowledgement warns', () => {
    const spec = Schema.object({ properties: { replicas: Schema.integer({ minimum: 1, maximum: 9, default: 1 }), tier: Schema.string({ enum: ['small', 'large', 'xl'] }) } });
    const app = guardedApp({
      acknowledge: [
        { change: 'field-removed v1:.spec.legacy', reason: 'never set' },
        { change: 'version-removed v0', reason: 'stale' },
      ],
    });
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1({ spec })]));
    app.synth();
    const [evolution] = app.evolutionResults;
    expect(evolution.changes.map(c => [c.id, c.breaking, c.acknowledged])).toStrictEqual([
      ['validation-loosened v1:.spec.tier', false, undefined],
      ['field-removed v1:.spec.legacy', true, 'never set'],
    ]);
    expect(Warnings.collect(app)).toStrictEqual(['[] evolution: acknowledge[1] (version-removed v0) matches no breaking change; remove it']);
  });

  test('a CRD without a baseline is new; requireBaseline fails it', () => {
    const app = guardedApp();
    new CustomResourceDefinition(new Chart(app, 'db'), 'Other', { group: 'db.example.com', kind: 'Other', versions: [v1()] });
    app.synth();
    expect(app.evolutionResults).toStrictEqual([expect.objectContaining({ crd: 'others.db.example.com', hasBaseline: false })]);
    const strict = guardedApp({ requireBaseline: true });
    new CustomResourceDefinition(new Chart(strict, 'db'), 'Other', { group: 'db.example.com', kind: 'Other', versions: [v1()] });
    expect(() => strict.synth()).toThrow(/others\.db\.example\.com: no baseline at .*others\.db\.example\.com\.yaml/);
  });

  test('an acknowledgement without a reason fails synth, reported with the other problems', () => {
    const app = guardedApp({ acknowledge: [{ change: 'x', reason: ' ' }] });
    new CustomResourceDefinition(new Chart(app, 'db'), 'Db', props([v1()]));
    expect(() => app.synth()).toThrow(/evolution\.acknowledge\[0\]\.reason: must say why the change is safe, got " "/);
  });
});

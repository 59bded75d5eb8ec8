import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'yaml';
import { KUBERNETES_VERSIONS } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinRawSchemas } from '../../../lib/apiserver/admission-policy/builtin-openapi';
import { checkCelRules } from '../../../lib/apiserver/cel/check-rules';
import { CrdManifest } from '../../../lib/apiserver/crd-manifest';
import { decodeCrd } from '../../../lib/apiserver/crd-validation/crd-decoding';
import { checkListAndMapTypes } from '../../../lib/apiserver/crd-validation/list-map-types';
import { SchemaCheckMemo } from '../../../lib/apiserver/crd-validation/schema-check-memo';
import { checkStructuralSchema } from '../../../lib/apiserver/crd-validation/structural-schema';
import { validateCrdManifest, validateCrdManifestWith } from '../../../lib/apiserver/crd-validation/validate-crd';
import { checkCrdForVersions } from '../../../lib/apiserver/crd-validation/version-support';

/**
 * The memo and the index that make synth's per-version checks cheap change no verdict: with a memo shared by every
 * call of a CRD's checks (as CustomResourceDefinition, the report's minimum versions and the CRD reference share
 * one), each call finds what it finds with a fresh memo.
 */
const VENDORED = path.join(__dirname, '..', '..', '..', 'vendor', 'crds');
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'realworld-crds');
const crd = (file: string) => yaml.parse(fs.readFileSync(file, 'utf8')) as CrdManifest;
// CRDs with CEL rules (cost and environment differ by version), optionalOldSelf-free and with many versions
const CRDS: Array<[string, CrdManifest]> = [
  ...fs
    .readdirSync(VENDORED)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => [f, crd(path.join(VENDORED, f))] as [string, CrdManifest]),
  ...fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.yaml'))
    .slice(0, 6)
    .map((f) => [f, crd(path.join(FIXTURES, f))] as [string, CrdManifest]),
  [
    'a CRD with rules only newer versions compile, optionalOldSelf and selectableFields',
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            selectableFields: [{ jsonPath: '.spec.size' }],
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      size: { type: 'string', maxLength: 10 },
                      version: { type: 'string', maxLength: 20 },
                      items: { type: 'array', items: { type: 'string', maxLength: 5 } },
                    },
                    'x-kubernetes-validations': [
                      { rule: "quantity(self.size).isGreaterThan(quantity('1'))" },
                      { rule: 'isSemver(self.version)' },
                      { rule: 'self.items.all(i, i != "")' },
                      { rule: 'self.size == oldSelf.size', optionalOldSelf: true },
                    ],
                  },
                },
              },
            },
          },
        ],
      },
    } as unknown as CrdManifest,
  ],
];

describe('SchemaCheckMemo', () => {
  test.each(CRDS)(
    '%s: checked with one memo for every version set, each answer equals a fresh check',
    (_name, manifest) => {
      const memo = new SchemaCheckMemo();
      const sets = [KUBERNETES_VERSIONS, ...KUBERNETES_VERSIONS.map((v) => [v]), KUBERNETES_VERSIONS.slice(2)];
      // the same order as CustomResourceDefinition: the manifest's checks first, then the versions'
      expect(validateCrdManifestWith(manifest, KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1], memo)).toEqual(
        validateCrdManifest(manifest, KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]),
      );
      for (const versions of sets) {
        expect(checkCrdForVersions(manifest, versions, memo)).toEqual(checkCrdForVersions(manifest, versions));
      }
    },
  );

  test('the synthetic CRD reaches what differs by version (the comparison above is not vacuous)', () => {
    const manifest = CRDS[CRDS.length - 1][1];
    const messages = checkCrdForVersions(manifest, KUBERNETES_VERSIONS)
      .map((i) => `${i.path}: ${i.message}`)
      .join('\n');
    expect(messages).toMatch(/selectableFields: Forbidden: fails on Kubernetes 1\.28, 1\.29, 1\.30/);
    expect(messages).toMatch(/optionalOldSelf: Forbidden: unknown field "optionalOldSelf": .* on Kubernetes 1\.28 \(/);
    expect(messages).toMatch(
      /optionalOldSelf: Kubernetes 1\.29 drops it while the CRDValidationRatcheting feature gate/,
    );
    expect(messages).toMatch(/compilation fails on Kubernetes 1\.28/);
  });

  test('each schema is checked once per key: the second answer is the first', () => {
    const memo = new SchemaCheckMemo();
    const schema = CRDS[CRDS.length - 1][1].spec.versions[0].schema!.openAPIV3Schema!;
    const path_ = 'spec.versions[0].schema.openAPIV3Schema';
    const rules = memo.celRuleIssues(schema, path_, '1.28');
    expect(rules).toEqual(checkCelRules(schema, path_, '1.28'));
    expect(memo.celRuleIssues(schema, path_, '1.28')).toBe(rules);
    expect(memo.celRuleIssues(schema, path_, '1.36')).toEqual(checkCelRules(schema, path_, '1.36'));
    const structural = memo.structuralIssues(schema, path_);
    expect(structural).toEqual([...checkStructuralSchema(schema, path_), ...checkListAndMapTypes(schema, path_)]);
    expect(memo.structuralIssues(schema, path_)).toBe(structural);
    // the manifest decoded once per types: versions with the newest types share the newest decoding
    const manifest = CRDS[CRDS.length - 1][1];
    const newest = memo.decodedCrd(manifest);
    expect(newest).toEqual(decodeCrd(manifest));
    expect(memo.decodedCrd(manifest, ['1.36'])).toBe(newest);
    const older = memo.decodedCrd(manifest, ['1.28']);
    expect(older).toEqual(decodeCrd(manifest, ['1.28']));
    expect(memo.decodedCrd(manifest, ['1.28'])).toBe(older);
    expect(older.issues).not.toEqual(newest.issues);
  });
});

describe('builtinRawSchemas', () => {
  test('the index finds, for every kind a vendored schema declares, the schema a scan of them finds first', () => {
    const { schemas } = builtinRawSchemas({ group: '', version: 'v1', kind: 'Pod' });
    const declared = Object.values(schemas).flatMap(
      (s) => (s['x-kubernetes-group-version-kind'] ?? []) as Array<{ group: string; version: string; kind: string }>,
    );
    expect(declared.length).toBeGreaterThan(100);
    for (const gvk of declared) {
      const scanned = Object.keys(schemas).find((n) =>
        ((schemas[n]['x-kubernetes-group-version-kind'] ?? []) as typeof declared).some(
          (g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind,
        ),
      );
      expect(builtinRawSchemas(gvk).name).toBe(scanned);
    }
    expect(builtinRawSchemas({ group: '', version: 'v1', kind: 'Pod' }).name).toBe('io.k8s.api.core.v1.Pod');
    expect(builtinRawSchemas({ group: 'example.com', version: 'v1', kind: 'Widget' }).name).toBeUndefined();
  });
});

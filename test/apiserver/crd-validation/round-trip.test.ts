import * as fs from 'fs';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import * as yaml from 'yaml';
import { defineCrds } from '../../../apps/crds';
import { CrdManifest, CustomResourceDefinition, formatIssue, validateValue } from '../../../lib';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { fieldPaths, sampleFromSchema } from '../../support/sample-from-schema';

const VENDOR = path.join(__dirname, '..', '..', '..', 'vendor', 'crds');
const vendored: CrdManifest[] = fs
  .readdirSync(VENDOR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => yaml.parse(fs.readFileSync(path.join(VENDOR, f), 'utf8')));
const ours: CrdManifest[] = defineCrds(new Chart(new App(), 'crds')).map((c) => c.toManifest());

// cert-manager's practice: an object using every declared field survives the CRD schema unpruned.
describe.each([...ours.map((m) => ['app CRD', m] as const), ...vendored.map((m) => ['vendored CRD', m] as const)])(
  '%s %s round trip',
  (origin, manifest) => {
    test.each(manifest.spec.versions.map((v) => [v.name, v] as const))(
      `${manifest.metadata.name} %s: every declared field is kept`,
      (_name, version) => {
        const schema = version.schema!.openAPIV3Schema!;
        const spec = sampleFromSchema(schema.properties!.spec!);
        expect(spec).toBeDefined();
        const object = {
          apiVersion: `${manifest.spec.group}/${version.name}`,
          kind: manifest.spec.names.kind,
          metadata: { name: 'round-trip' },
          spec,
        };
        const { issues, value } = validateValue(schema, object);
        expect(issues.filter((i) => /unknown field/.test(i.message)).map(formatIssue)).toEqual([]);
        // Defaults only add fields: nothing sent is lost.
        const kept = new Set(fieldPaths(value));
        expect(fieldPaths(object).filter((p) => !kept.has(p))).toEqual([]);
        if (origin === 'app CRD') expect(errorsOf(issues).map(formatIssue)).toEqual([]);
      },
    );
  },
);

test('the round trip catches a field the schema would prune', () => {
  const crd = ours[0];
  const schema = crd.spec.versions[0].schema!.openAPIV3Schema!;
  const { issues } = validateValue(schema, {
    apiVersion: 'x/v1',
    kind: 'K',
    metadata: { name: 'a' },
    spec: { ...(sampleFromSchema(schema.properties!.spec!) as object), extra: 1 },
  });
  expect(issues.map(formatIssue).join('\n')).toMatch(/spec\.extra.*unknown field/);
});

test('app CRDs are CustomResourceDefinition constructs', () => {
  expect(
    defineCrds(new Chart(new App(), 'c')).every((c) => CustomResourceDefinition.isCustomResourceDefinition(c)),
  ).toBe(true);
});

import { Testing } from 'cdk8s';
import { CustomResourceDefinition, renderCrdReference, Schema } from '../../lib';
import { documentedManifest } from '../../lib/docs/api-docs';
import { fieldsWithoutDescription } from '../../lib/docs/missing-descriptions';

function widget(stripDescriptions?: string[]) {
  const chart = Testing.chart();
  return new CustomResourceDefinition(chart, 'Widget', {
    group: 'toys.example.com',
    kind: 'Widget',
    shortNames: ['wd'],
    stripDescriptions,
    versions: [
      {
        name: 'v1',
        spec: Schema.object({
          description: 'Desired state of a widget.',
          properties: {
            size: Schema.string({ description: 'How big | how small.', enum: ['S', 'M'], default: 'S' }),
            count: Schema.integer({ description: 'How many.', minimum: 1, maximum: 5, format: 'int32' }),
            parts: Schema.array(
              Schema.object({
                description: 'One part.',
                properties: { name: Schema.string({ description: 'Part name.', maxLength: 8 }) },
                required: ['name'],
              }),
              { description: 'Parts, keyed by name.', listType: 'map', listMapKeys: ['name'], maxItems: 4 },
            ),
            labels: Schema.map(Schema.string({ maxLength: 63 }), { description: 'Free-form labels.' }),
          },
          required: ['count'],
          validations: [
            {
              rule: 'self.count <= 3 || self.size == "M"',
              message: 'small widgets have at most 3',
              fieldPath: '.count',
            },
          ],
        }),
        status: Schema.object({
          description: 'Observed.',
          properties: { ready: Schema.boolean({ description: 'Ready.' }) },
        }),
        printerColumns: [{ name: 'Size', type: 'string', jsonPath: '.spec.size', description: 'Widget size' }],
      },
    ],
  });
}

describe('renderCrdReference', () => {
  test('names the Kubernetes versions the CRD installs on, and why the one before does not', () => {
    expect(renderCrdReference(widget().toManifest())).toContain(
      '| Kubernetes | 1.28 to 1.37 (every supported version) |',
    );
    const manifest = JSON.parse(JSON.stringify(widget().toManifest()));
    manifest.spec.versions[0].selectableFields = [{ jsonPath: '.spec.size' }];
    expect(renderCrdReference(manifest)).toMatch(
      /\| Kubernetes \| 1\.31 to 1\.37 \(1\.30: spec\.versions\[0\]\.selectableFields: Forbidden: fails on Kubernetes 1\.30: selectableFields needs 1\.31 or newer/,
    );
  });

  test('documents names, versions, subresources, printer columns, every field and every CEL rule', () => {
    // GIVEN
    const crd = widget();
    // WHEN
    const page = renderCrdReference(documentedManifest(crd));
    // THEN
    expect(page).toContain('# Widget');
    expect(page).toContain('| Short names | `wd` |');
    expect(page).toContain('| `v1` | yes | yes | no |');
    expect(page).toContain('kubectl explain widgets.spec --api-version=toys.example.com/v1 --recursive');
    expect(page).toContain('- `/status`: `status` is written through the status subresource only');
    expect(page).toContain('| Size | string | `.spec.size` | always | Widget size |');
    expect(page).toContain('| `.spec.size` | `string` |  | `"S"` | one of `"S"`, `"M"` | How big \\| how small. |');
    expect(page).toContain('| `.spec.count` | `integer (int32)` | yes |  | 1 ≤ value ≤ 5 | How many. |');
    expect(page).toContain(
      '| `.spec.parts` | `[]object` |  |  | items ≤ 4<br>list map keyed by `name` | Parts, keyed by name. |',
    );
    expect(page).toContain('| `.spec.parts[*].name` | `string` | yes |  | length ≤ 8 | Part name. |');
    expect(page).toContain('| `.spec.labels` | `map[string]string` |  |  |  | Free-form labels. |');
    expect(page).toContain('| `.spec.labels[*]` | `string` |  |  | length ≤ 63 |  |');
    expect(page).toContain(
      '| `.spec` | `self.count <= 3 \\|\\| self.size == "M"` | small widgets have at most 3 | create, update | `.spec.count` |',
    );
    // apiVersion/kind/metadata are Kubernetes', not the CRD's
    expect(page).not.toContain('`.metadata`');
  });

  test('keeps descriptions that stripDescriptions drops from the manifest', () => {
    const crd = widget(['*']);
    expect(JSON.stringify(crd.toManifest())).not.toContain('How many.');
    expect(renderCrdReference(documentedManifest(crd))).toContain('How many.');
  });

  test('shows example objects under their version', () => {
    const page = renderCrdReference(documentedManifest(widget()), {
      examples: [
        { apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { count: 1 } },
        { apiVersion: 'toys.example.com/v2', kind: 'Widget', metadata: { name: 'other-version' } },
      ],
    });
    expect(page).toContain(
      '```yaml\napiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  count: 1\n```',
    );
    expect(page).not.toContain('other-version');
  });
});

describe('fieldsWithoutDescription', () => {
  test('lists fields kubectl explain would show without a description, not element schemas', () => {
    const crd = widget();
    expect(fieldsWithoutDescription(crd.schemaFor('v1'))).toStrictEqual([]);
    const bare = Schema.object({
      properties: { a: Schema.string(), list: Schema.array(Schema.string(), { description: 'L.' }) },
    });
    expect(
      fieldsWithoutDescription({ type: 'object', properties: { apiVersion: { type: 'string' }, spec: bare } }),
    ).toStrictEqual(['.spec', '.spec.a']);
  });
});

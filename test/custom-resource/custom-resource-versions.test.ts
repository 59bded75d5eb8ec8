import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Chart } from 'cdk8s';
import { OperatorApp } from '../../lib';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { CustomResource } from '../../lib/custom-resource/custom-resource';

/**
 * An example custom resource is checked against every version of the app's range, in each version's wording: what
 * every version says alike is reported once, as it is; what only some versions report, or word otherwise, names them
 * (the wordings themselves are compared with each apiserver in test/apiserver/message-wording.test.ts).
 */
function synthErrors(range: { min?: string; max?: string }, spec: Record<string, unknown>): string[] {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-versions-'));
  const app = new OperatorApp({
    outdir: path.join(outdir, 'dist'),
    report: false,
    policy: false,
    descriptionCheck: false,
    kubernetesVersions: range,
  });
  const chart = new Chart(app, 'chart');
  new CustomResourceDefinition(chart, 'Crd', {
    group: 'versions.example.com',
    kind: 'Gadget',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        spec: {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 3 },
            count: { type: 'integer', format: 'int32' },
            mode: { type: 'string', enum: ['a', 'b'] },
          },
        },
      },
    ],
  });
  new CustomResource(chart, 'Example', {
    apiVersion: 'versions.example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g' },
    spec,
  });
  try {
    app.synth();
    return [];
  } catch (e) {
    return (e as Error).message
      .split('\n')
      .filter((l) => l.includes('[chart/Example]'))
      .map((l) => l.replace(/^.*\[chart\/Example\] /, ''));
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

describe("an example custom resource across the app's Kubernetes range", () => {
  test('a wording that changes within the range is one problem: the newest words, the older ones named after them', () => {
    expect(synthErrors({ min: '1.28', max: '1.36' }, { name: 'abcd' })).toStrictEqual([
      'spec.name: Too long: may not be more than 3 bytes (got "abcd") (on Kubernetes 1.28, 1.29, 1.30, 1.31 worded: Too long: may not be longer than 3)',
    ]);
  });

  test('what every version of the range says alike is reported once, without versions', () => {
    expect(synthErrors({ min: '1.32', max: '1.36' }, { name: 'abcd' })).toStrictEqual([
      'spec.name: Too long: may not be more than 3 bytes (got "abcd")',
    ]);
    expect(synthErrors({ min: '1.28', max: '1.36' }, { mode: 'c' })).toStrictEqual([
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
    ]);
  });

  test('a verdict of only some versions names them (1.36 enforces int32)', () => {
    expect(synthErrors({ min: '1.32', max: '1.36' }, { count: 2 ** 31 })).toStrictEqual([
      'on Kubernetes 1.36: <nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.count',
    ]);
    expect(synthErrors({ min: '1.28', max: '1.35' }, { count: 2 ** 31 })).toStrictEqual([]);
  });

  test("a value printed otherwise from 1.34 (JSON instead of Go's %#v)", () => {
    expect(synthErrors({ min: '1.33', max: '1.34' }, { mode: ['a'] })).toStrictEqual([
      'spec.mode: Invalid value: "array": spec.mode in body must be of type string: "array" (got ["a"])',
      'spec.mode: Unsupported value: ["a"]: supported values: "a", "b" (on Kubernetes 1.33 worded: Unsupported value: []interface {}{"a"}: supported values: "a", "b" (got ["a"]))',
    ]);
  });
});

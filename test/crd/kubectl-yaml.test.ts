import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Testing } from 'cdk8s';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { loadKubectlYaml } from '../../lib/crd/kubectl-yaml';
import { describeRealApiServer, kubectl } from '../envtest';

// Plain scalars whose meaning differs between YAML 1.1 (kubectl: sigs.k8s.io/yaml on go-yaml v2) and the
// YAML 1.2 core schema (what JavaScript YAML parsers read by default).
const SCALARS = `
  yes1: yes
  yes2: Yes
  y: Y
  on1: on
  off1: OFF
  no1: no
  quoted: "yes"
  octal: 0777
  octal2: 0o17
  hex: 0x1F
  negativeHex: -0x10
  binary: 0b101
  underscores: 1_000
  plus: +12
  notOctal: 09
  exponent: 1e3
  dotFloat: .5
  date: 2001-12-14
  timestamp: 2001-12-14T21:59:43Z
  version: 1.2.3
  sexagesimal: 190:20:30
  tilde: ~
  toString: constructor
  negativeZero: -0
  empty:
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.yaml.example.com
spec:
  group: yaml.example.com
  scope: Namespaced
  names: { kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`;

/** A CRD whose only interesting part is the default of `spec.enabled`, written unquoted. */
function crdWithDefault(type: string, written: string): string {
  return CRD.replace('gadgets.yaml.example.com', `${type.toLowerCase()}s.yaml.example.com`)
    .replace(
      'kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList',
      `kind: ${type}, plural: ${type.toLowerCase()}s, singular: ${type.toLowerCase()}, listKind: ${type}List`,
    )
    .replace(
      '            x-kubernetes-preserve-unknown-fields: true\n',
      `            properties:\n              enabled:\n                type: ${type === 'Flag' ? 'boolean' : 'string'}\n                default: ${written}\n`,
    );
}

describe('fromFile reads YAML as kubectl does', () => {
  test('YAML 1.1 scalars: yes/no/on/off are booleans (also as keys: `y` is "true"), 0777 is octal, underscores in numbers; dates stay strings', () => {
    const [doc] = loadKubectlYaml(`spec:${SCALARS}`) as Array<{ spec: Record<string, unknown> }>;
    expect(doc.spec).toStrictEqual({
      yes1: true,
      yes2: true,
      true: true,
      on1: true,
      off1: false,
      no1: false,
      quoted: 'yes',
      octal: 511,
      octal2: 15,
      hex: 31,
      negativeHex: -16,
      binary: 5,
      underscores: 1000,
      plus: 12,
      notOctal: 9,
      exponent: 1000,
      dotFloat: 0.5,
      date: '2001-12-14',
      timestamp: '2001-12-14T21:59:43Z',
      version: '1.2.3',
      sexagesimal: '190:20:30',
      tilde: null,
      toString: 'constructor',
      negativeZero: 0,
      empty: null,
    });
  });

  test('keys resolve like values (`y:` is the key "true"); a repeated key keeps its last value', () => {
    expect(loadKubectlYaml('y: 1\nno: 2\n"on": 3\na: 1\na: 2\n')).toStrictEqual([{ true: 1, false: 2, on: 3, a: 2 }]);
  });

  test('.inf and .nan fail with the reason (JSON cannot carry them, kubectl fails too)', () => {
    expect(() => loadKubectlYaml('a: .inf')).toThrow(/\.inf is not a number JSON can carry/);
    expect(() => loadKubectlYaml('a: -.Inf')).toThrow(/-\.Inf is not a number JSON can carry/);
    expect(loadKubectlYaml('a: ".inf"')).toStrictEqual([{ a: '.inf' }]);
  });
});

describeRealApiServer(
  'fromFile and kubectl agree on YAML 1.1 scalars',
  (plane) => {
    let work: string;
    let kubeconfig: string;
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'kubectl-yaml-'));
      kubeconfig = join(work, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);
      await plane().installCrds(loadKubectlYaml(CRD) as object[]);
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    test('what kubectl apply sends (server dry run, as stored) is what fromFile reads', async () => {
      const file = join(work, 'gadget.yaml');
      writeFileSync(
        file,
        `apiVersion: yaml.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: default\nspec:${SCALARS}  y: 1\n  no: 2\n`,
      );
      const applied = await applyDryRun(file);
      expect(applied.code).toBe(0);
      const [read] = loadKubectlYaml(`spec:${SCALARS}  y: 1\n  no: 2\n`) as Array<{ spec: Record<string, unknown> }>;
      // `y: Y` and `y: 1` are both the key "true": the later wins, in both readers;
      // kubectl apply sends no null field (in an apply, null means "remove")
      const withoutNulls = Object.fromEntries(Object.entries(read.spec).filter(([, v]) => v !== null));
      expect(JSON.parse(applied.stdout).spec).toStrictEqual(withoutNulls);
      expect(Object.keys(withoutNulls)).toHaveLength(Object.keys(read.spec).length - 2);
    });

    test('kubectl fails on .inf, like fromFile', async () => {
      const file = join(work, 'inf.yaml');
      writeFileSync(
        file,
        'apiVersion: yaml.example.com/v1\nkind: Gadget\nmetadata:\n  name: inf\n  namespace: default\nspec:\n  x: .inf\n',
      );
      const applied = await applyDryRun(file);
      expect(applied.code).not.toBe(0);
      expect(applied.stderr).toMatch(/unsupported value/);
    });

    test.each([
      ['boolean default written `yes`: accepted (it is true)', 'Flag', 'yes', []],
      [
        'string default written `on`: refused (it is the boolean true)',
        'Label',
        'on',
        [
          expect.stringMatching(
            /default: Invalid value: "boolean": spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[enabled\]\.default in body must be of type string: "boolean"/,
          ),
        ],
      ],
    ])('%s, by fromFile and by the apiserver', async (_name, kind, written, errors) => {
      const file = join(work, `${kind}.yaml`);
      writeFileSync(file, crdWithDefault(kind as string, written as string));
      const chart = Testing.chart();
      const crd = CustomResourceDefinition.fromFile(chart, 'crd', file);
      expect(crd.node.validate()).toStrictEqual(errors);
      const applied = await applyDryRun(file);
      expect(applied.code === 0).toBe((errors as unknown[]).length === 0);
    });

    function applyDryRun(file: string) {
      return kubectl(kubeconfig, ['apply', '--dry-run=server', '-o', 'json', '-f', file]);
    }
  },
  { shared: true },
);

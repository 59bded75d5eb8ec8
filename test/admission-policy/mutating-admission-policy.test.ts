import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart, Testing } from 'cdk8s';
import { OperatorApp, OutputLayout } from '../../lib';
import { MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from '../../lib/admission-policy';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { Schema } from '../../lib/schema/schema';
import { Warnings } from '../../lib/synth-metadata/warnings';

const DEPLOYMENTS = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};
const validate = (chart: ReturnType<typeof Testing.chart>) => chart.node.findAll().flatMap((c) => c.node.validate());

describe('MutatingAdmissionPolicy', () => {
  test('emits admissionregistration.k8s.io/v1 policy and binding: failurePolicy Fail, reinvocationPolicy Never by default', () => {
    const chart = Testing.chart();
    const policy = new MutatingAdmissionPolicy(chart, 'Replicas', {
      name: 'default-replicas',
      matchConstraints: DEPLOYMENTS,
      mutations: [MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 2}}')],
    });
    policy.bind('Binding');
    expect(Testing.synth(chart)).toStrictEqual([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'default-replicas' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: DEPLOYMENTS,
          reinvocationPolicy: 'Never',
          mutations: [
            {
              patchType: 'ApplyConfiguration',
              applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: 2}}' },
            },
          ],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name: 'default-replicas' },
        spec: { policyName: 'default-replicas' },
      },
    ]);
    expect(Warnings.collect(chart)).toStrictEqual([]);
  });

  test('what the apiserver 1.36 refuses at create fails synth, every error with the construct path and field', () => {
    const chart = Testing.chart();
    new MutatingAdmissionPolicy(chart, 'Bad', {
      name: 'bad',
      matchConstraints: { resourceRules: [{ ...DEPLOYMENTS.resourceRules[0], operations: ['DELETE'] }] },
      mutations: [MutatingAdmissionPolicy.jsonPatch('[]'), MutatingAdmissionPolicy.applyConfiguration("'x'")],
    });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/Bad\] spec\.matchConstraints\.resourceRules\.operations: Unsupported value: "DELETE"/,
    );
    expect(validate(chart)).toStrictEqual([
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"',
      'spec.mutations[0].jsonPatch.expression: Invalid value: "[]": must evaluate to list(JSONPatch) but got list(dyn)',
      'spec.mutations[1].applyConfiguration.expression: Invalid value: "\'x\'": must evaluate to Object but got string',
    ]);
  });

  test('mutations are type-checked against the matched kinds (ours: the apiserver accepts them and fails at admission)', () => {
    const chart = Testing.chart();
    const crd = new CustomResourceDefinition(chart, 'Widget', {
      group: 'example.com',
      kind: 'Widget',
      versions: [
        { name: 'v1', spec: Schema.object({ properties: { size: Schema.integer(), owner: Schema.string() } }) },
      ],
    });
    new MutatingAdmissionPolicy(chart, 'Typo', {
      name: 'typo',
      matchConstraints: { resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE']) },
      mutations: [
        MutatingAdmissionPolicy.applyConfiguration("Object{spec: Object.spec{sise: 3, owner: 'me'}}"),
        MutatingAdmissionPolicy.applyConfiguration("Object{spec: Object.spec{size: 'big'}}"),
        MutatingAdmissionPolicy.jsonPatch("[JSONPatch{op: 'add', path: '/spec/size', value: object.spec.size + 1}]"),
      ],
    });
    new MutatingAdmissionPolicy(chart, 'Deployments', {
      name: 'deployments',
      matchConstraints: DEPLOYMENTS,
      mutations: [
        MutatingAdmissionPolicy.applyConfiguration(
          "Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {'a': 'b'}}}}}",
        ),
      ],
    });
    expect(validate(chart)).toStrictEqual([]);
    const warnings = Warnings.collect(chart);
    expect(warnings).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Typo\] spec\.mutations\[0\]\.applyConfiguration\.expression: against example\.com\/v1, Kind=Widget \(ours: .*ERROR: <input>:1:30: undefined field 'sise'/s,
      ),
      expect.stringMatching(
        /^\[test\/Typo\] spec\.mutations\[1\]\.applyConfiguration\.expression: against example\.com\/v1, Kind=Widget .*expected type of field 'size' is 'int' but provided type is 'string'/s,
      ),
    ]);
  });

  test('a binding the apiserver refuses fails synth; a policy with a paramKind bound without paramRef is a warning', () => {
    const chart = Testing.chart();
    const policy = new MutatingAdmissionPolicy(chart, 'P', {
      name: 'p',
      matchConstraints: DEPLOYMENTS,
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [
        MutatingAdmissionPolicy.applyConfiguration(
          "Object{metadata: Object.metadata{labels: {'team': params.data['team']}}}",
        ),
      ],
    });
    policy.bind('NoParams');
    policy.bind('Bad', { name: 'bad', paramRef: { name: 'cm', selector: {}, parameterNotFoundAction: 'Deny' } });
    expect(validate(chart)).toStrictEqual([
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
    ]);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringContaining('spec.paramRef: policy "p" declares a paramKind but this binding gives no paramRef'),
    ]);
  });
});

describe('a MutatingAdmissionPolicy in an app whose range starts below 1.36', () => {
  function synthApp(range: { min?: string } | undefined, skip: boolean): { error: string; dir: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-map-'));
    const app = new OperatorApp({
      outdir: path.join(dir, 'dist'),
      report: false,
      policy: false,
      descriptionCheck: false,
      layout: OutputLayout.APPLY_ORDER,
      ...(range ? { kubernetesVersions: range } : {}),
    });
    const chart = new Chart(app, 'chart');
    new ApiObject(chart, 'cm', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'plain', namespace: 'default' },
    });
    const policy = new MutatingAdmissionPolicy(chart, 'replicas', {
      name: 'replicas',
      matchConstraints: DEPLOYMENTS,
      mutations: [MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 2}}')],
      ...(skip ? { onUnservedVersions: 'skip' as const } : {}),
    });
    policy.bind('binding');
    try {
      app.synth();
      return { error: '', dir: path.join(dir, 'dist') };
    } catch (e) {
      return { error: (e as Error).message, dir: path.join(dir, 'dist') };
    }
  }

  test("fails synth naming the versions (1.34 and 1.35 serve v1beta1 only behind a gate), or with 'skip' goes to its own file", () => {
    const { error } = synthApp(undefined, false);
    expect(error).toContain(
      '[chart/replicas/Resource] admissionregistration.k8s.io/v1 MutatingAdmissionPolicy fails on Kubernetes 1.28, 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35: not served there (served from Kubernetes 1.36)',
    );
    expect(synthApp({ min: '1.36' }, false).error).toBe('');
    const skipped = synthApp(undefined, true);
    expect(skipped.error).toBe('');
    const conditional = fs.readFileSync(path.join(skipped.dir, '6-requires-1.36.yaml'), 'utf8');
    expect(conditional).toContain('kind: MutatingAdmissionPolicy\n');
    expect(conditional).toContain('kind: MutatingAdmissionPolicyBinding\n');
  });
});

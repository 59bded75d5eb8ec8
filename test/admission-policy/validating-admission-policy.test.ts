import { Testing } from 'cdk8s';
import { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../lib/admission-policy';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { Schema } from '../../lib/schema/schema';
import { Warnings } from '../../lib/synth-metadata/warnings';

const DEPLOYMENTS = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};

function widgets(chart = Testing.chart()) {
  const crd = new CustomResourceDefinition(chart, 'Widget', {
    group: 'example.com',
    kind: 'Widget',
    versions: [{ name: 'v1', spec: Schema.object({ properties: { size: Schema.integer(), owner: Schema.string() } }) }],
  });
  return { chart, crd };
}

const validate = (chart: ReturnType<typeof Testing.chart>) => chart.node.findAll().flatMap((c) => c.node.validate());

describe('ValidatingAdmissionPolicy', () => {
  test('emits admissionregistration.k8s.io/v1 policy and binding, failurePolicy Fail and Deny by default', () => {
    const { chart, crd } = widgets();
    const policy = new ValidatingAdmissionPolicy(chart, 'SizeLimit', {
      name: 'widget-size',
      matchConstraints: { resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE', 'UPDATE']) },
      validations: [{ expression: 'object.spec.size <= 10', message: 'at most 10' }],
    });
    policy.bind('Binding');
    const out = Testing.synth(chart).filter((o) => o.kind !== 'CustomResourceDefinition');
    expect(out).toStrictEqual([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'widget-size' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ['example.com'],
                apiVersions: ['v1'],
                operations: ['CREATE', 'UPDATE'],
                resources: ['widgets'],
              },
            ],
          },
          validations: [{ expression: 'object.spec.size <= 10', message: 'at most 10' }],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'widget-size' },
        spec: { policyName: 'widget-size', validationActions: ['Deny'] },
      },
    ]);
    expect(Warnings.collect(chart)).toStrictEqual([]);
  });

  test('what the apiserver refuses at create fails synth, every error with the construct path and field', () => {
    const chart = Testing.chart();
    new ValidatingAdmissionPolicy(chart, 'Bad', {
      name: 'bad',
      matchConstraints: DEPLOYMENTS,
      validations: [
        { expression: 'object.spec.replicas + 1' },
        { expression: "request.userinfo.username == 'x'", reason: 'Conflict' },
      ],
    });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/Bad\] spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas \+ 1": must evaluate to bool but got int/,
    );
    expect(validate(chart)).toStrictEqual([
      'spec.validations[0].expression: Invalid value: "object.spec.replicas + 1": must evaluate to bool but got int',
      expect.stringMatching(
        /^spec\.validations\[1\]\.expression: Invalid value: .*compilation failed: ERROR: <input>:1:8: undefined field 'userinfo'/s,
      ),
      'spec.validations[1].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ]);
  });

  test("type-check warnings (the status the apiserver will write) are synth warnings, against the app's CRD schema", () => {
    const { chart, crd } = widgets();
    new ValidatingAdmissionPolicy(chart, 'Typo', {
      name: 'typo',
      matchConstraints: { resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE']) },
      validations: [{ expression: 'object.spec.sise <= 10' }],
    });
    expect(validate(chart)).toStrictEqual([]);
    expect(Warnings.collect(chart)).toStrictEqual([
      "[test/Typo] spec.validations[0].expression: the apiserver will report in status.typeChecking: example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise <= 10\n | ...........^",
    ]);
  });

  test('a known false warning is explained, and can be acknowledged; a stale acknowledgement is reported', () => {
    const chart = Testing.chart();
    const pods = {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    };
    new ValidatingAdmissionPolicy(chart, 'Limits', {
      name: 'limits',
      matchConstraints: pods,
      validations: [{ expression: 'object.spec.containers.all(c, has(c.resources.limits))' }],
    });
    new ValidatingAdmissionPolicy(chart, 'Acked', {
      name: 'acked',
      matchConstraints: pods,
      validations: [{ expression: 'object.spec.containers.all(c, has(c.resources.limits))' }],
      acknowledgedWarnings: [
        { fieldRef: 'spec.validations[0].expression', reason: 'Quantity fields' },
        { fieldRef: 'spec.validations[1].expression', reason: 'old' },
      ],
    });
    validate(chart);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Limits\] .*undefined field 'limits'.*\(a known false warning: resource\.Quantity fields are absent/s,
      ),
      '[test/Acked] acknowledgedWarnings: "spec.validations[1].expression" matches no warning (stale? the reason was: old)',
    ]);
  });

  test('beyond the server: errors in matchConditions, variables and auditAnnotations against the matched kinds', () => {
    const chart = Testing.chart();
    new ValidatingAdmissionPolicy(chart, 'Ours', {
      name: 'ours',
      matchConstraints: DEPLOYMENTS,
      matchConditions: [{ name: 'm', expression: 'object.spec.replicaz > 1' }],
      variables: [{ name: 'v', expression: 'object.spec.pausd' }],
      auditAnnotations: [{ key: 'a', valueExpression: 'string(object.spec.minReadySecondz)' }],
    });
    expect(validate(chart)).toStrictEqual([]);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Ours\] spec\.matchConditions\[0\]\.expression: against apps\/v1 Deployment \(ours; the apiserver never reports this field after create\): ERROR: .*undefined field 'replicaz'/s,
      ),
      expect.stringMatching(/^\[test\/Ours\] spec\.variables\[0\]\.expression: .*undefined field 'pausd'/s),
      expect.stringMatching(
        /^\[test\/Ours\] spec\.auditAnnotations\[0\]\.valueExpression: .*undefined field 'minReadySecondz'/s,
      ),
    ]);
  });

  test('a paramKind from a CRD of the app types params; a binding without paramRef is a warning', () => {
    const { chart, crd } = widgets();
    const policy = new ValidatingAdmissionPolicy(chart, 'Params', {
      name: 'params',
      matchConstraints: DEPLOYMENTS,
      paramKind: crd,
      validations: [
        { expression: 'object.spec.replicas <= params.spec.size' },
        { expression: 'params.spec.color == "red"' },
      ],
    });
    policy.bind('Unbound');
    policy.bind('Bound', {
      name: 'bound',
      paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
    });
    expect(policy.toManifest().spec.paramKind).toStrictEqual({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(validate(chart)).toStrictEqual([]);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Params\] spec\.validations\[1\]\.expression: .*Kind=Deployment: ERROR: <input>:1:12: undefined field 'color'/s,
      ),
      '[test/Params/Unbound] spec.paramRef: policy "params" declares a paramKind but this binding gives no paramRef: every admission it matches fails as a misconfigured policy (its failurePolicy applies)',
    ]);
  });

  test('a binding the apiserver refuses fails synth', () => {
    const chart = Testing.chart();
    new ValidatingAdmissionPolicyBinding(chart, 'B', { policy: 'some-policy', validationActions: ['Deny', 'Warn'] });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/B\] spec\.validationActions: Invalid value: .*must not contain both Deny and Warn/,
    );
  });

  test('wildcard rules are not type-checked by the apiserver: said so', () => {
    const chart = Testing.chart();
    new ValidatingAdmissionPolicy(chart, 'Wild', {
      name: 'wild',
      matchConstraints: {
        resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: ['*'] }],
      },
      validations: [{ expression: 'has(object.metadata.labels)' }],
    });
    validate(chart);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringMatching(/^\[test\/Wild\] spec\.matchConstraints\.resourceRules: not type-checked \(ours\)/),
    ]);
  });
});

describe('ValidatingAdmissionPolicy cost (ours: the apiserver sets no cost limit at create)', () => {
  const pods = {
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
  };
  test('a policy whose worst-case evaluation is over the runtime budget is a warning; one loop over containers is not', () => {
    const chart = Testing.chart();
    new ValidatingAdmissionPolicy(chart, 'Cubic', {
      name: 'cubic',
      matchConstraints: pods,
      validations: [
        {
          expression:
            'object.spec.containers.all(a, object.spec.containers.all(b, object.spec.containers.all(c, a.name != b.name || b.name != c.name || true)))',
        },
      ],
    });
    new ValidatingAdmissionPolicy(chart, 'Linear', {
      name: 'linear',
      matchConstraints: pods,
      validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))" }],
    });
    expect(validate(chart)).toStrictEqual([]);
    expect(Warnings.collect(chart)).toStrictEqual([
      expect.stringMatching(
        /^\[test\/Cubic\] spec: estimated cost of one evaluation against core\/v1 Pod is \d+, over the apiserver's runtime budget of 10000000 \(ours/,
      ),
    ]);
  });
});

import { ApiObject, Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from '../../lib/admission-policy';
import { MutationSpec } from '../../lib/apiserver/admission-policy';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { CustomResource } from '../../lib/custom-resource/custom-resource';
import { collectSynthReport, renderSynthReport } from '../../lib/report/synth-report';
import { Schema } from '../../lib/schema/schema';
import { Warnings } from '../../lib/synth-metadata/warnings';

/**
 * The preview at synth: each MutatingAdmissionPolicy applied to the app's example custom resources it matches (the
 * preview itself is compared with kube-apiserver v1.36.3 in test/apiserver/admission-policy/mutation-preview.test.ts).
 */
function app(
  mutations: MutationSpec[],
  options: {
    reinvocationPolicy?: 'Never' | 'IfNeeded';
    failurePolicy?: 'Fail' | 'Ignore';
    spec?: Record<string, unknown>;
    namespaceSelector?: boolean;
    namespace?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  } = {},
) {
  const chart = Testing.chart();
  if (options.namespace) {
    new ApiObject(chart, 'Namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'apps', ...options.namespace },
    });
  }
  const crd = new CustomResourceDefinition(chart, 'Widget', {
    group: 'example.com',
    kind: 'Widget',
    versions: [
      {
        name: 'v1',
        spec: Schema.object({
          properties: {
            replicas: Schema.integer({ minimum: 1 }),
            image: Schema.string(),
            args: Schema.array(Schema.string()),
          },
        }),
      },
    ],
  });
  new CustomResource(chart, 'Example', {
    crd,
    metadata: { name: 'example', namespace: 'apps' },
    spec: options.spec ?? { image: 'nginx' },
  });
  const policy = new MutatingAdmissionPolicy(chart, 'Policy', {
    name: 'widget-defaults',
    matchConstraints: {
      resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE']),
      ...(options.namespaceSelector ? { namespaceSelector: { matchLabels: { team: 'a' } } } : {}),
    },
    mutations,
    reinvocationPolicy: options.reinvocationPolicy,
    failurePolicy: options.failurePolicy,
  });
  return { chart, policy };
}

const errorsOf = (c: Construct) => c.node.findAll().flatMap((x) => x.node.validate());

describe('MutatingAdmissionPolicy preview at synth', () => {
  test('the changes on each matched example, in the synth report', () => {
    const { chart, policy } = app([
      MutatingAdmissionPolicy.applyConfiguration(
        "Object{spec: Object.spec{replicas: 2, image: object.spec.image + ':1.27'}}",
      ),
    ]);
    expect(errorsOf(chart)).toStrictEqual([]);
    expect(policy.preview()).toStrictEqual([
      {
        object: 'Widget apps/example (test/Example)',
        changes: ['~ .spec.image: "nginx" → "nginx:1.27"', '+ .spec.replicas: 2'],
        errors: [],
        warnings: [],
      },
    ]);
    const text = renderSynthReport(collectSynthReport(chart, '/nonexistent-outdir'));
    expect(text).toContain(
      'widget-defaults on Widget apps/example (test/Example): 2 changes\n    ~ .spec.image: "nginx" → "nginx:1.27"\n    + .spec.replicas: 2',
    );
  });

  test('a mutation that makes the object invalid fails synth, naming the policy, the object and the field', () => {
    const { chart } = app([MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 0}}')]);
    expect(errorsOf(chart)).toStrictEqual([
      expect.stringMatching(
        /^on Widget apps\/example \(test\/Example\): the mutated object is invalid, the apiserver refuses it: spec\.replicas: .*greater than or equal to 1/,
      ),
    ]);
  });

  test('an apply configuration that sets an atomic list fails synth with the apiserver message', () => {
    const { chart } = app([MutatingAdmissionPolicy.applyConfiguration("Object{spec: Object.spec{args: ['-v']}}")]);
    expect(errorsOf(chart)).toStrictEqual([
      'on Widget apps/example (test/Example): the apiserver refuses the create: spec.mutations[0].applyConfiguration.expression: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args',
    ]);
  });

  test('with failurePolicy Ignore a failing mutation is a warning (the policy is skipped)', () => {
    const { chart } = app([MutatingAdmissionPolicy.jsonPatch("[JSONPatch{op: 'remove', path: '/spec/replicas'}]")], {
      failurePolicy: 'Ignore',
    });
    expect(errorsOf(chart)).toStrictEqual([]);
    expect(Warnings.collect(chart)).toContainEqual(
      "[test/Policy] on Widget apps/example (test/Example): the policy is skipped (failurePolicy: Ignore): spec.mutations[0].jsonPatch.expression: JSON Patch: error in remove for path: '/spec/replicas': Unable to remove nonexistent key: replicas: missing value",
    );
  });

  test('reinvocationPolicy IfNeeded: a mutation that changes its own result again fails synth', () => {
    const appendArg = MutatingAdmissionPolicy.jsonPatch("[JSONPatch{op: 'add', path: '/spec/args/-', value: '-v'}]");
    const { chart } = app([appendArg], { reinvocationPolicy: 'IfNeeded', spec: { args: [] } });
    expect(errorsOf(chart)).toStrictEqual([
      'on Widget apps/example (test/Example): not idempotent under reinvocation (reinvocationPolicy: IfNeeded): a second run changes ~ .spec.args: ["-v"] → ["-v","-v"]',
    ]);
    // the same with Never is fine: it runs once
    expect(errorsOf(app([appendArg], { spec: { args: [] } }).chart)).toStrictEqual([]);
  });

  test("a namespace selector makes the outcome the cluster's: shown as not previewed", () => {
    const { chart, policy } = app(
      [MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 0}}')],
      {
        namespaceSelector: true,
      },
    );
    expect(errorsOf(chart)).toStrictEqual([]);
    expect(policy.preview()).toStrictEqual([
      expect.objectContaining({ undecided: "the policy's namespaceSelector depends on the namespace's labels" }),
    ]);
  });

  test("the app's own Namespace decides a namespace selector and is the policy's namespaceObject", () => {
    const zero = MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 0}}');
    const selected = app([zero], { namespaceSelector: true, namespace: { labels: { team: 'a' } } });
    expect(errorsOf(selected.chart)).toStrictEqual([expect.stringMatching(/the mutated object is invalid/)]);
    const other = app([zero], { namespaceSelector: true, namespace: { labels: { team: 'b' } } });
    expect(other.policy.preview()).toStrictEqual([]);

    const fromAnnotation = MutatingAdmissionPolicy.applyConfiguration(
      "Object{spec: Object.spec{image: namespaceObject.metadata.annotations['example.com/image']}}",
    );
    const annotated = app([fromAnnotation], { namespace: { annotations: { 'example.com/image': 'redis' } } });
    expect(annotated.policy.preview()).toStrictEqual([
      expect.objectContaining({ changes: ['~ .spec.image: "nginx" → "redis"'], errors: [] }),
    ]);
  });

  test('a Namespace the app does not emit is assumed bare, and the report says so', () => {
    const { chart, policy } = app([
      MutatingAdmissionPolicy.applyConfiguration(
        "Object{spec: Object.spec{image: namespaceObject.metadata.name + '/' + object.spec.image}}",
      ),
    ]);
    expect(policy.preview()).toStrictEqual([
      expect.objectContaining({
        changes: ['~ .spec.image: "nginx" → "apps/nginx"'],
        assumes:
          'namespace apps has no labels but kubernetes.io/metadata.name and no annotations (the app does not emit it)',
      }),
    ]);
    expect(renderSynthReport(collectSynthReport(chart, '/nonexistent-outdir'))).toContain(
      '1 change (assuming namespace apps has no labels',
    );
  });

  test("each of the app's bindings: its matchResources narrow, its params are the app's objects it names", () => {
    const chart = Testing.chart();
    const crd = new CustomResourceDefinition(chart, 'Widget', {
      group: 'example.com',
      kind: 'Widget',
      versions: [{ name: 'v1', spec: Schema.object({ properties: { image: Schema.string() } }) }],
    });
    new CustomResource(chart, 'Example', { crd, metadata: { name: 'example', namespace: 'apps' }, spec: {} });
    new ApiObject(chart, 'Images', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'images', namespace: 'apps' },
      data: { image: 'redis' },
    });
    const policy = new MutatingAdmissionPolicy(chart, 'Policy', {
      name: 'widget-images',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE']) },
      mutations: [MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{image: params.data.image}}')],
    });
    const deny = { parameterNotFoundAction: 'Deny' };
    policy.bind('ByName', { name: 'by-name', paramRef: { name: 'images', ...deny } });
    policy.bind('Gold', {
      name: 'gold-only',
      paramRef: { name: 'images', ...deny },
      matchResources: { objectSelector: { matchLabels: { tier: 'gold' } } },
    });
    policy.bind('Elsewhere', { name: 'elsewhere', paramRef: { name: 'absent', ...deny } });
    expect(errorsOf(chart)).toStrictEqual([]);
    expect(policy.preview()).toStrictEqual([
      {
        object: 'Widget apps/example (test/Example) through binding by-name',
        changes: ['+ .spec.image: "redis"'],
        errors: [],
        warnings: [],
      },
      {
        object: 'Widget apps/example (test/Example) through binding elsewhere',
        changes: [],
        errors: [],
        warnings: [],
        undecided: "binding elsewhere's paramRef selects no ConfigMap of the app: the cluster's decide",
      },
    ]);
  });

  describe('several policies matching one object: chained as the apiserver runs them', () => {
    function twoPolicies(first: MutationSpec, second: MutationSpec, reinvocationPolicy: 'Never' | 'IfNeeded') {
      const { chart, policy } = app([first], { spec: {}, reinvocationPolicy });
      const other = new MutatingAdmissionPolicy(chart, 'Other', {
        name: 'widget-more',
        matchConstraints: { resourceRules: policy.toManifest().spec.matchConstraints!.resourceRules },
        mutations: [second],
        reinvocationPolicy,
      });
      return { chart, policy, other };
    }

    test('the first policy by name shows the object after both', () => {
      const { chart, policy, other } = twoPolicies(
        MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 2}}'),
        MutatingAdmissionPolicy.applyConfiguration("Object{spec: Object.spec{image: 'redis'}}"),
        'Never',
      );
      expect(errorsOf(chart)).toStrictEqual([]);
      expect(other.preview().map((p) => p.object)).toStrictEqual(['Widget apps/example (test/Example)']);
      expect(policy.preview()[1]).toStrictEqual({
        object: 'Widget apps/example (test/Example) chained: policy widget-defaults, policy widget-more',
        changes: ['+ .spec.replicas: 2', '+ .spec.image: "redis"'],
        errors: [],
        warnings: [],
      });
    });

    test('two policies fighting over a field: the result depends on their order, synth fails naming both', () => {
      const { chart } = twoPolicies(
        MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 2}}'),
        MutatingAdmissionPolicy.applyConfiguration('Object{spec: Object.spec{replicas: 3}}'),
        'IfNeeded',
      );
      expect(errorsOf(chart)).toStrictEqual([
        'on Widget apps/example (test/Example) chained: policy widget-defaults, policy widget-more: the stored object ' +
          'depends on the order the apiserver runs them in, which it does not fix (policy widget-defaults then ' +
          'policy widget-more: + .spec.replicas: 3 | policy widget-more then policy widget-defaults: + .spec.replicas: 2)',
      ]);
    });
  });
});

import { errorsOf } from '../../../lib/apimachinery/issue';
import { MatchResourcesSpec, MutatingAdmissionPolicySpec, ParamRefSpec } from '../../../lib/apiserver/admission-policy';
import { ChainLink, previewChain } from '../../../lib/apiserver/admission-policy/preview/preview-chain';
import {
  MutationTarget,
  previewThroughBinding,
} from '../../../lib/apiserver/admission-policy/preview/preview-mutations';
import { CrdVersionSpec } from '../../../lib/apiserver/crd-manifest';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';
import { validateCustomResource } from '../../../lib/apiserver/value-validation/custom-resource';
import { applyDefaults } from '../../../lib/apiserver/value-validation/value-defaults';
import { describeApiServerVersion } from '../../envtest';

/**
 * The preview of a mutating policy (`previewThroughBinding`) against what kube-apiserver v1.36.3 stores: each case is
 * a policy (with an objectSelector on the case's own label) and its binding (with the case's matchResources and
 * paramRef, the params among PARAMS) and a Widget; the Widget is created (dry run) and the object the apiserver
 * answers must be the preview, or, where the preview (or the mutated object's validation) finds an error, the
 * apiserver must refuse the create.
 *
 * CHAINS: several policies, or one policy's several bindings, matching one Widget (`previewChain`): what the apiserver
 * stores must be the chained preview's result, or, where the preview says the result depends on the order the
 * apiserver runs them in (which it does not fix), one of the preview's results.
 */
const GROUP = 'preview.example.com';
const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', minimum: 1 },
        image: { type: 'string' },
        mode: { type: 'string', default: 'auto' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' }, protocol: { type: 'string' } },
          },
        },
        args: { type: 'array', items: { type: 'string' } },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        resources: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          properties: { cpu: { type: 'string' }, memory: { type: 'string' } },
        },
        tuning: {
          type: 'object',
          properties: { level: { type: 'integer', default: 3 }, profile: { type: 'string' } },
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};
const VERSION: CrdVersionSpec = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } };
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [VERSION],
  },
};

interface Case {
  readonly policy: Omit<MutatingAdmissionPolicySpec, 'matchConstraints' | 'reinvocationPolicy' | 'failurePolicy'>;
  readonly spec: Record<string, unknown>;
  readonly labels?: Record<string, string>;
  /** The fields the preview says the apiserver drops. @default none */
  readonly dropped?: readonly string[];
  /** The binding's matchResources and paramRef. @default none */
  readonly binding?: { readonly matchResources?: MatchResourcesSpec; readonly paramRef?: ParamRefSpec };
}

/** The parameter objects of the cases with a paramKind (created before the policies). */
const PARAMS: Record<string, unknown>[] = [
  { name: 'preview-image', labels: {}, data: { image: 'from-params' } },
  { name: 'preview-env-a', labels: { set: 'env' }, data: { key: 'A', value: 'one' } },
  { name: 'preview-env-b', labels: { set: 'env' }, data: { key: 'B', value: 'two' } },
  { name: 'preview-off', labels: {}, data: { enabled: 'false' } },
].map((p) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: p.name, namespace: 'default', labels: p.labels },
  data: p.data,
}));
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const WIDGETS_CREATE = { apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] };
const SET_IMAGE = "Object{spec: Object.spec{image: 'narrowed'}}";

const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const patch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

const CASES: Record<string, Case> = {
  'default-when-missing': {
    policy: {
      matchConditions: [{ name: 'unset', expression: '!has(object.spec.replicas)' }],
      mutations: [apply('Object{spec: Object.spec{replicas: 2}}')],
    },
    spec: { image: 'nginx' },
  },
  'condition-false-leaves-it': {
    policy: {
      matchConditions: [{ name: 'unset', expression: '!has(object.spec.replicas)' }],
      mutations: [apply('Object{spec: Object.spec{replicas: 2}}')],
    },
    spec: { replicas: 5 },
  },
  'scalar-overwritten': {
    policy: { mutations: [apply("Object{spec: Object.spec{image: 'nginx:1.27'}}")] },
    spec: { image: 'nginx' },
  },
  'from-the-object': {
    policy: { mutations: [apply("Object{spec: Object.spec{image: object.spec.image + ':latest'}}")] },
    spec: { image: 'redis' },
  },
  'labels-merged': {
    policy: { mutations: [apply("Object{metadata: Object.metadata{labels: {'team': 'db', 'tier': 'gold'}}}")] },
    spec: {},
    labels: { tier: 'bronze', owner: 'me' },
  },
  'set-list-union': {
    policy: { mutations: [apply("Object{spec: Object.spec{tags: ['b', 'c']}}")] },
    spec: { tags: ['a', 'b'] },
  },
  'map-list-merged-by-key': {
    policy: {
      mutations: [
        apply(
          "Object{spec: Object.spec{ports: [Object.spec.ports{name: 'http', protocol: 'TCP'}, Object.spec.ports{name: 'metrics', port: 9090}]}}",
        ),
      ],
    },
    spec: {
      ports: [
        { name: 'grpc', port: 9000 },
        { name: 'http', port: 8080 },
      ],
    },
  },
  'granular-map-merged': {
    policy: { mutations: [apply("Object{spec: Object.spec{env: {'B': '2', 'C': '3'}}}")] },
    spec: { env: { A: '1', B: 'one' } },
  },
  'nested-struct-merged-defaults-kept': {
    policy: { mutations: [apply("Object{spec: Object.spec{tuning: Object.spec.tuning{profile: 'fast'}}}")] },
    spec: { tuning: {} },
  },
  'atomic-list-refused': { policy: { mutations: [apply("Object{spec: Object.spec{args: ['--x']}}")] }, spec: {} },
  'atomic-struct-refused': {
    policy: { mutations: [apply("Object{spec: Object.spec{resources: Object.spec.resources{cpu: '1'}}}")] },
    spec: { resources: { memory: '1Gi' } },
  },
  'preserved-fields-merged': {
    policy: { mutations: [apply("Object{spec: Object.spec{extra: {'b': {'y': 2}}}}")] },
    spec: { extra: { a: 1, b: { x: 1 } } },
  },
  'nested-list-literal': {
    policy: { mutations: [apply("Object{spec: Object.spec{extra: {'l': [1, 2]}}}")] },
    spec: {},
  },
  'nested-initializer-in-list': {
    policy: {
      mutations: [apply("Object{spec: Object.spec{extra: {'a': 'b'}, ports: [Object.spec.ports{name: 'x'}]}}")],
    },
    spec: {},
  },
  'apply-makes-it-invalid': { policy: { mutations: [apply('Object{spec: Object.spec{replicas: 0}}')] }, spec: {} },
  'variables-and-two-mutations': {
    policy: {
      variables: [{ name: 'img', expression: "has(object.spec.image) ? object.spec.image : 'busybox'" }],
      mutations: [
        apply("Object{spec: Object.spec{image: variables.img + ':stable'}}"),
        apply("Object{metadata: Object.metadata{annotations: {'image': object.spec.image}}}"),
      ],
    },
    spec: {},
  },
  'json-patch-add-replace': {
    policy: {
      mutations: [
        patch(
          "[JSONPatch{op: 'add', path: '/spec/replicas', value: 3}, JSONPatch{op: 'replace', path: '/spec/image', value: 'x'}]",
        ),
      ],
    },
    spec: { image: 'y' },
  },
  'json-patch-append-and-escape': {
    policy: {
      mutations: [
        patch(
          "[JSONPatch{op: 'add', path: '/spec/args/-', value: '--v=2'}, JSONPatch{op: 'add', path: '/metadata/annotations', value: {}}, JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey('example.com/a~b'), value: 'yes'}]",
        ),
      ],
    },
    spec: { args: ['--v=1'] },
  },
  'json-patch-atomic-list-allowed': {
    policy: { mutations: [patch("[JSONPatch{op: 'replace', path: '/spec/args', value: ['--only']}]")] },
    spec: { args: ['--a', '--b'] },
  },
  'json-patch-test-fails': {
    policy: { mutations: [patch("[JSONPatch{op: 'test', path: '/spec/image', value: 'other'}]")] },
    spec: { image: 'mine' },
  },
  'json-patch-remove-missing': {
    policy: { mutations: [patch("[JSONPatch{op: 'remove', path: '/spec/image'}]")] },
    spec: {},
  },
  'json-patch-add-below-missing': {
    policy: { mutations: [patch("[JSONPatch{op: 'add', path: '/spec/tuning/profile', value: 'x'}]")] },
    spec: {},
  },
  'json-patch-replace-absent-key-adds-it': {
    policy: { mutations: [patch("[JSONPatch{op: 'replace', path: '/spec/image', value: 'added'}]")] },
    spec: {},
  },
  'json-patch-index-out-of-range': {
    policy: { mutations: [patch("[JSONPatch{op: 'add', path: '/spec/args/5', value: 'x'}]")] },
    spec: { args: ['a'] },
  },
  'json-patch-negative-index-and-move': {
    policy: {
      mutations: [
        patch(
          "[JSONPatch{op: 'remove', path: '/spec/args/-1'}, JSONPatch{op: 'move', from: '/spec/image', path: '/spec/mode'}]",
        ),
      ],
    },
    spec: { args: ['a', 'b', 'c'], image: 'moved' },
  },
  'json-patch-unknown-field': {
    policy: { mutations: [patch("[JSONPatch{op: 'add', path: '/spec/unknown', value: 1}]")] },
    spec: {},
    dropped: ['.spec.unknown'],
  },
  'json-patch-makes-it-invalid': {
    policy: { mutations: [patch("[JSONPatch{op: 'add', path: '/spec/replicas', value: 'three'}]")] },
    spec: {},
  },
  'binding-object-selector-narrows': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: { matchResources: { objectSelector: { matchLabels: { extra: 'yes' } } } },
  },
  'binding-object-selector-selects': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    labels: { extra: 'yes' },
    binding: { matchResources: { objectSelector: { matchLabels: { extra: 'yes' } } } },
  },
  'binding-namespace-selector-other': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: {
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'elsewhere' } } },
    },
  },
  'binding-namespace-selector-this': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: {
      matchResources: {
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['default'] }],
        },
      },
    },
  },
  'binding-exclude-rule': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: { matchResources: { excludeResourceRules: [WIDGETS_CREATE] } },
  },
  'binding-rules-other-resource': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: { matchResources: { resourceRules: [{ ...WIDGETS_CREATE, resources: ['gadgets'] }] } },
  },
  'binding-rules-this-resource': {
    policy: { mutations: [apply(SET_IMAGE)] },
    spec: {},
    binding: { matchResources: { resourceRules: [WIDGETS_CREATE] } },
  },
  'params-by-name': {
    policy: { paramKind: CONFIGMAP, mutations: [apply('Object{spec: Object.spec{image: params.data.image}}')] },
    spec: { image: 'mine' },
    binding: { paramRef: { name: 'preview-image', namespace: 'default', parameterNotFoundAction: 'Deny' } },
  },
  'params-by-name-in-the-objects-namespace': {
    policy: { paramKind: CONFIGMAP, mutations: [apply('Object{spec: Object.spec{image: params.data.image}}')] },
    spec: {},
    binding: { paramRef: { name: 'preview-image', parameterNotFoundAction: 'Deny' } },
  },
  'params-by-selector-each-once': {
    policy: {
      paramKind: CONFIGMAP,
      mutations: [apply('Object{spec: Object.spec{env: {params.data.key: params.data.value}}}')],
    },
    spec: { env: { C: 'three' } },
    binding: {
      paramRef: { selector: { matchLabels: { set: 'env' } }, namespace: 'default', parameterNotFoundAction: 'Deny' },
    },
  },
  'params-in-a-match-condition': {
    policy: {
      paramKind: CONFIGMAP,
      matchConditions: [{ name: 'enabled', expression: "params.data.enabled == 'true'" }],
      mutations: [apply(SET_IMAGE)],
    },
    spec: {},
    binding: { paramRef: { name: 'preview-off', namespace: 'default', parameterNotFoundAction: 'Deny' } },
  },
  'json-patch-object-defaulted-after': {
    policy: { mutations: [patch("[JSONPatch{op: 'add', path: '/spec/tuning', value: {'profile': 'slow'}}]")] },
    spec: {},
  },
};

interface ChainCase {
  readonly policies: ReadonlyArray<{
    readonly name: string;
    readonly reinvocationPolicy: 'Never' | 'IfNeeded';
    readonly policy: Case['policy'];
    /** The policy's bindings (their paramRef). @default one, without paramRef */
    readonly bindings?: ReadonlyArray<{ readonly name: string; readonly paramRef?: ParamRefSpec }>;
  }>;
  readonly spec: Record<string, unknown>;
  /** How many results the preview finds: 1 when the order does not matter. */
  readonly results: number;
}

const DEFAULT_IMAGE = {
  matchConditions: [{ name: 'no-image', expression: '!has(object.spec.image)' }],
  mutations: [apply("Object{spec: Object.spec{image: 'nginx'}}")],
};
const IMAGE_TO_ENV = {
  mutations: [
    apply("has(object.spec.image) ? Object{spec: Object.spec{env: {'IMAGE': object.spec.image}}} : Object{}"),
  ],
};
/** A policy copying the image into env (with `reinvocationPolicy`) and one defaulting the image. */
function imageToEnv(reinvocationPolicy: 'Never' | 'IfNeeded'): Omit<ChainCase, 'results'> {
  return {
    policies: [
      { name: 'image-to-env', reinvocationPolicy, policy: IMAGE_TO_ENV },
      { name: 'image', reinvocationPolicy: 'Never', policy: DEFAULT_IMAGE },
    ],
    spec: {},
  };
}

const CHAINS: Record<string, ChainCase> = {
  // two policies setting different fields: any order, the same object
  'chain-defaults': {
    policies: [
      {
        name: 'replicas',
        reinvocationPolicy: 'Never',
        policy: {
          matchConditions: [{ name: 'unset', expression: '!has(object.spec.replicas)' }],
          mutations: [apply('Object{spec: Object.spec{replicas: 2}}')],
        },
      },
      { name: 'image', reinvocationPolicy: 'Never', policy: DEFAULT_IMAGE },
    ],
    spec: {},
    results: 1,
  },
  // a policy reading what another sets: IfNeeded reruns it when it ran first, so any order gives the same object
  'chain-reinvoked': { ...imageToEnv('IfNeeded'), results: 1 },
  // the same with Never: run first, it sees no image and is not rerun
  'chain-not-reinvoked': { ...imageToEnv('Never'), results: 2 },
  // two IfNeeded policies fighting over one field: the second round reruns the first, whose change reruns the
  // second in the same round, which wins: the one the apiserver happens to run last
  'chain-fight': {
    policies: [
      {
        name: 'two',
        reinvocationPolicy: 'IfNeeded',
        policy: { mutations: [apply('Object{spec: Object.spec{replicas: 2}}')] },
      },
      {
        name: 'three',
        reinvocationPolicy: 'IfNeeded',
        policy: { mutations: [apply('Object{spec: Object.spec{replicas: 3}}')] },
      },
    ],
    spec: {},
    results: 2,
  },
  // one policy, two bindings with other params: both run, one after the other
  'chain-bindings': {
    policies: [
      {
        name: 'env',
        reinvocationPolicy: 'Never',
        policy: {
          paramKind: CONFIGMAP,
          mutations: [apply('Object{spec: Object.spec{env: {params.data.key: params.data.value}}}')],
        },
        bindings: [
          { name: 'a', paramRef: { name: 'preview-env-a', namespace: 'default', parameterNotFoundAction: 'Deny' } },
          { name: 'b', paramRef: { name: 'preview-env-b', namespace: 'default', parameterNotFoundAction: 'Deny' } },
        ],
      },
    ],
    spec: { env: { C: 'three' } },
    results: 1,
  },
};

/** A chain's policies and bindings, named `<case>-<policy>` and `<case>-<policy>-<binding>`. */
function chainLinks(name: string, c: ChainCase): ChainLink[] {
  return c.policies.flatMap((p) => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: `${name}-${p.name}` },
      spec: {
        ...p.policy,
        matchConstraints: { resourceRules: [WIDGETS_CREATE], objectSelector: { matchLabels: { case: name } } },
        failurePolicy: 'Fail',
        reinvocationPolicy: p.reinvocationPolicy,
      },
    } as const;
    return (p.bindings ?? [{ name: 'binding' }]).map((b) => ({
      policy,
      binding: { name: `${name}-${p.name}-${b.name}`, paramRef: b.paramRef },
    }));
  });
}

/** The namespace the Widgets are created in, as the apiserver has it. */
const NAMESPACE = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } },
};

const url = (dryRun: boolean) => `/apis/${GROUP}/v1/namespaces/default/widgets${dryRun ? '?dryRun=All' : ''}`;

describeApiServerVersion('mutation preview = what kube-apiserver stores', '1.36', (plane) => {
  beforeAll(async () => {
    await plane().installCrds([CRD]);
    for (const p of PARAMS) await created(plane().request('POST', '/api/v1/namespaces/default/configmaps', p));
    // the chains first: the wait below for the last case covers them
    const chainPolicies = new Set<unknown>();
    for (const link of Object.entries(CHAINS).flatMap(([name, c]) => chainLinks(name, c))) {
      if (!chainPolicies.has(link.policy)) {
        chainPolicies.add(link.policy);
        await created(
          plane().request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies', link.policy),
        );
      }
      await created(
        plane().request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings', {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingAdmissionPolicyBinding',
          metadata: { name: link.binding!.name },
          spec: {
            policyName: link.policy.metadata.name,
            ...(link.binding!.paramRef ? { paramRef: link.binding!.paramRef } : {}),
          },
        }),
      );
    }
    for (const [name, c] of Object.entries(CASES)) {
      const spec: MutatingAdmissionPolicySpec = {
        ...c.policy,
        matchConstraints: {
          resourceRules: [{ apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
          objectSelector: { matchLabels: { case: name } },
        },
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
      };
      await created(
        plane().request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies', {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingAdmissionPolicy',
          metadata: { name },
          spec,
        }),
      );
      await created(
        plane().request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings', {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingAdmissionPolicyBinding',
          metadata: { name },
          spec: { policyName: name, ...c.binding },
        }),
      );
    }
    // the policies are in force once the last one mutates (the apiserver loads them from its informer, in order)
    const last = Object.keys(CASES)[Object.keys(CASES).length - 1];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await plane().request('POST', url(true), widget(last, CASES[last]));
      if (r.code === 201 && JSON.stringify(r.body.spec) !== JSON.stringify(defaulted(widget(last, CASES[last])).spec)) {
        break;
      }
      if (Date.now() > deadline) throw new Error(`the policies never took effect: ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }, 120_000);

  test.each(Object.entries(CASES))(
    '%s',
    async (name, c) => {
      const object = widget(name, c);
      const preview = previewThroughBinding(
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingAdmissionPolicy',
          metadata: { name },
          spec: {
            ...c.policy,
            matchConstraints: {
              resourceRules: [
                { apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] },
              ],
              objectSelector: { matchLabels: { case: name } },
            },
            reinvocationPolicy: 'Never',
          },
        },
        targetOf(object),
        '1.36',
        { name, ...c.binding },
        PARAMS,
      );
      expect(preview.outcome).not.toBe('undecided');
      if (preview.outcome === 'undecided') return;
      const mutated = preview.outcome === 'mutated' ? preview.object : defaulted(object);
      const errors = preview.outcome === 'mutated' ? preview.errors : [];
      expect(preview.outcome === 'mutated' ? preview.dropped : []).toStrictEqual(c.dropped ?? []);
      const stored = mutated;
      // unknown fields are dropped by the apiserver, not refused (a CustomResource at synth refuses them)
      const invalid = errorsOf(
        validateCustomResource({ scope: 'Namespaced', kind: 'Widget', version: VERSION }, stored, {
          kubernetesVersion: '1.36',
        }).issues,
      ).filter((i) => i.hint !== 'the apiserver would drop it');
      const reply = await plane().request('POST', url(true), object);
      if (errors.length > 0 || invalid.length > 0) {
        // refused by the apiserver, as the preview says (the errors shown when it is not)
        expect({ code: reply.code, ours: [...errors, ...invalid] }).not.toMatchObject({ code: 201 });
        for (const e of errors) expect(reply.body.message).toContain(e.message);
        return;
      }
      expect({ code: reply.code, message: reply.body.message }).toStrictEqual({ code: 201, message: undefined });
      const served = reply.body as Record<string, any>;
      const meta = served.metadata as Record<string, unknown>;
      expect({
        spec: served.spec,
        labels: meta.labels,
        annotations: meta.annotations,
      }).toStrictEqual({
        spec: stored.spec,
        labels: (stored.metadata as any).labels,
        annotations: (stored.metadata as any).annotations,
      });
    },
    30_000,
  );

  test.each(Object.entries(CHAINS))(
    '%s',
    async (name, c) => {
      const object = widget(name, { policy: {}, spec: c.spec });
      const preview = previewChain(chainLinks(name, c), targetOf(object), '1.36', PARAMS);
      expect(preview.outcome).toBe('chained');
      if (preview.outcome !== 'chained') return;
      expect(preview.results.length).toBe(c.results);
      const reply = await plane().request('POST', url(true), object);
      expect({ code: reply.code, message: reply.body.message }).toStrictEqual({ code: 201, message: undefined });
      // the stored spec is one of the preview's results (the only one where the order does not matter)
      expect(preview.results.map((r) => r.object.spec)).toContainEqual(reply.body.spec);
    },
    30_000,
  );
});

function widget(name: string, c: Case): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Widget',
    metadata: { name, namespace: 'default', labels: { ...(c.labels ?? {}), case: name } },
    spec: c.spec,
  };
}

/** A Widget as it reaches mutating admission in the namespace `default`. */
function targetOf(object: Record<string, unknown>): MutationTarget {
  return {
    object: defaulted(object),
    schema: SCHEMA,
    resource: { group: GROUP, version: 'v1', resource: 'widgets' },
    kind: 'Widget',
    namespaced: true,
    namespace: NAMESPACE,
  };
}

function defaulted(o: Record<string, unknown>): Record<string, unknown> {
  return applyDefaults(SCHEMA, o) as Record<string, unknown>;
}

async function created(reply: Promise<{ code: number; body: any }>): Promise<void> {
  const r = await reply;
  if (r.code !== 201) throw new Error(`create refused (${r.code}): ${JSON.stringify(r.body)}`);
}

import { formatIssue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import {
  OPERATOR_WEBHOOK_FIELDS,
  POLICY_SPEC_FIELDS,
  withoutConstructChecked,
} from '../../../lib/apiserver/builtin-validation/admission-construct-checked';

/** The admissionregistration.k8s.io checks without an apiserver (measured in admission-differential). */

const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'check.example.com',
  clientConfig: { service: { name: 'hooks', namespace: 'default' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
const config = (kind: string, ...webhooks: object[]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name: 'hooks' },
  webhooks,
});
const vwc = (...webhooks: object[]) => config('ValidatingWebhookConfiguration', ...webhooks);
const lines = (o: object, version: KubernetesVersion = '1.32') =>
  builtinObjectIssues(o, version).map((i) => `${i.path}: ${i.message}`);

describe('ValidatingWebhookConfiguration and MutatingWebhookConfiguration', () => {
  test('a valid configuration, and one without webhooks, pass', () => {
    expect(lines(vwc(hook()))).toStrictEqual([]);
    expect(lines({ ...vwc(), webhooks: undefined })).toStrictEqual([]);
  });

  test('names: fully qualified, three segments, unique', () => {
    expect(lines(vwc(hook({ name: 'short' })))).toStrictEqual([
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
    ]);
    expect(lines(vwc(hook({ name: '' })))).toStrictEqual(['webhooks[0].name: Required value']);
    expect(lines(vwc(hook({ name: 'A.b.c' })))[0]).toMatch(
      /^webhooks\[0\]\.name: Invalid value: "A\.b\.c": a lowercase RFC 1123 subdomain/,
    );
    expect(lines(vwc(hook(), hook()))).toStrictEqual(['webhooks[1].name: Duplicate value: "check.example.com"']);
  });

  test('sideEffects required and None or NoneOnDryRun; timeout 1-30; failure and match policies', () => {
    expect(lines(vwc(hook({ sideEffects: undefined, timeoutSeconds: 45 })))).toStrictEqual([
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds',
    ]);
    expect(
      lines(vwc(hook({ sideEffects: 'Some', timeoutSeconds: 0, failurePolicy: 'Never', matchPolicy: 'x' }))),
    ).toStrictEqual([
      'webhooks[0].failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "x": supported values: "Equivalent", "Exact"',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds',
    ]);
    expect(lines(vwc(hook({ timeoutSeconds: 30, failurePolicy: null, sideEffects: 'NoneOnDryRun' })))).toStrictEqual(
      [],
    );
  });

  test("reinvocationPolicy is the mutating kind's only", () => {
    const bad = hook({ reinvocationPolicy: 'Always' });
    expect(lines(config('MutatingWebhookConfiguration', bad))).toStrictEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
    // a ValidatingWebhook has no such field: strict decoding refuses it before validation
    expect(lines(vwc(bad)).join('\n')).toMatch(
      /strict decoding error: unknown field "webhooks\[0\]\.reinvocationPolicy"/,
    );
  });

  test('admissionReviewVersions: required, DNS-1035 labels, unique, one of v1 and v1beta1', () => {
    expect(lines(vwc(hook({ admissionReviewVersions: [] })))).toStrictEqual([
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
    expect(lines(vwc(hook({ admissionReviewVersions: ['v2', 'v2'] })), '1.36')).toStrictEqual([
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
    ]);
    expect(lines(vwc(hook({ admissionReviewVersions: ['v2'] })), '1.28')).toStrictEqual([
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    ]);
  });

  test('clientConfig: exactly one of url and service; an https url without user, query or fragment', () => {
    expect(lines(vwc(hook({ clientConfig: {} })))).toStrictEqual([
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
    expect(lines(vwc(hook({ clientConfig: { url: 'https://hooks.example.com:8443/v' } })))).toStrictEqual([]);
    expect(lines(vwc(hook({ clientConfig: { url: 'HTTP://me@hooks.example.com/v?a=1#f' } })))).toStrictEqual([
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].clientConfig.url: Invalid value: "me": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "a=1": query parameters are not permitted in the URL',
    ]);
    expect(lines(vwc(hook({ clientConfig: { url: 'https://exa mple.com/%zz' } })))).toStrictEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://exa mple.com/%zz": invalid character " " in host name; desired format: https://host[/path]',
    ]);
    expect(lines(vwc(hook({ clientConfig: { url: 'https://a.example.com/x#%z' } })))).toStrictEqual([
      'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://a.example.com/x#%z": invalid URL escape "%z"; desired format: https://host[/path]',
    ]);
    expect(lines(vwc(hook({ clientConfig: { url: 'https:///v' } })))).toStrictEqual([
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
  });

  test('clientConfig.service: name, namespace (worded by version), port, path segments', () => {
    const service = (s: object) => vwc(hook({ clientConfig: { service: s } }));
    expect(lines(service({}), '1.32')).toStrictEqual([
      'webhooks[0].clientConfig.service.name: Required value: service name is required',
      'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
    ]);
    expect(lines(service({}), '1.36')).toStrictEqual([
      'webhooks[0].clientConfig.service.name: Required value',
      'webhooks[0].clientConfig.service.namespace: Required value',
    ]);
    const ok = { name: 'h', namespace: 'd' };
    expect(lines(service({ ...ok, port: 0 }))).toStrictEqual([
      'webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
    ]);
    // upstream drops the first character whether it is a slash or not: `v` leaves an empty segment
    expect(lines(service({ ...ok, path: 'v' }))).toStrictEqual([
      'webhooks[0].clientConfig.service.path: Invalid value: "v": must start with a \'/\'',
      'webhooks[0].clientConfig.service.path: Invalid value: "v": segment[0] may not be empty',
    ]);
    expect(lines(service({ ...ok, path: '/a//b/' }))).toStrictEqual([
      'webhooks[0].clientConfig.service.path: Invalid value: "/a//b/": segment[1] may not be empty',
    ]);
    expect(lines(service({ ...ok, path: '/' }))).toStrictEqual([]);
  });

  test("rules, selectors and matchConditions use the policies' checks", () => {
    const rule = { operations: ['*', 'CREATE'], apiGroups: [], apiVersions: ['v1'], resources: ['*', 'pods'] };
    expect(lines(vwc(hook({ rules: [rule] })), '1.36')).toStrictEqual([
      'webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
    ]);
    expect(lines(vwc(hook({ objectSelector: { matchLabels: { 'a b': 'x' } } })))[0]).toMatch(
      /^webhooks\[0\]\.objectSelector\.matchLabels: Invalid value: "a b"/,
    );
    expect(lines(vwc(hook({ matchConditions: [{ name: 'p', expression: 'params.x == 1' }] })))[0]).toMatch(
      /^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "params\.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'/,
    );
    expect(
      lines(
        vwc(
          hook({
            matchConditions: [
              { name: 'a', expression: 'true' },
              { name: 'a', expression: '' },
            ],
          }),
        ),
      ),
    ).toStrictEqual([
      'webhooks[0].matchConditions[1].expression: Required value',
      'webhooks[0].matchConditions[1].name: Duplicate value: "a"',
    ]);
  });
});

describe('raw admission policies and bindings', () => {
  const policy = (expression: string, name = 'p') => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
        ],
      },
      validations: [{ expression }],
    },
  });

  test("a raw policy is checked with the policy constructs' validator", () => {
    expect(lines(policy('object.spec.replicas <= 5'))).toStrictEqual([]);
    expect(lines(policy('1 + 1'))).toStrictEqual([
      'spec.validations[0].expression: Invalid value: "1 + 1": must evaluate to bool but got int',
    ]);
    expect(lines(policy('object.spec.replicas <='))[0]).toMatch(
      /^spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <=": compilation failed: ERROR: <input>:1:\d+: Syntax error/,
    );
  });

  test('its name once, by the metadata rules (a DNS subdomain), and generateName alone is a name', () => {
    expect(lines(policy('true', 'Bad_Name')).filter((l) => l.startsWith('metadata.name'))).toHaveLength(1);
    const generated: any = policy('true');
    generated.metadata = { generateName: 'p-' };
    expect(lines(generated)).toStrictEqual([]);
  });

  test('bindings, validating and mutating', () => {
    const binding = (kind: string, spec: object) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name: 'b' },
      spec,
    });
    expect(lines(binding('ValidatingAdmissionPolicyBinding', { policyName: 'p' }))).toStrictEqual([
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
    expect(lines(binding('MutatingAdmissionPolicyBinding', {}), '1.36')).toStrictEqual([
      'spec.policyName: Required value',
    ]);
  });
});

describe('what a construct already reports is not reported again', () => {
  const bad = vwc(hook({ timeoutSeconds: 45, name: 'short', matchConditions: [{ name: 'a', expression: '1' }] }));

  test("the operator's webhook fields are left to the operator, the rest kept", () => {
    const all = builtinObjectIssues(bad, '1.32');
    const kept = withoutConstructChecked(all, bad, '1.32', OPERATOR_WEBHOOK_FIELDS).map((i) => formatIssue(i));
    expect(all.map((i) => i.path)).toStrictEqual([
      'webhooks[0].name',
      'webhooks[0].timeoutSeconds',
      'webhooks[0].matchConditions[0].expression',
    ]);
    expect(kept).toStrictEqual([
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
    ]);
  });

  test("a policy construct's spec is left to it; a decoding error is kept", () => {
    const unknown = { ...bad, kind: 'ValidatingAdmissionPolicy', spec: { bogus: 1 } };
    const all = builtinObjectIssues(unknown, '1.32');
    expect(all.length).toBeGreaterThan(0);
    expect(withoutConstructChecked(all, unknown, '1.32', POLICY_SPEC_FIELDS)).toStrictEqual(all);
  });
});

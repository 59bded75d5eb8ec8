import { DECODING_CASES, withField } from './decoding-cases';
import { formatIssue } from '../../../lib/apimachinery/issue';
import { KUBERNETES_VERSIONS } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { decodingIssues } from '../../../lib/apiserver/builtin-validation/decoding';
import {
  base64Error,
  embeddedChain,
  intOutOfRange,
  rfc3339Error,
} from '../../../lib/apiserver/builtin-validation/decoding-go';

/** Strict decoding without an apiserver: the measured cases' records (decoding-differential.test.ts checks them against the servers), and its parts. */
describe('strict decoding of built-in objects', () => {
  const ours = (object: any, version: (typeof KUBERNETES_VERSIONS)[number]) => {
    const issues = decodingIssues(object, version);
    if (issues.length === 0) return undefined;
    if (!issues[0].message.startsWith('strict decoding error: ')) return issues.map((i) => i.message).join('\n');
    return `strict decoding error: ${issues.map((i) => i.message.slice('strict decoding error: '.length)).join(', ')}`;
  };

  test.each(DECODING_CASES.map((c) => [c.name, c] as const))('%s: as recorded on 1.28, 1.32 and 1.36', (_n, c) => {
    for (const version of ['1.28', '1.32', '1.36'] as const) {
      const recorded = c.refused?.[version] ?? c.refused?.all;
      expect({ version, ours: ours(c.object, version) }).toStrictEqual({ version, ours: recorded });
    }
  });

  const SVC = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc' },
    spec: { ports: [{ port: 80 }] },
  };

  test('an issue names the field with its list indices and the value', () => {
    expect(decodingIssues(withField(SVC, 'spec.ports[0].port', 'abc'), '1.32').map(formatIssue)).toStrictEqual([
      'spec.ports[0].port: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32 (got "abc")',
    ]);
  });

  test('every unknown field is its own issue, in document order', () => {
    const object = withField(withField(withField(SVC, 'spec.ports[0].foo', 1), 'spec.bar', 2), 'baz', 3);
    expect(decodingIssues(object, '1.32').map((i) => i.path)).toStrictEqual(['spec.ports[0].foo', 'spec.bar', 'baz']);
  });

  test('a field only newer versions have: unknown before, with the versions that have it in the hint', () => {
    const traffic = withField(SVC, 'spec.trafficDistribution', 'PreferClose');
    expect(decodingIssues(traffic, '1.28').map(formatIssue)).toStrictEqual([
      'spec.trafficDistribution: strict decoding error: unknown field "spec.trafficDistribution" (a field this version does not have: Kubernetes 1.30 and newer have it)',
    ]);
    expect(KUBERNETES_VERSIONS.filter((v) => decodingIssues(traffic, v).length > 0)).toStrictEqual(['1.28', '1.29']);
  });

  test('a field newer than 1.32 (read from the 1.36 apiserver): unknown up to 1.32, known from 1.33 on', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { spec: { hostnameOverride: 'h', containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    expect(KUBERNETES_VERSIONS.filter((v) => decodingIssues(deployment, v).length > 0)).toStrictEqual([
      '1.28',
      '1.29',
      '1.30',
      '1.31',
      '1.32',
    ]);
    expect(decodingIssues(deployment, '1.32')[0].hint).toBe(
      'a field this version does not have: Kubernetes 1.36 has it, added after 1.32',
    );
    // its value is decoded by its 1.36 schema
    const wrong = withField(deployment, 'spec.template.spec.hostnameOverride', 5);
    expect(decodingIssues(wrong, '1.36').map((i) => i.message)).toStrictEqual([
      'json: cannot unmarshal number into Go struct field PodSpec.spec.template.spec.hostnameOverride of type string',
    ]);
  });

  test('a typo has no hint', () => {
    expect(decodingIssues(withField(SVC, 'spec.prots', []), '1.32')[0].hint).toBeUndefined();
  });

  test('custom resources, kinds without a vendored schema and objects without apiVersion/kind are not decoded here', () => {
    expect(decodingIssues({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { foo: 'x' } }, '1.32')).toStrictEqual(
      [],
    );
    // a kind new since 1.32, on a version before the apiserver it was read from
    expect(decodingIssues({ apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', foo: 1 }, '1.35')).toStrictEqual([]);
    expect(decodingIssues({ kind: 'ConfigMap', foo: 1 }, '1.32')).toStrictEqual([]);
  });

  test('a kind new since 1.32 is decoded as the 1.36 apiserver decodes it, from 1.36 on', () => {
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', bogus: 1 },
    };
    expect(decodingIssues(binding, '1.36').map((i) => i.path)).toStrictEqual(['spec.bogus']);
    expect(decodingIssues(binding, '1.37').map((i) => i.path)).toStrictEqual(['spec.bogus']);
    expect(decodingIssues({ ...binding, spec: { policyName: 'p' } }, '1.36')).toStrictEqual([]);
    expect(decodingIssues({ apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', foo: 1 }, '1.36')).toHaveLength(1);
  });

  test('RawExtension and free-form maps take anything', () => {
    const rev = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r' },
      revision: 1,
      data: { anything: { at: ['all', 1, true] } },
    };
    expect(decodingIssues(rev, '1.32')).toStrictEqual([]);
    expect(decodingIssues(withField(rev, 'revision', 1.5), '1.32').map((i) => i.path)).toStrictEqual(['revision']);
  });

  test('builtinObjectIssues: a decoding error alone, as the apiserver stops there', () => {
    const issues = builtinObjectIssues(withField(withField(SVC, 'metadata.name', 'Bad_Name'), 'spec.foo', 1), '1.32');
    expect(issues.map((i) => i.path)).toStrictEqual(['spec.foo']);
  });
});

describe("Go's words", () => {
  test.each([
    ['YWJj', undefined],
    ['YWJjZA==', undefined],
    ['YWJjZg', 'illegal base64 data at input byte 4'],
    ['YWJ', 'illegal base64 data at input byte 0'],
    ['not base64!', 'illegal base64 data at input byte 3'],
    ['ab-_', 'illegal base64 data at input byte 2'],
    ['=', 'illegal base64 data at input byte 0'],
    ['YQ=a', 'illegal base64 data at input byte 2'],
    ['YQ==YQ==', 'illegal base64 data at input byte 4'],
    ['YW\r\nJj', undefined],
    ['', undefined],
    ['é', 'illegal base64 data at input byte 0'],
  ])('base64 %j', (text, error) => {
    expect(base64Error(text)).toBe(error);
  });

  test('integers: Go quotes the number it cannot fit', () => {
    expect(intOutOfRange(2147483647, 32)).toBeUndefined();
    expect(intOutOfRange(-2147483648, 32)).toBeUndefined();
    expect(intOutOfRange(2147483648, 32)).toBe('number 2147483648');
    expect(intOutOfRange(4294967296, 64)).toBeUndefined();
    expect(intOutOfRange(1.5, 64)).toBe('number 1.5');
    expect(intOutOfRange(1e21, 64)).toBe('number 1e+21');
  });

  test('RFC 3339 timestamps', () => {
    expect(rfc3339Error('2024-02-29T23:59:59Z')).toBeUndefined();
    expect(rfc3339Error('2024-02-29T23:59:59.123+02:00')).toBeUndefined();
    expect(rfc3339Error('2023-02-29T00:00:00Z')).toBe('parsing time "2023-02-29T00:00:00Z": day out of range');
    expect(rfc3339Error('2024-01-01 00:00:00Z')).toBe(
      'parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00"',
    );
    expect(rfc3339Error('2024-01-01T24:00:00Z')).toBe('parsing time "2024-01-01T24:00:00Z": hour out of range');
    expect(rfc3339Error('1900-02-29T00:00:00Z')).toBe('parsing time "1900-02-29T00:00:00Z": day out of range');
    expect(rfc3339Error('2000-02-29T00:00:00Z')).toBeUndefined();
    // an error early in the layout comes before the day's, checked last
    expect(rfc3339Error('2024-02-30T00:61:00Z')).toBe('parsing time "2024-02-30T00:61:00Z": minute out of range');
  });

  test('RFC 3339 timestamps with six digits of fraction (metav1.MicroTime)', () => {
    expect(rfc3339Error('2026-01-01T00:00:00.000000Z', true)).toBeUndefined();
    expect(rfc3339Error('2026-01-01T00:00:00.123456-05:30', true)).toBeUndefined();
    for (const t of ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.12345Z', '2026-01-01T00:00:00.1234567Z']) {
      expect(rfc3339Error(t, true)).toBe(`parsing time ${JSON.stringify(t)} as "2006-01-02T15:04:05.000000Z07:00"`);
    }
  });

  test('embedded structs are named in the field path from 1.33 on', () => {
    expect(embeddedChain('io.k8s.api.core.v1.Probe', 'httpGet', 32)).toStrictEqual([]);
    expect(embeddedChain('io.k8s.api.core.v1.Probe', 'httpGet', 33)).toStrictEqual(['ProbeHandler']);
    expect(embeddedChain('io.k8s.api.core.v1.Probe', 'periodSeconds', 36)).toStrictEqual([]);
    expect(embeddedChain('io.k8s.api.core.v1.Volume', 'name', 36)).toStrictEqual([]);
    expect(embeddedChain('io.k8s.api.admissionregistration.v1.NamedRuleWithOperations', 'apiGroups', 36)).toStrictEqual(
      ['RuleWithOperations', 'Rule'],
    );
  });
});

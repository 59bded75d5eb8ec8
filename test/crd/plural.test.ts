import { pluralOf, singularOf } from '../../lib/crd/plural';

describe('pluralOf', () => {
  test.each([
    ['Policy', 'policies'],
    ['NetworkPolicy', 'networkpolicies'],
    ['Proxy', 'proxies'],
    ['Status', 'statuses'],
    ['Ingress', 'ingresses'],
    ['Address', 'addresses'],
    ['Box', 'boxes'],
    ['Leaf', 'leaves'],
    ['Gateway', 'gateways'],
    ['DNSEntry', 'dnsentries'],
    ['SampleDB', 'sampledbs'],
    ['Database', 'databases'],
    ['ServiceMonitor', 'servicemonitors'],
    ['Prometheus', 'prometheuses'],
    ['Foo', 'foos'],
    ['S3Bucket', 's3buckets'],
    ['Backup2', 'backup2s'],
  ])('%s → %s', (kind, plural) => {
    expect(pluralOf(kind)).toBe(plural);
  });

  test('never a blind "+s"', () => {
    expect(pluralOf('Policy')).not.toBe('policys');
    expect(pluralOf('Status')).not.toBe('statuss');
  });

  test('fails at once for a kind that is not a name', () => {
    expect(() => pluralOf('my-kind')).toThrow(
      /'kind' must be alphanumeric and start with a letter to derive a plural, got "my-kind"/,
    );
  });

  test('singular is the lowercase kind', () => {
    expect(singularOf('SampleDB')).toBe('sampledb');
  });
});

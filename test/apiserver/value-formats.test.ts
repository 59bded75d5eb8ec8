import { checkFormat } from '../../lib/apiserver/schema/formats';
import { describeRealApiServer } from '../envtest';

/**
 * String formats of custom resources, value by value against the real apiserver (kube-openapi's strfmt as the
 * apiextensions apiserver registers it). Each format gets a list field; one dry-run create per format tells
 * which items the apiserver refuses, which must be exactly those `checkFormat` refuses.
 */
const CANDIDATES: Record<string, string[]> = {
  'uuid': ['123e4567-e89b-12d3-a456-426614174000', '123E4567-E89B-12D3-A456-426614174000', '123e4567e89b12d3a456426614174000',
    '123e4567-e89b12d3-a456426614174000', '{123e4567-e89b-12d3-a456-426614174000}', '123e4567-e89b-12d3-a456-42661417400', 'urn:uuid:123e4567-e89b-12d3-a456-426614174000', ''],
  'uuid3': ['a3bb189e-8bf9-3888-9912-ace4e6543002', 'a3bb189e-8bf9-4888-9912-ace4e6543002', 'a3bb189e8bf938889912ace4e6543002'],
  'uuid4': ['9f5c3c4e-1b2a-4c3d-8e4f-5a6b7c8d9e0f', '9f5c3c4e-1b2a-4c3d-7e4f-5a6b7c8d9e0f', '9f5c3c4e1b2a4c3d8e4f5a6b7c8d9e0f'],
  'uuid5': ['74738ff5-5367-5958-9aee-98fffdcd1876', '74738ff5-5367-4958-9aee-98fffdcd1876'],
  'ipv4': ['1.2.3.4', '01.2.3.4', '1.2.3', '256.1.1.1', '::ffff:1.2.3.4', '1.2.3.4 ', '0.0.0.0', '::1'],
  'ipv6': ['::1', '2001:db8::1', '1.2.3.4', '::ffff:1.2.3.4', 'fe80::1%eth0', '2001:db8:::1', 'FE80::A'],
  'cidr': ['10.0.0.0/8', '10.0.0.1/8', '010.0.0.0/8', '::/0', '10.0.0.0/33', '10.0.0.0', '2001:db8::/129', '10.0.0.0/08'],
  'mac': ['00:00:5e:00:53:01', '00-00-5E-00-53-01', '0000.5e00.5301', '00:00:5e:00:53', '00:00:5e:00:53:01:02:03', '00005e005301'],
  'hostname': ['example.com', 'a', 'a-b.c', '-a.com', 'a_b.com', 'example.c', 'xn--bcher-kva.example', '1.2.3.4', 'a.b.c.d.e.123', 'ünicode.com', 'example.com.'],
  'email': ['a@b.c', 'a@b', 'Alice <a@b.c>', 'a@', 'a b@c.d', '"a b"@c.d', 'a@[1.2.3.4]'],
  'uri': ['http://example.com/x?y=1', '/absolute/path', 'relative/path', 'mailto:a@b.c', 'x:y', '', 'http://[::1]:80/', 'http://exa mple.com'],
  'byte': ['aGVsbG8=', 'aGVsbG8', 'aGVsbA==', 'aGVs', 'a-_b', '', 'aGVsbG8=\n', '!!!!'],
  'date': ['2024-02-29', '2023-02-29', '2024-1-01', '2024-13-01', '20240101', '2024-01-01T00:00:00Z'],
  'date-time': ['2024-01-01T00:00:00Z', '2024-01-01t00:00:00z', '2024-01-01T00:00:00', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00.123456789+01:00',
    '2024-01-01T24:00:00Z', '2024-01-01T23:59:60Z', '2024-01-01T00:00Z', '2024-02-30T00:00:00Z'],
  'duration': ['1h', '1h30m', '1.5h', '-1s', '1d', '2w', '22 ns', '1 hour', '3 days', '', '1', '1y', '+5m', '1h 30m', '.5s', '5.s'],
  'isbn10': ['0321751043', '0-321-75104-3', '0321751044'],
  'isbn13': ['9780321751041', '978-0321751041', '9780321751040'],
  'creditcard': ['4111111111111111', '4111-1111-1111-1111', '4111111111111112'],
  'ssn': ['123-45-6789', '123456789', '123 45 6789', '123-456-789'],
  'hexcolor': ['#fff', 'FFFFFF', '#ffff', '#GGGGGG'],
  'rgbcolor': ['rgb(255,255,255)', 'rgb( 0 , 0 , 0 )', 'rgb(256,0,0)', 'rgb(0,0)'],
  'bsonobjectid': ['507f1f77bcf86cd799439011', '507F1F77BCF86CD799439011', '507f1f77bcf86cd79943901'],
};

const fieldName = (format: string) => format.replace(/-/g, '');

describeRealApiServer('string formats of custom resources', plane => {
  beforeAll(async () => {
    const properties: Record<string, object> = {};
    for (const format of Object.keys(CANDIDATES)) properties[fieldName(format)] = { type: 'array', items: { type: 'string', format } };
    await plane().installCrds([{
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'formats.fmt.example.com' },
      spec: {
        group: 'fmt.example.com', scope: 'Namespaced', names: { kind: 'Format', plural: 'formats' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
      },
    }]);
  }, 60_000);

  test.each(Object.keys(CANDIDATES))('%s: refused exactly where the apiserver refuses', async format => {
    const values = CANDIDATES[format];
    const field = fieldName(format);
    const r = await plane().request('POST', '/apis/fmt.example.com/v1/namespaces/default/formats?dryRun=All', {
      apiVersion: 'fmt.example.com/v1', kind: 'Format', metadata: { name: 'x' }, spec: { [field]: values },
    });
    expect([201, 422]).toContain(r.code);
    const refused = new Set<number>();
    for (const cause of r.body?.details?.causes ?? []) {
      const m = new RegExp(`^spec\\.${field}\\[(\\d+)\\]$`).exec(cause.field ?? '');
      if (m) refused.add(Number(m[1]));
    }
    const verdicts = values.map((v, i) => ({ value: v, apiserver: refused.has(i) ? 'refused' : 'accepted', ours: checkFormat(format, v) ? 'accepted' : 'refused' }));
    expect(verdicts.filter(v => v.apiserver !== v.ours)).toStrictEqual([]);
  }, 30_000);
});

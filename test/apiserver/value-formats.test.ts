import { checkFormat } from '../../lib/apiserver/schema/formats';
import { validateValue } from '../../lib/apiserver/value-validation/value-validator';
import { describeEachApiServerVersion } from '../envtest';
import { stringMutations } from '../support/string-mutations';
import { EDGE_CHARACTERS } from '../support/value-oracle';

/**
 * String formats of custom resources, value by value against the real apiserver (kube-openapi's strfmt as the
 * apiextensions apiserver registers it). Each format gets a list field; one dry-run create per format tells
 * which items the apiserver refuses, which must be exactly those `checkFormat` refuses. Each format is tried on
 * at least 100 values: the hand-picked ones below, more seeds at each parser's edges, and single mutations of
 * them (a character where Go's parsers and JavaScript's differ inserted, replaced or removed at the start,
 * middle or end; two seeds joined).
 */
const SEEDS: Record<string, string[]> = {
  uuid: [
    '123e4567-e89b-12d3-a456-426614174000',
    '123E4567-E89B-12D3-A456-426614174000',
    '123e4567e89b12d3a456426614174000',
    '123e4567-e89b12d3-a456426614174000',
    '{123e4567-e89b-12d3-a456-426614174000}',
    '123e4567-e89b-12d3-a456-42661417400',
    'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
    '',
  ],
  uuid3: [
    'a3bb189e-8bf9-3888-9912-ace4e6543002',
    'a3bb189e-8bf9-4888-9912-ace4e6543002',
    'a3bb189e8bf938889912ace4e6543002',
  ],
  uuid4: [
    '9f5c3c4e-1b2a-4c3d-8e4f-5a6b7c8d9e0f',
    '9f5c3c4e-1b2a-4c3d-7e4f-5a6b7c8d9e0f',
    '9f5c3c4e1b2a4c3d8e4f5a6b7c8d9e0f',
  ],
  uuid5: ['74738ff5-5367-5958-9aee-98fffdcd1876', '74738ff5-5367-4958-9aee-98fffdcd1876'],
  ipv4: ['1.2.3.4', '01.2.3.4', '1.2.3', '256.1.1.1', '::ffff:1.2.3.4', '1.2.3.4 ', '0.0.0.0', '::1'],
  ipv6: ['::1', '2001:db8::1', '1.2.3.4', '::ffff:1.2.3.4', 'fe80::1%eth0', '2001:db8:::1', 'FE80::A'],
  cidr: ['10.0.0.0/8', '10.0.0.1/8', '010.0.0.0/8', '::/0', '10.0.0.0/33', '10.0.0.0', '2001:db8::/129', '10.0.0.0/08'],
  mac: [
    '00:00:5e:00:53:01',
    '00-00-5E-00-53-01',
    '0000.5e00.5301',
    '00:00:5e:00:53',
    '00:00:5e:00:53:01:02:03',
    '00005e005301',
  ],
  hostname: [
    'example.com',
    'a',
    'a-b.c',
    '-a.com',
    'a_b.com',
    'example.c',
    'xn--bcher-kva.example',
    '1.2.3.4',
    'a.b.c.d.e.123',
    'ünicode.com',
    'example.com.',
  ],
  email: ['a@b.c', 'a@b', 'Alice <a@b.c>', 'a@', 'a b@c.d', '"a b"@c.d', 'a@[1.2.3.4]'],
  uri: [
    'http://example.com/x?y=1',
    '/absolute/path',
    'relative/path',
    'mailto:a@b.c',
    'x:y',
    '',
    'http://[::1]:80/',
    'http://exa mple.com',
  ],
  byte: ['aGVsbG8=', 'aGVsbG8', 'aGVsbA==', 'aGVs', 'a-_b', '', 'aGVsbG8=\n', '!!!!'],
  date: ['2024-02-29', '2023-02-29', '2024-1-01', '2024-13-01', '20240101', '2024-01-01T00:00:00Z'],
  'date-time': [
    '2024-01-01T00:00:00Z',
    '2024-01-01t00:00:00z',
    '2024-01-01T00:00:00',
    '2024-01-01 00:00:00Z',
    '2024-01-01T00:00:00.123456789+01:00',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T00:00Z',
    '2024-02-30T00:00:00Z',
  ],
  duration: [
    '1h',
    '1h30m',
    '1.5h',
    '-1s',
    '1d',
    '2w',
    '22 ns',
    '1 hour',
    '3 days',
    '',
    '1',
    '1y',
    '+5m',
    '1h 30m',
    '.5s',
    '5.s',
  ],
  isbn10: ['0321751043', '0-321-75104-3', '0321751044'],
  isbn: ['0321751043', '9780321751041', '0-321-75104-3', '978-0321751040', '032175104X', '97803217510'],
  isbn13: ['9780321751041', '978-0321751041', '9780321751040'],
  creditcard: ['4111111111111111', '4111-1111-1111-1111', '4111111111111112'],
  ssn: ['123-45-6789', '123456789', '123 45 6789', '123-456-789'],
  hexcolor: ['#fff', 'FFFFFF', '#ffff', '#GGGGGG'],
  rgbcolor: ['rgb(255,255,255)', 'rgb( 0 , 0 , 0 )', 'rgb(256,0,0)', 'rgb(0,0)'],
  bsonobjectid: ['507f1f77bcf86cd799439011', '507F1F77BCF86CD799439011', '507f1f77bcf86cd79943901'],
};

/** More seeds where Go's parsers decide: net/mail's grammar, url.ParseRequestURI's hosts and escapes, overflow. */
const MORE_SEEDS: Record<string, string[]> = {
  email: [
    'a@b <c@d>',
    'abcd@efg.com<abcd@efg.com>',
    '<a@b.c>',
    'Name <a@b.c>',
    '"Quoted Name" <a@b.c>',
    'a@b.c (comment)',
    'a@b.c (unclosed',
    'a.b@c.d',
    '.a@b.c',
    'a.@b.c',
    'a..b@c.d',
    'a@b..c',
    'a@.b',
    'a@b.',
    '"a..b"@c.d',
    '""@c.d',
    '"a\\"b"@c.d',
    '"a\\ b"@c.d',
    'üser@exämple.de',
    'a+tag@b.c',
    "a!#$%&'*+-/=?^_`{|}~@b.c",
    'a(b)@c.d',
    'a@b(c).d',
    'group: a@b.c;',
    'group:;',
    'g: a@b.c, d@e.f;',
    '=?utf-8?q?J=C3=B6rg?= <a@b.c>',
    '=?x-unknown?q?abc?= <a@b.c>',
    '=?utf-8?b?SsO2cmc=?= <a@b.c>',
    'a@b.c, d@e.f',
    ' a@b.c ',
    'a@b.c\t',
    '<a@b.c> (c)',
    'a @ b.c',
    'a@ b.c',
    'a@[127.0.0.1]',
    'Alice <a@b.c> x',
    'A.B <a@b.c>',
    'A, B <a@b.c>',
    '"A, B" <a@b.c>',
    'a@b@c',
    '@b.c',
    'a@',
    '<>',
    '<a@b.c',
    'a@b.c>',
  ],
  uri: [
    'http://example.com/x?y=1#frag',
    'http://example.com#frag',
    '/p#frag',
    '/p?q',
    '/p?',
    '/p??',
    'http://u:p@example.com/',
    'http://u@p@example.com/',
    'http://[::1]:8080/x',
    'http://[::1',
    'http://[::1]x/',
    'http://[fe80::1%25en0]/',
    'http://[fe80::1%en0]/',
    'http://[1.2.3.4]/',
    'http://[x]/',
    'http://exa%41mple.com/',
    'http://exa%c3%a9mple.com/',
    'http://example.com:port/',
    'http://example.com:80a/',
    'http://example.com:/',
    'http://ex ample.com/',
    'http://ex{ample}.com/',
    'http://ex<ample>.com/',
    'http://example.com/%zz',
    'http://example.com/%4',
    '/a%20b',
    '/a%2',
    'urn:isbn:0451450523',
    'a:b',
    '1http://x',
    '+x:y',
    ':x',
    '//host/path',
    '///x',
    'http:///x',
    'http://',
    'http:',
    'HTTP://EXAMPLE.COM',
    'http://u%zz@x/',
    'http://u{}@x/',
    '*',
    '**',
    'http://example.com/ä',
    'http://ä.com/',
    'http://a_b.com/',
    "http://a!$&'()*+,;=b.com/",
    'http://[::1]:/',
    'git+ssh://git@github.com:org/repo',
  ],
  duration: [
    '9223372036854775807ns',
    '9223372036854775808ns',
    '99999999999999999999h',
    '2562047h47m16.854775807s',
    '2562047h47m16.854775808s',
    '-2562047h47m16.854775808s',
    '5 hours 99999999999999999999 days',
    '1µs',
    '1μs',
    '1us',
    '1 micro',
    '1 nanos',
    '1 weeks',
    '1 wk',
    '1 yr',
    '1\thour',
    '1\u00a0hour',
    '+0',
    '-0',
    '0',
    '00',
    '1.h',
    '.h',
    '1e3s',
    '1 HOUR',
    '1 Sec',
    '1 mins',
    '1 MILLIS',
    '١ hour',
  ],
  'date-time': [
    '2024-01-01T00:00:00.Z',
    '2024-01-01T00:00:00,5Z',
    '2024-01-01T00:00:00+0100',
    '2024-01-01T00:00:00+01',
    '2024-01-01T00:00:00-23:59',
    '2024-01-01T00:00:00+24:00',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '0000-01-01T00:00:00Z',
    '2024-01-01TT00:00:00Z',
    '2024-01-01t00:00:00Z',
  ],
};

/** Hand-picked values, more seeds, then mutations until there are at least MIN_VALUES, the same in every run. */
const MIN_VALUES = 100;
function valuesFor(format: string, index: number): string[] {
  return stringMutations(
    [...SEEDS[format], ...(MORE_SEEDS[format] ?? [])],
    EDGE_CHARACTERS,
    1000 + index,
    MIN_VALUES + 20,
    10_000,
  );
}

const CANDIDATES: Record<string, string[]> = Object.fromEntries(Object.keys(SEEDS).map((f, i) => [f, valuesFor(f, i)]));

const fieldName = (format: string) => format.replace(/-/g, '');

describeEachApiServerVersion(
  'string formats of custom resources',
  (plane, version) => {
    beforeAll(async () => {
      const properties: Record<string, object> = {};
      for (const format of Object.keys(CANDIDATES)) {
        properties[fieldName(format)] = { type: 'array', items: { type: 'string', format } };
      }
      await plane().installCrds([
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'formats.fmt.example.com' },
          spec: {
            group: 'fmt.example.com',
            scope: 'Namespaced',
            names: { kind: 'Format', plural: 'formats' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
              },
            ],
          },
        },
      ]);
    }, 60_000);

    test('every format gets at least 100 values, accepted and refused', () => {
      for (const [format, values] of Object.entries(CANDIDATES)) {
        expect({
          format,
          enough: values.length >= MIN_VALUES,
          verdicts: new Set(values.map((v) => checkFormat(format, v, version))).size,
        }).toStrictEqual({ format, enough: true, verdicts: 2 });
      }
    });

    test.each(Object.keys(CANDIDATES))(
      '%s: refused exactly where the apiserver refuses',
      async (format) => {
        const values = CANDIDATES[format];
        const field = fieldName(format);
        const r = await plane().request('POST', '/apis/fmt.example.com/v1/namespaces/default/formats?dryRun=All', {
          apiVersion: 'fmt.example.com/v1',
          kind: 'Format',
          metadata: { name: 'x' },
          spec: { [field]: values },
        });
        expect([201, 422]).toContain(r.code);
        const refused = new Set<number>();
        for (const cause of r.body?.details?.causes ?? []) {
          const m = new RegExp(`^spec\\.${field}\\[(\\d+)\\]$`).exec(cause.field ?? '');
          if (m) refused.add(Number(m[1]));
        }
        const verdicts = values.map((v, i) => ({
          value: v,
          apiserver: refused.has(i) ? 'refused' : 'accepted',
          ours: checkFormat(format, v, version) ? 'accepted' : 'refused',
        }));
        expect(verdicts.filter((v) => v.apiserver !== v.ours)).toStrictEqual([]);
      },
      30_000,
    );
  },
  { shared: true },
);

/**
 * kube-openapi's type check with formats, quirks included: every JSON type in fields whose schema has a format
 * (a string format on strings and on other types, numeric formats on integers and numbers). Each value is its own
 * dry-run create; the apiserver's causes (field and message) must be exactly our errors.
 */
const TYPED_FIELDS: Record<string, object> = {
  datetime: { type: 'string', format: 'date-time' },
  unknownformat: { type: 'string', format: 'foo' },
  plain: { type: 'string' },
  boolbyte: { type: 'boolean', format: 'byte' },
  objuri: { type: 'object', format: 'uri' },
  arraydate: { type: 'array', items: { type: 'string' }, format: 'date' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  float: { type: 'number', format: 'float' },
  double: { type: 'number', format: 'double' },
  numint32: { type: 'number', format: 'int32' },
  stringint32: { type: 'string', format: 'int32' },
};
const TYPED_VALUES: unknown[] = [
  ['a'],
  [],
  { a: 1 },
  5,
  -5,
  true,
  false,
  1.5,
  '2024-01-01T00:00:00Z',
  'x',
  2147483647,
  2147483648,
  -2147483649,
  1e19,
  9007199254740992,
  5.0000000001,
  1e39,
  -1e39,
  3.4028234663852886e38,
  0,
];
const TYPE_GROUP = 'types.oracle.example.com';

describeEachApiServerVersion(
  'type check of formatted fields',
  (plane, version) => {
    const properties = Object.fromEntries(Object.entries(TYPED_FIELDS).map(([f, s]) => [f, s]));
    const schema = { type: 'object', properties: { spec: { type: 'object', properties } } } as const;
    beforeAll(async () => {
      await plane().installCrds([
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `typeds.${TYPE_GROUP}` },
          spec: {
            group: TYPE_GROUP,
            scope: 'Namespaced',
            names: { kind: 'Typed', plural: 'typeds' },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
          },
        },
      ]);
    }, 60_000);

    test.each(Object.keys(TYPED_FIELDS))(
      "%s: the apiserver's errors for every JSON type, exactly",
      async (field) => {
        const differences: object[] = [];
        for (const value of TYPED_VALUES) {
          const object = {
            apiVersion: `${TYPE_GROUP}/v1`,
            kind: 'Typed',
            metadata: { name: 'x' },
            spec: { [field]: value },
          };
          const r = await plane().request(
            'POST',
            `/apis/${TYPE_GROUP}/v1/namespaces/default/typeds?dryRun=All`,
            object,
          );
          expect([201, 422]).toContain(r.code);
          const apiserver = ((r.body?.details?.causes ?? []) as Array<{ field?: string; message: string }>)
            .map((c) => `${c.field ?? '<nil>'}: ${c.message}`)
            .sort();
          const ours = validateValue(schema as never, object, { kubernetesVersion: version })
            .issues // unknown fields the apiserver prunes silently are our errors by design
            .filter((i) => i.severity !== 'warning' && !i.message.startsWith('unknown field'))
            .map((i) => `${i.path}: ${i.message}`)
            .sort();
          if (JSON.stringify(apiserver) !== JSON.stringify(ours)) differences.push({ value, apiserver, ours });
        }
        expect(differences).toStrictEqual([]);
      },
      60_000,
    );
  },
  { shared: true },
);

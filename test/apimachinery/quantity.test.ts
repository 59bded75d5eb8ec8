import { Quantity } from '../../lib/apimachinery/quantity';
import { describeEachApiServerVersion, describeRealApiServer } from '../envtest';
import { specCrd } from '../support/spec-crd';

/**
 * Quantity syntax, value by value against the real apiserver: a CRD whose list items carry the CEL rule
 * `isQuantity(self)` (the apiserver evaluates it with `resource.ParseQuantity`); one dry-run create tells which
 * items it refuses, which must be exactly those `Quantity.isValid` refuses.
 */
const CANDIDATES = [
  // accepted, some of them surprising
  '0',
  '1',
  '1Gi',
  '1.5Gi',
  '100m',
  '500n',
  '1u',
  '2k',
  '3M',
  '4G',
  '5T',
  '6P',
  '7E',
  '1Ki',
  '1Mi',
  '1Ti',
  '1Pi',
  '1Ei',
  '1e3',
  '1E3',
  '1e-3',
  '1e+3',
  '-1',
  '+1',
  '0.5',
  '.5',
  '5.',
  '1.G',
  '+',
  '-',
  '.',
  'Ki',
  'k',
  'm',
  '007',
  '1.5n',
  '1.5Ki',
  '99999999999999999999',
  '123456789012345678901234567890Ei',
  '0Ei',
  '1e4294967296',
  '0.000000001',
  '1e-12',
  // refused
  '',
  ' 1',
  '1 ',
  'abc',
  '1Gib',
  '1ki',
  '1KI',
  '1kk',
  '1e',
  '1e+',
  '1e3.5',
  '1.2.3',
  '1m+3',
  'Ei',
  '+Ei',
  '.e-10',
  '1e99999999999999999999',
  '1,5',
  '--1',
  '١',
  '1Gi ',
];

describeRealApiServer(
  'quantities on kube-apiserver',
  (plane) => {
    beforeAll(async () => {
      await plane().installCrds([
        specCrd({
          group: 'qty.example.com',
          kind: 'Quantity',
          plural: 'quantities',
          spec: {
            type: 'object',
            properties: {
              values: {
                type: 'array',
                maxItems: 200,
                items: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: 'isQuantity(self)' }] },
              },
            },
          },
        }),
      ]);
    }, 60_000);

    test('the candidates include values of both verdicts', () => {
      const refused = CANDIDATES.filter((v) => !Quantity.isValid(v));
      expect(refused.length).toBeGreaterThan(15);
      expect(CANDIDATES.length - refused.length).toBeGreaterThan(30);
    });

    test('Quantity.isValid refuses exactly what resource.ParseQuantity refuses', async () => {
      const r = await plane().request('POST', '/apis/qty.example.com/v1/namespaces/default/quantities?dryRun=All', {
        apiVersion: 'qty.example.com/v1',
        kind: 'Quantity',
        metadata: { name: 'x' },
        spec: { values: CANDIDATES },
      });
      expect([201, 422]).toContain(r.code);
      const refused = new Set<number>();
      for (const cause of r.body?.details?.causes ?? []) {
        const m = /^spec\.values\[(\d+)\]$/.exec(cause.field ?? '');
        if (m) refused.add(Number(m[1]));
      }
      expect(refused.size).toBeGreaterThan(15); // the causes name the items
      const verdicts = CANDIDATES.map((v, i) => ({
        value: v,
        apiserver: refused.has(i) ? 'refused' : 'accepted',
        ours: Quantity.isValid(v) ? 'accepted' : 'refused',
      }));
      expect(verdicts.filter((v) => v.apiserver !== v.ours)).toStrictEqual([]);
    }, 30_000);
  },
  { shared: true },
);

describe('Quantity values', () => {
  test.each([
    ['1.5Gi', 1.5 * 2 ** 30],
    ['100m', 0.1],
    ['2e3', 2000],
    ['-1k', -1000],
    ['+', 0],
    ['.', 0],
    ['Ki', 0],
    ['1.G', 1e9],
    ['007', 7],
    ['.5', 0.5],
  ])('%s is %d', (text, expected) => {
    expect(Quantity.parse(text).asApproximateFloat()).toBeCloseTo(expected, 9);
  });

  test('any exponent ParseQuantity accepts parses, and compares exactly (no exponent limit of our own)', () => {
    const huge = [
      '1e100001',
      '1.5e100001',
      '1e-100001',
      '-1e100001',
      '1e2147483647',
      '1e-2147483648',
      '1.5e-2147483648',
      '1e9223372036854775807',
      '0e99999999',
    ];
    for (const text of huge) {
      expect({ text, valid: Quantity.isValid(text) }).toStrictEqual({ text, valid: true });
      expect(() => Quantity.parse(text)).not.toThrow();
    }
    expect(Quantity.parse('1e100001').compareTo(Quantity.parse('1.5e100001'))).toBe(-1n);
    expect(Quantity.parse('1e100001').compareTo(Quantity.parse('10e100000'))).toBe(0n);
    expect(Quantity.parse('1e-100001').compareTo(Quantity.parse('1n'))).toBe(0n); // rounded up to nano
    expect(Quantity.parse('-1e100001').compareTo(Quantity.parse('1'))).toBe(-1n);
    // Go's int32 scale arithmetic wraps: 1.5e-2147483648 is 15 × 10^2147483647, and 1e9223372036854775807 is 1e-1
    expect(Quantity.parse('1.5e-2147483648').compareTo(Quantity.parse('1e100001'))).toBe(1n);
    expect(Quantity.parse('1e9223372036854775807').compareTo(Quantity.parse('100m'))).toBe(0n);
    expect(Quantity.parse('0e99999999').sign()).toBe(0n);
    expect(Quantity.parse('1e100001').asApproximateFloat()).toBe(Infinity);
  });

  test("isInteger and asApproximateFloat follow Go's representation, not only the value", () => {
    // an int64 amount with a negative scale, or anything on the arbitrary-precision path, is no integer for AsInt64
    expect(
      ['1000m', '1.0', '1.5Gi', '1Pi', '10E', '1k', '1.5k', '7E', '1Ki'].map((t) => [t, Quantity.parse(t).isInteger()]),
    ).toStrictEqual([
      ['1000m', false],
      ['1.0', false],
      ['1.5Gi', false],
      ['1Pi', false],
      ['10E', false],
      ['1k', true],
      ['1.5k', true],
      ['7E', true],
      ['1Ki', true],
    ]);
    // the unscaled int64 times Go's math.Pow10 table: 500n is 500 × 10^-9
    expect(Quantity.parse('500n').asApproximateFloat()).toBe(5.000000000000001e-7);
    expect(Quantity.parse('1').add(Quantity.parse('1e-3')).asApproximateFloat()).toBe(1.0010000000000001);
    // sums stay on int64 while they fit; 2k - 16Ei leaves it (and is no integer then)
    expect(Quantity.parse('1k').add(Quantity.fromInt(1n)).isInteger()).toBe(true);
    expect(Quantity.parse('2k').sub(Quantity.parse('16Ei')).isInteger()).toBe(false);
  });

  test("refusals carry the apiserver's messages", () => {
    expect(() => Quantity.parse('1Gib')).toThrow(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    expect(() => Quantity.parse('1ki')).toThrow("unable to parse quantity's suffix");
    expect(() => Quantity.parse('Ei')).toThrow("unable to parse quantity's numeric portion");
  });
});

/**
 * Rounding and caps of `resource.ParseQuantity`, compared on the real apiserver with CEL's quantity equality
 * (1.32 and 1.36; 1.28 has no quantity() in CRD rules): each pair is equal exactly where ours says so.
 */
const PAIRS: Array<[string, string]> = [
  ['1.0000000001', '1.000000001'],
  ['1.0000000001', '1'],
  ['-1.0000000001', '-1.000000001'],
  ['1e-10', '1n'],
  ['1e-100', '1n'],
  ['0.0000000001', '0'],
  ['16Ei', '9223372036854775807'],
  ['8Ei', '9223372036854775807'],
  ['7Ei', '8070450532247928832'],
  ['-16Ei', '-9223372036854775807'],
  ['0.5Ki', '512'],
  ['0.1Ki', '102.4'],
  ['1.5n', '2n'],
  ['1.5n', '0.0000000015'],
  ['1u', '1000n'],
  ['10E', '1e19'],
  ['100Ei', '1e20'],
  ['1.00000000001Mi', '1048576.00001048576'],
  ['123456789012345678901234567890Ei', '9223372036854775807'],
  ['0.9999999999', '1'],
  ['1Ki', '1024'],
  ['1k', '1000'],
  ['12345678901234567890.5', '12345678901234567890.5'],
];

describeEachApiServerVersion(
  'quantity rounding and caps',
  (plane, version) => {
    const supported = version !== '1.28';
    const pairCrd = () =>
      specCrd({
        group: 'qtyeq.example.com',
        kind: 'Pair',
        plural: 'pairs',
        spec: {
          type: 'object',
          properties: {
            pairs: {
              type: 'array',
              maxItems: 50,
              items: {
                type: 'object',
                required: ['a', 'b'],
                properties: { a: { type: 'string', maxLength: 64 }, b: { type: 'string', maxLength: 64 } },
                'x-kubernetes-validations': [{ rule: 'quantity(self.a) == quantity(self.b)' }],
              },
            },
          },
        },
      });
    if (!supported) {
      test('1.28 has no quantity() in new CRD rules: the CRD is refused', async () => {
        const r = await plane().request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', pairCrd());
        expect({
          code: r.code,
          undeclared: /undeclared reference to 'quantity'/.test(r.body?.message ?? ''),
        }).toStrictEqual({ code: 422, undeclared: true });
      }, 30_000);
      return;
    }
    beforeAll(async () => {
      await plane().installCrds([pairCrd()]);
    }, 60_000);

    test('every pair is equal on the apiserver exactly where ours says so', async () => {
      const r = await plane().request('POST', '/apis/qtyeq.example.com/v1/namespaces/default/pairs?dryRun=All', {
        apiVersion: 'qtyeq.example.com/v1',
        kind: 'Pair',
        metadata: { name: 'x' },
        spec: { pairs: PAIRS.map(([a, b]) => ({ a, b })) },
      });
      expect([201, 422]).toContain(r.code);
      const unequal = new Set<number>();
      for (const cause of r.body?.details?.causes ?? []) {
        const m = /^spec\.pairs\[(\d+)\]$/.exec(cause.field ?? '');
        if (m) unequal.add(Number(m[1]));
      }
      const verdicts = PAIRS.map(([a, b], i) => ({
        a,
        b,
        apiserver: unequal.has(i) ? 'different' : 'equal',
        ours: Quantity.parse(a).compareTo(Quantity.parse(b)) === 0n ? 'equal' : 'different',
      }));
      expect(verdicts.filter((v) => v.apiserver !== v.ours)).toStrictEqual([]);
      expect(verdicts.filter((v) => v.ours === 'equal').length).toBeGreaterThan(5);
      expect(verdicts.filter((v) => v.ours === 'different').length).toBeGreaterThan(2);
    }, 30_000);
  },
  { shared: true },
);

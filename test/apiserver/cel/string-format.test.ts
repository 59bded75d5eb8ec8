import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { evaluateExpression } from '../../../lib/apiserver/cel/evaluate';

/**
 * cel-go's `format()` (strings extension v2) at its edges, the outputs the real apiservers gave in
 * test/apiserver/cel-library-differential.test.ts ("string format()" family, 1.32.13 and 1.36.3): the unit-level
 * record of what that differential compares value by value.
 */
const format = (f: string, args: string, version: KubernetesVersion = '1.32') => {
  const r = evaluateExpression(`'${f}'.format([${args}])`, { type: 'object' }, {}, undefined, { version });
  return r.ok ? r.value : { error: r.error };
};

describe("format(): cel-go's clauses through golang.org/x/text's en_US printer", () => {
  test('%f groups thousands, writes the exact value, infinity as ∞', () => {
    expect(format('%f', '1e21')).toBe('1,000,000,000,000,000,000,000.000000');
    expect(format('%.0f', '1e21')).toBe('1,000,000,000,000,000,000,000');
    expect(format('%.100f', '0.1')).toBe(`0.1000000000000000055511151231257827021181583404541015625${'0'.repeat(45)}`);
    expect(format('%.2f', "double('-Inf')")).toBe('-∞');
    expect(format('%.2f', '-0.000123456')).toBe('-0.00');
  });

  test('%e: six fraction digits whatever the precision, superscripted exponent; the spaces around × gone from 1.33', () => {
    expect(format('%e', '3.14159')).toBe('3.141590\u202f×\u202f10⁰⁰');
    expect(format('%.3e', '-0.000123456')).toBe('-1.234560\u202f×\u202f10⁻⁰⁴');
    expect(format('%e', '1e21', '1.36')).toBe('1.000000×10²¹');
    expect(format('%.3e', '0.1', '1.36')).toBe('1.000000×10⁻⁰¹');
  });

  test('lists and maps as CEL literals: doubles as %.6f, strings quoted, durations and timestamps as calls', () => {
    expect(format('%s', "[1, 'a', 2.5]")).toBe('[1, "a", 2.500000]');
    expect(format('%s', "{'k': 1.5}")).toBe('{"k":1.500000}');
    expect(format('%s', "duration('1h2m3.5s')")).toBe('3723.5s');
    expect(format('%s', "timestamp('2024-01-02T03:04:05.5Z')")).toBe('2024-01-02T03:04:05.5Z');
    expect(format('%s', "double('-Inf')")).toBe('-Inf');
  });

  test('a precision without digits and %d of a double are errors; unused arguments are not', () => {
    expect(format('%.f', '1.0')).toStrictEqual({
      error: expect.stringContaining('strconv.Atoi: parsing "": invalid syntax'),
    });
    expect(format('%d', "double('NaN')")).toStrictEqual({
      error: expect.stringContaining('decimal clause can only be used on integers, was given double'),
    });
    expect(format('abc', "0.1, 'x'")).toBe('abc');
  });
});

import { Quantity } from '../../../lib/apimachinery/quantity';
import { evaluateExpression } from '../../../lib/apiserver/cel/evaluate';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    count: { type: 'integer' },
    ratio: { type: 'number' },
    port: { 'x-kubernetes-int-or-string': true },
    'max-size': { type: 'string' },
    since: { type: 'string', format: 'date-time' },
    timeout: { type: 'string', format: 'duration' },
    blob: { type: 'string', format: 'byte' },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

const value = (expr: string, self: unknown = {}) => {
  const r = evaluateExpression(expr, schema, self);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('evaluateExpression: values as the apiserver exposes them', () => {
  test('integers are int, numbers are double, int-or-string keeps its kind', () => {
    expect(value('self.count + 1 == 3', { count: 2 })).toBe(true);
    expect(value('self.ratio * 2.0 == 3.0', { ratio: 1.5 })).toBe(true);
    expect(value('type(self.port) == int', { port: 80 })).toBe(true);
    expect(value("type(self.port) == string && self.port.endsWith('%')", { port: '50%' })).toBe(true);
  });

  test('escaped property names, timestamps, durations and bytes', () => {
    expect(value("self.max__dash__size == '1Gi'", { 'max-size': '1Gi' })).toBe(true);
    expect(value("self.since < timestamp('2030-01-01T00:00:00Z')", { since: '2024-05-01T10:00:00Z' })).toBe(true);
    expect(value("self.timeout > duration('1m')", { timeout: '90s' })).toBe(true);
    expect(value('size(self.blob) == 5', { blob: 'aGVsbG8=' })).toBe(true);
  });

  test('a missing field is an evaluation error, has() is false', () => {
    expect(evaluateExpression('self.count > 0', schema, {})).toMatchObject({ ok: false });
    expect(value('has(self.count)', {})).toBe(false);
  });

  test('optional field selection and indexing', () => {
    expect(value('self.?count.orValue(0) == 2', { count: 2 })).toBe(true);
    expect(value('self.?count.orValue(7) == 7 && !self.?count.hasValue()', {})).toBe(true);
    expect(
      value("self.?tags[?1].orValue('none') == 'b' && self.?tags[?5].orValue('none') == 'none'", { tags: ['a', 'b'] }),
    ).toBe(true);
    expect(value("self.?tags[?0].orValue('none') == 'none'", {})).toBe(true);
    expect(value("self.?since.hasValue() == false && self.?max__dash__size.value() == '1'", { 'max-size': '1' })).toBe(
      true,
    );
    // '.?' inside a string literal is left alone
    expect(value("'a.?b' == 'a.?b'")).toBe(true);
  });

  test('cel.bind binds a variable', () => {
    expect(value('cel.bind(x, self.count * 2, x + x == 8)', { count: 2 })).toBe(true);
    expect(value('cel.bind(x, self.count, cel.bind(y, x + 1, y * x)) == 6', { count: 2 })).toBe(true);
  });

  test('two-variable comprehensions', () => {
    expect(value('self.tags.all(i, t, t.size() > i)', { tags: ['a', 'bb', 'ccc'] })).toBe(true);
    expect(value("self.tags.exists(i, t, i == 1 && t == 'b')", { tags: ['a', 'b'] })).toBe(true);
    expect(value("self.tags.existsOne(i, t, t == 'a')", { tags: ['a', 'a'] })).toBe(false);
    expect(
      value("self.tags.transformList(i, t, i > 0, t + string(i)) == ['b1', 'c2']", { tags: ['a', 'b', 'c'] }),
    ).toBe(true);
    expect(value("{'a': 1, 'b': 2}.transformMap(k, v, v * 10) == {'a': 10, 'b': 20}")).toBe(true);
    expect(value("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, k) == {'b': 'b'}")).toBe(true);
    expect(value("{'a': 'x'}.transformMapEntry(k, v, {v: k}) == {'x': 'a'}")).toBe(true);
    expect(value("{'a': 1}.all(k, v, k == 'a' && v == 1)")).toBe(true);
  });

  test('oldSelf is bound when given', () => {
    expect(evaluateExpression('self.count >= oldSelf.count', schema, { count: 2 }, { count: 3 })).toStrictEqual({
      ok: true,
      value: false,
    });
  });
});

describe('evaluateExpression: Kubernetes libraries', () => {
  test.each([
    ["quantity('1Gi') == quantity('1024Mi')", true],
    ["quantity('1000m') == quantity('1')", true],
    ["quantity('1.5Gi').isGreaterThan(quantity('1G'))", true],
    ["quantity('500m').isInteger()", false],
    ["quantity('2k').asInteger() == 2000", true],
    ["quantity('1Gi').add(quantity('1Gi')).compareTo(quantity('2Gi')) == 0", true],
    ["sign(quantity('1').sub(2)) == -1", true],
    ["isQuantity('1Gi') && !isQuantity('1 Gi')", true],
    ['[1, 2, 2].isSorted() && ![2, 1].isSorted()', true],
    ['[1, 2, 3].sum() == 6 && [].sum() == 0', true],
    ['[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3', true],
    ["['a', 'b', 'a'].indexOf('a') == 0 && ['a', 'b', 'a'].lastIndexOf('a') == 2 && ['a'].indexOf('z') == -1", true],
    ["'abc123def45'.find('[0-9]+') == '123'", true],
    ["'abc123def45'.findAll('[0-9]+') == ['123', '45']", true],
    ["'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']", true],
    ["'Hello'.lowerAscii() == 'hello' && 'Hello'.upperAscii() == 'HELLO'", true],
    ["'a,b,c'.split(',') == ['a', 'b', 'c'] && ['a', 'b'].join('/') == 'a/b'", true],
    ["'  x  '.trim() == 'x' && 'hello'.substring(1, 3) == 'el' && 'aaa'.replace('a', 'b', 2) == 'bba'", true],
    ["'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3", true],
    ["url('https://example.com:8443/a/b?x=1&x=2').getHost() == 'example.com:8443'", true],
    [
      "url('https://example.com:8443/a').getPort() == '8443' && url('https://example.com/a').getScheme() == 'https'",
      true,
    ],
    ["url('https://example.com/a?x=1&x=2').getQuery()['x'] == ['1', '2']", true],
    ["isURL('/relative/path') && !isURL('not a url')", true],
    ["isIP('10.0.0.1') && !isIP('10.0.0.01') && !isIP('300.0.0.1') && isIP('fe80::1')", true],
    ["ip('10.0.0.1').family() == 4 && ip('::1').family() == 6 && ip('127.0.0.1').isLoopback()", true],
    ["cidr('192.168.0.0/16').containsIP('192.168.10.1') && !cidr('192.168.0.0/16').containsIP(ip('10.0.0.1'))", true],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", true],
    ["cidr('10.0.0.0/8').prefixLength() == 8 && string(cidr('10.0.0.0/8').ip()) == '10.0.0.0'", true],
    ["isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/33')", true],
    ['sets.contains([1, 2, 3], [3, 1]) && sets.equivalent([1, 2], [2, 1]) && sets.intersects([1], [1, 5])', true],
    ["'%s-%d'.format(['a', 1]) == 'a-1'", true],
    ["base64.encode(b'hello') == 'aGVsbG8=' && string(base64.decode('aGVsbG8=')) == 'hello'", true],
    ["isSemver('1.2.3-rc.1+build') && !isSemver('v1.2') && isSemver('v1.2', true)", true],
    ["semver('1.10.0').isGreaterThan(semver('1.9.9')) && semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", true],
    ["semver('1.0.0-alpha.2').compareTo(semver('1.0.0-alpha.10')) == -1 && semver('v2', true).major() == 2", true],
    ["quantity('2').isGreaterThan(quantity('1'))", true],
    // Go orders strings by their UTF-8 bytes (code points): U+1F600 sorts after U+FFFF, unlike JavaScript's UTF-16 order
    [
      "['\\uffff', '\\U0001F600'].isSorted() && ['\\U0001F600', '\\uffff'].max() == '\\U0001F600' && '\\uffff' < '\\U0001F600'",
      true,
    ],
  ])('%s', (expr, expected) => {
    expect(value(expr)).toBe(expected);
  });

  test('quantity() of a malformed quantity is an evaluation error', () => {
    expect(evaluateExpression("sign(quantity('1 Gi')) == 1", schema, {})).toMatchObject({ ok: false });
  });
});

describe('Quantity', () => {
  test('parses suffixes exactly', () => {
    expect(Quantity.parse('1Ki').asInteger()).toBe(1024n);
    expect(Quantity.parse('1.5k').asInteger()).toBe(1500n);
    expect(Quantity.parse('1e3').asInteger()).toBe(1000n);
    expect(Quantity.parse('250m').asApproximateFloat()).toBe(0.25);
    expect(() => Quantity.parse('1Gb')).toThrow(/quantities must match/);
  });
});

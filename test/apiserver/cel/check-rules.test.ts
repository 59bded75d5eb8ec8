import { errorsOf, warningsOf } from '../../../lib/apimachinery/issue';
import { checkCelRules } from '../../../lib/apiserver/cel/check-rules';
import { JSONSchemaProps, ValidationRule } from '../../../lib/apiserver/schema/json-schema-props';

/** A SampleDB-like schema with the given rules on `spec`. */
function specWithRules(rules: ValidationRule[], extraSpecProps: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': rules,
        properties: {
          replicas: { type: 'integer', minimum: 1 },
          version: { type: 'string', maxLength: 10 },
          memory: { type: 'string', maxLength: 20 },
          ...extraSpecProps,
        },
      },
    },
  };
}

const check = (rules: ValidationRule[], extra?: Record<string, JSONSchemaProps>) =>
  checkCelRules(specWithRules(rules, extra), 'spec.versions[0].schema.openAPIV3Schema');

const RULE0 = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';

describe('checkCelRules: compilation', () => {
  test('accepts a valid rule', () => {
    expect(check([{ rule: 'self.replicas <= 7', message: 'at most 7' }])).toStrictEqual([]);
  });

  test('fails an unknown field with its position', () => {
    const issues = check([{ rule: 'self.replicaz <= 7' }]);
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe(`${RULE0}.rule`);
    expect(issues[0].message).toMatch(/compilation failed: ERROR: <input>:1:\d+: undefined field 'replicaz'/);
  });

  test('fails a wrong operand type', () => {
    expect(check([{ rule: 'self.version > 3' }])[0].message).toMatch(
      /no matching overload for '_>_' applied to '\(string, int\)'/,
    );
  });

  test('fails a rule that is not a bool', () => {
    expect(check([{ rule: 'self.replicas + 1' }])[0].message).toMatch(/must evaluate to a bool, got int/);
  });

  test('fails a syntax error', () => {
    expect(check([{ rule: 'self.replicas <=' }])[0].message).toMatch(/compilation failed: ERROR: <input>:1:/);
  });

  test('fails has() on an undeclared field and an undeclared variable', () => {
    expect(check([{ rule: 'has(self.nope)' }])[0].message).toMatch(/undefined field 'nope'/);
    expect(check([{ rule: 'other.x == 1' }])[0].message).toMatch(/undeclared reference to 'other'/);
  });

  test('types list elements, map values and int-or-string', () => {
    const extra: Record<string, JSONSchemaProps> = {
      tags: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 } },
      labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 5 } },
      port: { 'x-kubernetes-int-or-string': true },
    };
    expect(
      check(
        [
          { rule: "self.tags.all(t, t.startsWith('a'))" },
          { rule: 'self.labels.all(k, self.labels[k].size() < 5)' },
          { rule: "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')" },
        ],
        extra,
      ),
    ).toStrictEqual([]);
    expect(check([{ rule: 'self.tags.all(t, t > 1)' }], extra)[0].message).toMatch(
      /'_>_' applied to '\(string, int\)'/,
    );
  });

  test('does not expose unknown data, like the apiserver', () => {
    const extra: Record<string, JSONSchemaProps> = {
      raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'integer' } } },
      untyped: { 'x-kubernetes-preserve-unknown-fields': true },
    };
    expect(check([{ rule: 'self.raw.known > 0' }], extra)).toStrictEqual([]);
    expect(check([{ rule: 'self.raw.anything == 1' }], extra)[0].message).toMatch(/undefined field 'anything'/);
    expect(check([{ rule: 'has(self.untyped)' }], extra)[0].message).toMatch(/undefined field 'untyped'/);
  });

  test('escapes property names like the apiserver', () => {
    const extra = { 'max-size': { type: 'integer' }, namespace: { type: 'string', maxLength: 5 } };
    expect(check([{ rule: 'self.max__dash__size > 0 && self.__namespace__ != ""' }], extra)).toStrictEqual([]);
  });

  test('exposes apiVersion, kind and metadata.name at the resource root', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('db-') && self.kind == 'SampleDB'" }],
      properties: { spec: { type: 'object' } },
    };
    expect(checkCelRules(schema, 'root')).toStrictEqual([]);
  });
});

describe('checkCelRules: entry errors and untyped nodes', () => {
  // measured on 1.28, 1.32 and 1.36 (invalid-crds.test.ts has the verdicts on the real apiserver)
  test("an entry's error skips compiling every rule of its node, and of the nodes above it", () => {
    expect(check([{ rule: 'true', reason: 'Bad' }, { rule: 'self.nope' }]).map((i) => i.path)).toStrictEqual([
      `${RULE0}.reason`,
    ]);
    const nested = specWithRules([{ rule: 'self.nope' }], {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: '' }] },
    });
    expect(checkCelRules(nested, 'root').map((i) => i.path)).toStrictEqual([
      'root.properties[spec].properties[name].x-kubernetes-validations[0].rule',
    ]);
  });

  test('a rule on an untyped node cannot be compiled, whatever it says', () => {
    const untyped = {
      'x-kubernetes-preserve-unknown-fields': true as const,
      'x-kubernetes-validations': [{ rule: 'true' }],
    };
    expect(checkCelRules(specWithRules([], { free: untyped }), 'root')).toStrictEqual([
      {
        path: 'root.properties[spec].properties[free].x-kubernetes-validations',
        message:
          'Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
      },
    ]);
    // an int-or-string has a type
    const intOrString = { 'x-kubernetes-int-or-string': true as const, 'x-kubernetes-validations': [{ rule: 'true' }] };
    expect(checkCelRules(specWithRules([], { port: intOrString }), 'root')).toStrictEqual([]);
  });
});

describe('checkCelRules: entry fields', () => {
  test('fails a missing rule', () => {
    expect(check([{ rule: '' }])).toStrictEqual([
      { path: `${RULE0}.rule`, message: 'Required value: rule is not specified' },
    ]);
    expect(check([{ rule: '  \n ' }])[0].message).toBe('Required value: rule is not specified');
  });

  test('fails an unknown reason', () => {
    const issues = check([{ rule: 'true', reason: 'FieldValueWrong' }]);
    expect(issues[0]).toMatchObject({ path: `${RULE0}.reason`, value: 'FieldValueWrong' });
    expect(issues[0].message).toBe(
      'Unsupported value: "FieldValueWrong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    );
  });

  test('accepts every supported reason', () => {
    const reasons = ['FieldValueRequired', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueDuplicate'];
    expect(check(reasons.map((reason) => ({ rule: 'true', reason })))).toStrictEqual([]);
  });

  test('fails a message with a line break', () => {
    expect(check([{ rule: 'true', message: 'a\nb' }])[0]).toMatchObject({
      path: `${RULE0}.message`,
      message: 'Invalid value: message must not contain line breaks',
    });
    // surrounding whitespace is trimmed first, as YAML block scalars add a trailing newline
    expect(check([{ rule: 'true', message: 'ok\n' }])).toStrictEqual([]);
    expect(check([{ rule: 'true', message: ' ' }])[0].message).toBe(
      'Invalid value: message must be non-empty if specified',
    );
    // kube-apiserver 1.32 sets no length limit on a message (invalid-crds.test.ts checks it there)
    expect(check([{ rule: 'true', message: 'x'.repeat(5000) }])).toStrictEqual([]);
  });

  test('fails a multi-line rule without a message, accepts it with one', () => {
    expect(check([{ rule: 'self.replicas > 0 &&\nself.replicas < 9' }])[0].message).toBe(
      'Required value: message must be specified if rule contains line breaks',
    );
    expect(check([{ rule: 'self.replicas > 0\n' }])).toStrictEqual([]);
    expect(check([{ rule: 'self.replicas > 0 &&\nself.replicas < 9', message: 'between 1 and 8' }])).toStrictEqual([]);
  });

  test('checks fieldPath syntax and existence', () => {
    expect(check([{ rule: 'true', fieldPath: '.replicas' }])).toStrictEqual([]);
    expect(
      check([{ rule: 'true', fieldPath: ".labels['app.kubernetes.io/name']" }], {
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      }),
    ).toStrictEqual([]);
    expect(check([{ rule: 'true', fieldPath: ".version['x']" }])[0].message).toBe(
      'Invalid value: fieldPath must be a valid path: does not refer to a valid field',
    );
    expect(check([{ rule: 'true', fieldPath: '.replicaz' }])[0].message).toBe(
      'Invalid value: fieldPath must be a valid path: does not refer to a valid field',
    );
    expect(check([{ rule: 'true', fieldPath: 'replicas' }])[0]).toMatchObject({
      path: `${RULE0}.fieldPath`,
      message: 'Invalid value: fieldPath must be a valid path: expected [ or . but got: replicas',
    });
    expect(
      check([{ rule: 'true', fieldPath: '.tags[0]' }], { tags: { type: 'array', items: { type: 'string' } } })[0]
        .message,
    ).toBe('Invalid value: fieldPath must be a valid path: expected single quoted string but got 0');
  });

  test('fails a blank or multi-line fieldPath', () => {
    expect(check([{ rule: 'true', fieldPath: ' ' }])[0].message).toBe(
      'Invalid value: fieldPath must be non-empty if specified',
    );
    expect(check([{ rule: 'true', fieldPath: '.replicas\n' }])[0].message).toBe(
      'Invalid value: fieldPath must not contain line breaks',
    );
  });

  test('compiles messageExpression and requires a string', () => {
    expect(check([{ rule: 'true', messageExpression: ' ' }])[0].message).toBe(
      'Required value: messageExpression must be non-empty if specified',
    );
    // an empty one is as good as none (the apiserver checks `len > 0` first: measured on 1.28, 1.32 and 1.36)
    expect(check([{ rule: 'true', messageExpression: '' }])).toStrictEqual([]);
    expect(check([{ rule: 'self.replicas < 8', messageExpression: "'got ' + self.version" }])).toStrictEqual([]);
    expect(check([{ rule: 'true', messageExpression: 'self.replicas' }])[0].message).toMatch(
      /must evaluate to a string, got int/,
    );
    expect(check([{ rule: 'true', messageExpression: 'self.nope' }])[0].message).toMatch(
      /messageExpression compilation failed: .*undefined field 'nope'/,
    );
  });

  test('types oldSelf as an optional with optionalOldSelf', () => {
    expect(
      check([{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }]),
    ).toStrictEqual([]);
    expect(check([{ rule: 'self.replicas >= oldSelf.replicas', optionalOldSelf: true }])[0].message).toMatch(
      /does not support field selection/,
    );
  });

  test('fails optionalOldSelf on a rule that does not use oldSelf', () => {
    expect(check([{ rule: 'true', optionalOldSelf: true }])[0].path).toBe(`${RULE0}.optionalOldSelf`);
    // false is set too
    expect(check([{ rule: 'true', optionalOldSelf: false }])).toStrictEqual([
      {
        path: `${RULE0}.optionalOldSelf`,
        message: 'Invalid value: may not be set if oldSelf is not used in rule',
        value: false,
      },
    ]);
    expect(check([{ rule: 'self == oldSelf', optionalOldSelf: false }])).toStrictEqual([]);
  });
});

describe('checkCelRules: transition rules', () => {
  test('allows oldSelf through properties and map-list items', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.version == oldSelf.version', message: 'immutable' }],
          properties: {
            version: { type: 'string', maxLength: 10 },
            ports: {
              type: 'array',
              maxItems: 10,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                required: ['name'],
                'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port' }],
                properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
              },
            },
          },
        },
      },
    };
    expect(checkCelRules(schema, 'root')).toStrictEqual([]);
  });

  test('fails oldSelf under the items of an atomic list', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          maxItems: 10,
          items: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.a == oldSelf.a' }],
            properties: { a: { type: 'integer' } },
          },
        },
      },
    };
    const issues = checkCelRules(schema, 'root');
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe('root.properties[items].items.x-kubernetes-validations[0].rule');
    expect(issues[0].message).toMatch(
      /^Invalid value: oldSelf cannot be used on the uncorrelatable portion of the schema within root\.properties\[items\] /,
    );
  });

  test('allows oldSelf below an atomic or a granular object, fails it below a map type upstream does not know', () => {
    const schema = (mapType: string): JSONSchemaProps => ({
      type: 'object',
      properties: {
        cfg: {
          type: 'object',
          'x-kubernetes-map-type': mapType,
          properties: { a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] } },
        },
      },
    });
    // upstream's MapIsCorrelatable; the atomic case is also a real-apiserver case (invalid-crds.test.ts)
    expect(checkCelRules(schema('atomic'), 'root')).toStrictEqual([]);
    expect(checkCelRules(schema('granular'), 'root')).toStrictEqual([]);
    expect(checkCelRules(schema('sparse'), 'root')[0].message).toMatch(
      /uncorrelatable portion of the schema within root\.properties\[cfg\] /,
    );
  });
});

describe('checkCelRules: Kubernetes libraries', () => {
  test.each([
    "quantity(self.memory).isLessThan(quantity('1Gi'))",
    'isQuantity(self.memory) && quantity(self.memory).asInteger() > 0',
    "self.version.lowerAscii().split('.').size() <= 3",
    "self.version.find('[0-9]+') != '' && self.version.findAll('[0-9]').size() < 4",
    '[1, 2, 3].isSorted() && [1, 2].sum() == 3 && [3, 4].min() == 3 && [1].max() == 1 && [1, 2].indexOf(2) == 1 && [1, 1].lastIndexOf(1) == 1',
    "self.version.replace('v', '').trim().substring(0, 1) != ''",
    "isURL('https://example.com') && url('https://example.com').getHost() == 'example.com'",
    "isIP('10.0.0.1') && ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.1.1.1'))",
    "sets.contains([1, 2], [1]) && strings.quote(self.version) != ''",
    "!format.dns1123Label().validate(self.version).hasValue() && format.named('uuid').hasValue()",
    'optional.of(self.replicas).orValue(0) >= 0 && optional.none().hasValue() == false',
  ])('type-checks supported function: %s', (rule) => {
    expect(check([{ rule }])).toStrictEqual([]);
  });

  test('semver: refused by 1.32 (its environment lacks the library), accepted by 1.34 and newer', () => {
    const rule =
      "isSemver(self.version, true) && semver(self.version, true).isGreaterThan(semver('1.0.0')) && semver('1.2.3').major() == 1";
    const schema = specWithRules([{ rule }]);
    expect(errorsOf(checkCelRules(schema, 'root')).map((i) => i.message)[0]).toBe(
      "Invalid value: compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')",
    );
    expect(checkCelRules(schema, 'root', '1.34')).toStrictEqual([]);
    expect(checkCelRules(schema, 'root', '1.36')).toStrictEqual([]);
  });

  test('cel-go extensions no version offers (math, encoders) are compile errors, as every apiserver reports them', () => {
    // (1.28's older checker adds a third error: the call of the undeclared `greatest` has no type, which `<` refuses)
    for (const version of ['1.32', '1.36'] as const) {
      const issues = checkCelRules(
        specWithRules([{ rule: 'math.greatest([self.replicas, 1]) < 10' }]),
        'root',
        version,
      );
      expect(errorsOf(issues).map((i) => i.message)).toStrictEqual([
        "Invalid value: compilation failed: ERROR: <input>:1:1: undeclared reference to 'math' (in container '')",
        "Invalid value: compilation failed: ERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')",
      ]);
    }
  });

  test('warns (does not fail) for optional helpers the local library lacks', () => {
    const issues = check([{ rule: 'optional.of(self.replicas).or(optional.none()).hasValue()' }]);
    expect(errorsOf(issues)).toStrictEqual([]);
    expect(warningsOf(issues).map((i) => i.message)).toStrictEqual([
      'not checked locally: function or is not supported by the local CEL library',
    ]);
  });

  test('checks optional field selection and indexing', () => {
    const extra = {
      labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 5 } },
    };
    expect(
      check(
        [
          { rule: 'self.?version.orValue("") != "x"' },
          { rule: "self.?labels[?'app'].orValue('') != 'x' && self.?labels.app.hasValue()" },
          { rule: "self.?version.value().startsWith('1')" },
        ],
        extra,
      ),
    ).toStrictEqual([]);
    expect(check([{ rule: 'self.?versionz.hasValue()' }])[0].message).toMatch(/undefined field 'versionz'/);
    expect(check([{ rule: 'self.?version.value() > 1' }])[0].message).toMatch(/'_>_' applied to '\(string, int\)'/);
  });

  test('refuses cel.bind, which kube-apiserver 1.32 does not offer CRD rules', () => {
    expect(check([{ rule: "cel.bind(v, self.version, v.startsWith('1') || v.size() > 3)" }])[0].message).toMatch(
      /compilation failed: .*undeclared reference to 'cel'/,
    );
  });

  test('refuses two-variable comprehensions, which kube-apiserver 1.32 does not offer CRD rules (two-variable.test.ts checks it there)', () => {
    const extra: Record<string, JSONSchemaProps> = {
      labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 5 } },
      tags: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 } },
    };
    for (const rule of [
      'self.labels.all(k, v, k.startsWith(v))',
      "self.tags.transformList(i, t, i < 2, t + '!').size() <= 2",
    ]) {
      expect(check([{ rule }], extra)[0].message).toMatch(
        /compilation failed: ERROR: <input>:1:\d+: undeclared reference to '(all|transformList)'/,
      );
    }
    expect(check([{ rule: "self.labels.all(k, k != '')" }], extra)).toStrictEqual([]);
  });

  test('still fails a wrong call of a supported function', () => {
    expect(check([{ rule: 'sign(quantity(1)) == 1' }])[0].message).toMatch(
      /no matching overload for 'quantity' applied to '\(int\)'/,
    );
  });
});

describe('checkCelRules: cost', () => {
  const unbounded: JSONSchemaProps = { type: 'array', items: { type: 'string' } };
  const bounded: JSONSchemaProps = { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } };

  test('fails iteration over an unbounded list of unbounded strings with the apiserver hint', () => {
    const issues = check([{ rule: "self.names.all(n, n.matches('^[a-z]+$'))" }], { names: unbounded });
    expect(issues).toHaveLength(3); // the rule, the rule again as one of the most expensive, and the schema total
    expect(issues[0].path).toBe(`${RULE0}.rule`);
    expect(issues[0].message).toMatch(
      /^Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/,
    );
    expect(issues[1]).toStrictEqual({
      path: `${RULE0}.rule`,
      message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
    });
    expect(issues[2].message).toMatch(
      /^Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget/,
    );
  });

  test('passes the same rule once maxItems and maxLength bound it', () => {
    expect(check([{ rule: "self.names.all(n, n.matches('^[a-z]+$'))" }], { names: bounded })).toStrictEqual([]);
  });

  test('multiplies the cost of rules inside list items by the list size', () => {
    const items = (maxItems?: number): JSONSchemaProps => ({
      type: 'array',
      ...(maxItems ? { maxItems } : {}),
      items: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: "self.name.contains('x')" }],
        properties: { name: { type: 'string', maxLength: 1000 } },
      },
    });
    expect(errorsOf(check([], { entries: items() }))[0].message).toMatch(/estimated rule cost exceeds budget/);
    expect(check([], { entries: items(100) })).toStrictEqual([]);
  });

  test('a cheap rule on an unbounded list stays within budget', () => {
    expect(check([{ rule: 'self.names.size() < 10' }], { names: unbounded })).toStrictEqual([]);
  });
});

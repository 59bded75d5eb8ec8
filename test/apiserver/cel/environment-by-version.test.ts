import { errorsOf } from '../../../lib/apimachinery/issue';
import { compileAdmissionExpression } from '../../../lib/apiserver/admission-policy/compile';
import { DYN } from '../../../lib/apiserver/cel/cel-types';
import { checkCelRules } from '../../../lib/apiserver/cel/check-rules';
import { CEL_LIBRARIES, celEnvironment } from '../../../lib/apiserver/cel/environment';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';
import { describeEachApiServerVersion, OracleVersion } from '../../envtest';

/**
 * The CEL environment by Kubernetes version (lib/apiserver/cel/environment.ts), construct by construct against each
 * version's apiserver, for CRD rules and for ValidatingAdmissionPolicy expressions: each probe is compiled by the
 * apiserver (one CRD with a rule per probe, one policy with a validation per probe, both dry-run) and by our checker
 * for that version, and the verdicts and the first error (cel-go's `ERROR: <input>:L:C: …` line) must be the same.
 * Every library of `CEL_LIBRARIES` has probes; the 1.36-only constructs are here too (two-variable comprehensions,
 * the lists extension, semver, optional.unwrap/first/last), and the cel-go extensions no version offers.
 */
const PROBES: readonly string[] = [
  // quantity, format, sets, optional values and syntax (1.29/1.30/1.32)
  "quantity('1').isInteger()",
  "isQuantity('1')",
  "quantity('1') == quantity('1')",
  "format.dns1123Label().validate('a').hasValue()",
  "format.named('uri').hasValue()",
  'sets.contains([1], [1])',
  'sets.equivalent([1], [1])',
  "sets.intersects(self.ls, ['a'])",
  'self.?s.hasValue()',
  "self.m[?'a'].orValue(0) >= 0",
  'optional.of(1).hasValue()',
  'optional.none().hasValue() == false',
  'optional.ofNonZeroValue(0).hasValue() == false',
  '[?optional.of(1)] == [1]',
  'optional.unwrap([optional.of(1)]) == [1]',
  // cross-type numeric comparisons
  '1 < 1.5',
  '1u < 2',
  'self.d > 1',
  'self.l.sum() == 1.5',
  '2 == 2u',
  // strings extension versions
  "'%s'.format(['a']) == 'a'",
  "strings.quote('a') == '\"a\"'",
  "'%d %.2f %e %x %X %o %b'.format([1, 1.0, 1.0, 10, 10, 8, 2]) != ''",
  "'abc'.reverse() == 'cba'",
  "strings.reverse('abc') == 'cba'",
  "'a'.charAt(0) == 'a'",
  "'a b'.split(' ').size() == 2",
  "self.s.lastIndexOf('a') >= -1",
  // IP, CIDR, URL, regex, Kubernetes lists (every version)
  "isIP('1.2.3.4')",
  "ip('1.2.3.4').family() == 4",
  "cidr('1.0.0.0/8').prefixLength() == 8",
  "ip.isCanonical('1.2.3.4')",
  "url('http://a').getHost() == 'a'",
  "self.s.find('[0-9]') == ''",
  'self.l.isSorted()',
  'self.l.sum() >= 0',
  'self.l.indexOf(1) >= -1',
  // the Kubernetes lists library's version 1 (base.go introduces it at 1.37: new expressions get it from 1.38)
  'self.l.includes(1)',
  // semver (1.34)
  "isSemver('1.2.3')",
  "semver('1.2.3').major() == 1",
  "semver('v1.2', true).minor() == 2",
  "semver('1.2.3').isLessThan(semver('1.2.4'))",
  // two-variable comprehensions (1.33)
  'self.l.all(i, v, v > i)',
  'self.l.exists(i, v, v > 0)',
  'self.l.existsOne(i, v, v > 0)',
  'self.l.exists_one(i, v, v > 0)',
  'self.l.transformList(i, v, v + i).size() >= 0',
  'self.l.transformList(i, v, v > 0, v * 2).size() >= 0',
  'self.m.transformMap(k, v, v + 1).size() >= 0',
  "self.m.transformMap(k, v, k != 'a', v).size() >= 0",
  'self.m.transformMapEntry(k, v, {k: v}).size() >= 0',
  'self.m.all(k, v, v > 0)',
  "self.m.exists(k, v, k == 'a')",
  "self.l.all(i, v, v == 'a')",
  'self.l.transformList(i, v, v).all(x, x > 0)',
  // the lists extension (1.35) and the newer optional library (first/last)
  'lists.range(3) == [0, 1, 2]',
  'self.l.slice(0, 0) == []',
  '[[1], [2]].flatten() == [1, 2]',
  '[[[1]]].flatten(2) == [1]',
  'self.l.distinct().size() >= 0',
  'self.l.reverse().size() >= 0',
  'self.ls.sort().size() >= 0',
  'self.l.sortBy(x, -x).size() >= 0',
  'self.ls.sortBy(s, s.size()).size() >= 0',
  'self.l.first().hasValue() || true',
  'self.l.last().orValue(0) >= 0',
  // never offered: cel-go's math, encoders, bindings and regex extensions
  'math.greatest(1, 2) == 2',
  'math.abs(-1) == 1',
  "base64.encode(b'a') == 'YQ=='",
  'cel.bind(x, 1, x == 1)',
  "regex.replace('a', 'a', 'b') == 'b'",
  'self.l.map(i, v, v + 1).size() >= 0',
  // literal validators (compile time from 1.30)
  "duration('1s') > duration('0s')",
  "duration('bogus') > duration('1s')",
  "timestamp('2024-13-01T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')",
  "self.s.matches('[')",
  "[1, 'a'].size() == 2",
  "{'a': 1, 'b': 'c'}.size() == 2",
  "timestamp('2024-01-01T00:00:00Z').getHours('America/New_York') == 19",
  // plain rules, accepted everywhere
  'self.s.size() >= 0 && type(self.s) == string',
  'dyn(1) == 1',
  'self.l.map(x, x * 2).filter(y, y > 2).size() >= 0',
];

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    s: { type: 'string', maxLength: 10 },
    d: { type: 'number' },
    l: { type: 'array', maxItems: 10, items: { type: 'integer' } },
    ls: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
    m: { type: 'object', maxProperties: 10, additionalProperties: { type: 'integer' } },
  },
};

/** The same probes in a policy: `self`'s fields as literals of their types. */
const LITERALS: Record<string, string> = { s: "'ab'", d: '1.5', l: '[1, 2]', ls: "['a', 'b']", m: "{'a': 1}" };
const asPolicyExpression = (probe: string) =>
  probe.replace(/self\.(\?)?(s|d|l|ls|m)\b/g, (_all, opt, f) => (opt ? `{'f': ${LITERALS[f]}}.?f` : LITERALS[f]));

const crd = (group: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `probes.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind: 'Probe', plural: 'probes' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: crdProperties() } } },
        },
      },
    ],
  },
});

function crdProperties(): Record<string, JSONSchemaProps> {
  return Object.fromEntries(PROBES.map((rule, i) => [`p${i}`, { ...SCHEMA, 'x-kubernetes-validations': [{ rule }] }]));
}

/** The first line of cel-go's first error in a message (`ERROR: <input>:1:9: undeclared reference to …`), or what the message says otherwise. */
function headline(message: string): string {
  const error = /ERROR: <input>:[^\n]*/.exec(message);
  if (error) return error[0].replace(/ \| .*$/, '');
  if (/estimated rule cost|cost total/.test(message)) return 'over the cost budget';
  const instantiation = /program instantiation failed: [^\n]*/.exec(message);
  if (instantiation) return instantiation[0];
  return message;
}

type Verdicts = Record<string, string>;

/** The schema's own verdict (the cost total of all its rules) beside the probes'. */
const SCHEMA_PATH = 'spec.validation.openAPIV3Schema';
const accepted = (): Verdicts => ({ '@schema': 'accepted', ...Object.fromEntries(PROBES.map((p) => [p, 'accepted'])) });

function oursForCrd(version: OracleVersion): Verdicts {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: crdProperties() } },
  };
  const out = accepted();
  for (const issue of errorsOf(checkCelRules(schema, SCHEMA_PATH, version))) {
    const m = /properties\[p(\d+)\]/.exec(issue.path);
    if (!m && issue.path !== SCHEMA_PATH) {
      throw new Error(`an issue outside the probes: ${issue.path}: ${issue.message}`);
    }
    const probe = m ? PROBES[Number(m[1])] : '@schema';
    if (out[probe] === 'accepted') out[probe] = headline(issue.message);
  }
  return out;
}

function oursForPolicy(version: OracleVersion): Verdicts {
  return {
    '@schema': 'accepted',
    ...Object.fromEntries(
      PROBES.map((p) => {
        const c = compileAdmissionExpression(
          asPolicyExpression(p),
          { object: DYN, authorizer: true, requestResource: true },
          version,
        );
        return [
          p,
          c.errorText
            ? headline(c.errorText)
            : c.programError
              ? `program instantiation failed: ${c.programError}`
              : 'accepted',
        ];
      }),
    ),
  };
}

function theirs(
  causes: ReadonlyArray<{ field?: string; message?: string }>,
  at: RegExp,
  probeOf: (i: number) => string,
): Verdicts {
  const out = accepted();
  for (const c of causes) {
    const m = at.exec(c.field ?? '');
    if (!m && c.field !== SCHEMA_PATH) throw new Error(`a cause outside the probes: ${JSON.stringify(c)}`);
    const probe = m ? probeOf(Number(m[1])) : '@schema';
    if (out[probe] === 'accepted') out[probe] = headline(String(c.message));
  }
  return out;
}

/** 1.28 serves ValidatingAdmissionPolicy as v1beta1 behind its feature gate; later versions as v1. */
const policyApi = (version: OracleVersion) =>
  version === '1.28' ? 'admissionregistration.k8s.io/v1beta1' : 'admissionregistration.k8s.io/v1';

describeEachApiServerVersion(
  'the CEL environment of each version, construct by construct',
  (plane, version) => {
    test('CRD rules: every probe compiles, or fails with the same first error, on the apiserver and in our checker for this version', async () => {
      const r = await plane().request(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
        crd(`env${version.replace('.', '')}.example.com`),
      );
      if (r.code !== 201 && r.code !== 422) throw new Error(`unexpected reply ${r.code}: ${JSON.stringify(r.body)}`);
      const apiserver = theirs(r.body?.details?.causes ?? [], /properties\[p(\d+)\]/, (i) => PROBES[i]);
      expect(oursForCrd(version)).toStrictEqual(apiserver);
      // the probes discriminate: each version refuses some and accepts some
      expect(Object.values(apiserver).filter((v) => v === 'accepted').length).toBeGreaterThan(10);
      expect(Object.values(apiserver).filter((v) => v !== 'accepted').length).toBeGreaterThan(5);
    }, 60_000);

    test("admission policies: the same environment (each probe with literals for self's fields)", async () => {
      const api = policyApi(version);
      const r = await plane().request('POST', `/apis/${api}/validatingadmissionpolicies?dryRun=All`, {
        apiVersion: api,
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'probes' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
            ],
          },
          validations: PROBES.map((p) => ({ expression: asPolicyExpression(p) })),
        },
      });
      if (r.code !== 201 && r.code !== 422) throw new Error(`unexpected reply ${r.code}: ${JSON.stringify(r.body)}`);
      expect(oursForPolicy(version)).toStrictEqual(
        theirs(r.body?.details?.causes ?? [], /validations\[(\d+)\]/, (i) => PROBES[i]),
      );
    }, 60_000);

    test('the environment names what this version lacks, each library from its first version on', () => {
      const env = celEnvironment(version);
      const minor = Number(version.split('.')[1]);
      for (const [library, { since }] of Object.entries(CEL_LIBRARIES)) {
        expect({ library, has: env.has(library as keyof typeof CEL_LIBRARIES) }).toStrictEqual({
          library,
          has: minor >= since,
        });
      }
    });
  },
  (version) =>
    version === '1.28'
      ? {
          shared: true,
          apiServerFlags: [
            '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
            '--feature-gates=ValidatingAdmissionPolicy=true',
          ],
        }
      : { shared: true },
);

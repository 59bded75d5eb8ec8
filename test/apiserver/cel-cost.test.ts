import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'js-yaml';
import { Issue } from '../../lib/apimachinery/issue';
import { schemaCelType } from '../../lib/apiserver/cel/cel-types';
import { RULE_COST_LIMIT } from '../../lib/apiserver/cel/check-rules';
import { estimateCost } from '../../lib/apiserver/cel/cost-estimate';
import { walkSchema } from '../../lib/apiserver/cel/schema-walk';
import { checkExpression } from '../../lib/apiserver/cel/type-checker';
import { validateCrdManifest } from '../../lib/apiserver/crd-validation/validate-crd';
import { checkCrdForVersions } from '../../lib/apiserver/crd-validation/version-support';
import { JSONSchemaProps } from '../../lib/apiserver/schema/json-schema-props';
import { ControlPlane, describeEachApiServerVersion, OracleVersion } from '../envtest';
import { REALWORLD_CRDS } from '../support/differential/corpus';

/**
 * The CEL cost estimate against the real apiserver. Each probe puts one rule on a schema node S and S under a
 * map with maxProperties N, so the rule's cost counts N times: with N the largest count our estimate keeps
 * within the per-rule budget the apiserver must accept the CRD, and with N + 1 it must refuse it with the very
 * messages we produce (the exceed factor is printed with six decimals, so a cost off by one shows).
 * Probes are batched into one CRD per side; the refused side also exercises the per-CRD total.
 */
interface Probe {
  readonly schema: JSONSchemaProps;
  readonly rule: string;
}

const string = (extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'string', ...extra });
const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

/** Hand-written probes, one or more per cost rule of cel-go and the Kubernetes libraries. */
const HAND_WRITTEN: Probe[] = [
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.matches('^[a-z]+$')" },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.contains('abc')" },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.startsWith('abc') && self.s.endsWith('x')" },
  {
    schema: obj({ s: string({ maxLength: 100 }), t: string({ maxLength: 7 }) }),
    rule: 'self.s == self.t || self.s < self.t',
  },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s + 'suffix' != 'x'" },
  {
    schema: obj({ s: string({ maxLength: 100 }) }),
    rule: "self.s.lowerAscii().upperAscii().trim().substring(1) != ''",
  },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.replace('a', 'bb').size() < 1000" },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.split(',').size() < 10" },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.split(',', 3).join('-') != ''" },
  {
    schema: obj({ s: string({ maxLength: 100 }) }),
    rule: "self.s.find('[0-9]+') != '' && self.s.findAll('x').size() > 0",
  },
  { schema: obj({ s: string({ maxLength: 100 }) }), rule: "self.s.indexOf('x') >= 0 && self.s.lastIndexOf('y') < 50" },
  {
    schema: obj({ s: string({ maxLength: 64 }) }),
    rule: 'isQuantity(self.s) && quantity(self.s).isGreaterThan(quantity("1Gi"))',
  },
  {
    schema: obj({ s: string({ maxLength: 64 }) }),
    rule: 'isIP(self.s) && ip(self.s).family() == 4 && ip.isCanonical(self.s)',
  },
  {
    schema: obj({ s: string({ maxLength: 64 }) }),
    rule: "isCIDR(self.s) && cidr(self.s).containsIP('10.0.0.1') && cidr(self.s).containsCIDR(cidr('10.0.0.0/24'))",
  },
  { schema: obj({ s: string({ maxLength: 64 }) }), rule: "isURL(self.s) && url(self.s).getHost() != ''" },
  { schema: obj({ s: string({ maxLength: 64 }) }), rule: '!format.dns1123Label().validate(self.s).hasValue()' },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: string({ maxLength: 10 }) } }),
    rule: "self.l.all(x, x.matches('^a')) && self.l.exists(x, x == 'b')",
  },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: string({ maxLength: 10 }) } }),
    rule: "self.l.exists_one(x, x == 'b') || self.l.map(x, x + 'a').filter(y, y != '').size() > 0",
  },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: string({ maxLength: 10 }) } }),
    rule: "'x' in self.l && self.l.isSorted() && self.l.indexOf('a') < 3",
  },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: { type: 'integer' } } }),
    rule: 'self.l.sum() < 100 && self.l.min() >= 0 && self.l.max() < 50',
  },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: string({ maxLength: 10 }) } }),
    rule: "sets.contains(self.l, ['a']) && sets.intersects(self.l, ['b', 'c']) && !sets.equivalent(self.l, [])",
  },
  {
    schema: obj({ l: { type: 'array', maxItems: 20, items: string({ maxLength: 10 }) } }),
    rule: "self.l.join(',').size() < 200 && self.l[0] != ''",
  },
  {
    schema: obj({ m: { type: 'object', maxProperties: 10, additionalProperties: string({ maxLength: 63 }) } }),
    rule: "self.m.all(k, k.matches('^[a-z]+$') && self.m[k].size() < 10)",
  },
  {
    schema: obj({ m: { type: 'object', maxProperties: 10, additionalProperties: string({ maxLength: 63 }) } }),
    rule: "'a' in self.m && has(self.m.b)",
  },
  {
    schema: obj({ a: { type: 'integer' }, b: { type: 'integer' } }),
    rule: 'self.a == self.b && self.a < 10 ? true : self.b > 3',
  },
  {
    schema: obj({ x: { 'x-kubernetes-int-or-string': true } }),
    rule: "type(self.x) == string ? self.x.matches('^[0-9]+%$') : self.x >= 0",
  },
  {
    schema: obj({ d: string({ format: 'duration' }), t: string({ format: 'date-time' }) }),
    rule: "self.d > duration('1s') && self.t > timestamp('2020-01-01T00:00:00Z')",
  },
  { schema: obj({ b: string({ format: 'byte', maxLength: 30 }) }), rule: 'size(self.b) < 20 && string(self.b) != ""' },
  {
    schema: obj({ o: obj({ s: string({ maxLength: 20 }) }) }),
    rule: "self.?o.s.orValue('') != 'x' && self.o.?s.hasValue()",
  },
  { schema: obj({ s: string({ enum: ['alpha', 'beta'] }) }), rule: "self.s.matches('^a') && self.s != 'gamma'" },
  {
    schema: obj({ s: string({ maxLength: 40 }) }),
    rule: "[self.s, 'x'].all(e, e.size() < 50) && {'k': self.s}.size() == 1",
  },
];

/**
 * Rules that cost nothing (constants and the logical operators on them): the per-rule sizing cannot use them, so
 * they are checked apart, at a cardinality where any cost of 1 or more is refused.
 */
const ZERO_COST: Probe[] = ['true', 'false || true', 'true ? true : false', 'true && true'].map((rule) => ({
  schema: obj({ s: string({ maxLength: 10 }) }),
  rule,
}));

/**
 * One probe per distinct (rule, schema node) of the real-world corpus, rules other than root rules: read once for the
 * file (the three versions' suites share the list; probes are read-only).
 */
let corpusProbeList: Probe[] | undefined;
function corpusProbes(): Probe[] {
  return (corpusProbeList ??= readCorpusProbes());
}

function readCorpusProbes(): Probe[] {
  const dir = REALWORLD_CRDS;
  const seen = new Set<string>();
  const probes: Probe[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const crd = yaml.load(fs.readFileSync(path.join(dir, file), 'utf8')) as any;
    for (const version of crd.spec.versions) {
      const root = version.schema?.openAPIV3Schema;
      if (!root) continue;
      walkSchema(root, '', (node) => {
        if (node.isRoot) return;
        for (const r of node.schema['x-kubernetes-validations'] ?? []) {
          const schema = withOnlyRule(node.schema);
          const key = JSON.stringify([r.rule, schema]);
          if (seen.has(key)) continue;
          seen.add(key);
          probes.push({ schema, rule: r.rule });
        }
      });
    }
  }
  return probes;
}

/** A copy of a schema node without descriptions or rules (the probe adds its one rule). */
function withOnlyRule(s: JSONSchemaProps): JSONSchemaProps {
  return JSON.parse(
    JSON.stringify(s, (k, v) => (k === 'description' || k === 'x-kubernetes-validations' ? undefined : v)),
  );
}

/** The static cost of a probe's rule for one evaluation, by our estimate for `version` (undefined when it does not compile). */
function costOf(p: Probe, version: OracleVersion): bigint | undefined {
  const self = schemaCelType(p.schema, p.schema['x-kubernetes-embedded-resource'] === true, version);
  const checked = checkExpression(p.rule, { self, oldSelf: self });
  if (checked.errors.length > 0 || !checked.ast) return undefined;
  return estimateCost(checked.ast, self, undefined, version).max;
}

/** Whether `version`'s CEL environment has what the probe's rule uses (else that apiserver refuses to compile it). */
function compilesOn(p: Probe, version: OracleVersion): boolean {
  return checkCrdForVersions(probeCrd([{ probe: p, count: 1n }]), [version]).length === 0;
}

function probeCrd(probes: ReadonlyArray<{ probe: Probe; count: bigint }>): any {
  const properties: Record<string, JSONSchemaProps> = {};
  probes.forEach(({ probe, count }, i) => {
    properties[`p${i}`] = {
      type: 'object',
      maxProperties: Number(count),
      additionalProperties: { ...probe.schema, 'x-kubernetes-validations': [{ rule: probe.rule }] },
    };
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'probes.cost.example.com' },
    spec: {
      group: 'cost.example.com',
      scope: 'Namespaced',
      names: { kind: 'Probe', plural: 'probes' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
        },
      ],
    },
  };
}

/** Our verdict for `version` in the apiserver's notation (one version: its schema is reported as spec.validation). */
function ours(crd: any, version: OracleVersion): string[] {
  return validateCrdManifest(crd, version)
    .filter((i: Issue) => (i.severity ?? 'error') === 'error')
    .map((i) => `${i.path.replace(/^spec\.versions\[0\]\.schema\./, 'spec.validation.')}: ${i.message}`)
    .sort();
}

async function theirs(plane: ControlPlane, crd: any): Promise<string[]> {
  const r = await plane.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
  if (r.code === 201) return [];
  if (r.code !== 422) throw new Error(`unexpected ${r.code}: ${JSON.stringify(r.body)}`);
  return (r.body.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`).sort();
}

/**
 * Probes sized to sit just within (`N`) and just beyond (`N + 1`) the per-rule limit by our estimate; the ones we
 * estimate at zero cost cannot be sized that way and are returned apart (`free`), to be checked at a cardinality no
 * non-zero cost survives.
 */
function sized(
  probes: Probe[],
  version: OracleVersion,
): { within: Array<{ probe: Probe; count: bigint }>; beyond: Array<{ probe: Probe; count: bigint }>; free: Probe[] } {
  const within: Array<{ probe: Probe; count: bigint }> = [];
  const beyond: Array<{ probe: Probe; count: bigint }> = [];
  const free: Probe[] = [];
  for (const probe of probes) {
    const cost = costOf(probe, version);
    if (cost === undefined) throw new Error(`probe does not compile locally: ${probe.rule}`);
    if (cost === 0n) {
      free.push(probe);
      continue;
    }
    const n = RULE_COST_LIMIT / cost;
    within.push({ probe, count: n });
    beyond.push({ probe, count: n + 1n });
  }
  return { within, beyond, free };
}

/**
 * The apiserver names the four most expensive rules when the total is over budget, but it visits properties in Go's
 * random map order, so among rules of equal cost which ones are named varies from run to run: only their number is compared.
 */
function withoutTiedTopFour(messages: string[]): string[] {
  const contributed = messages.filter((m) =>
    m.endsWith('contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'),
  );
  return [
    ...messages.filter((m) => !contributed.includes(m)),
    `${contributed.length} rules named as contributing to the total`,
  ];
}

/**
 * A zero-cost probe checked where a cost of 1 shows: 200 copies of it, each under a map without maxProperties (so
 * counted as often as its smallest serialization fits a request, about a million times). At cost 1 the schema's total
 * is about 2x the per-CRD limit and the apiserver refuses the CRD; accepted, the rule costs 0 there too.
 */
const FREE_COPIES = 200;
function freeProbeCrd(probe: Probe): any {
  const crd = probeCrd([]);
  const properties: Record<string, JSONSchemaProps> = {};
  for (let k = 0; k < FREE_COPIES; k++) {
    properties[`p${k}`] = {
      type: 'object',
      additionalProperties: { ...probe.schema, 'x-kubernetes-validations': [{ rule: probe.rule }] },
    };
  }
  crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = properties;
  return crd;
}

function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

describeEachApiServerVersion(
  'CEL cost estimate against kube-apiserver',
  (plane, version) => {
    test.each<[string, Probe[], string[]]>([
      ['hand-written rules', [...HAND_WRITTEN, ...ZERO_COST], ZERO_COST.map((p) => p.rule)],
      ['every rule of the real-world corpus', corpusProbes(), []],
    ])(
      '%s: the same verdict and the same exceed factor just within and just beyond the per-rule limit',
      async (_name, probes, zeroCost) => {
        const compiling = probes.filter((p) => compilesOn(p, version));
        expect(compiling.length).toBeGreaterThan(probes.length * 0.8);
        const { within, beyond, free } = sized(compiling, version);
        expect(within.length).toBeGreaterThan(compiling.length / 2);
        // every probe is checked: sized against the limit, or (estimated free: counted, and exactly the expected ones)
        // at a cardinality only a zero cost survives
        expect(within.length + free.length).toBe(compiling.length);
        expect(free.map((p) => p.rule)).toStrictEqual(zeroCost);
        for (const probe of free) {
          const crd = freeProbeCrd(probe);
          expect({ rule: probe.rule, ours: ours(crd, version) }).toStrictEqual({ rule: probe.rule, ours: [] });
          expect({ rule: probe.rule, apiserver: await theirs(plane(), crd) }).toStrictEqual({
            rule: probe.rule,
            apiserver: [],
          });
        }
        // at most ten rules of at most the per-rule limit each: within the per-CRD total too
        for (const batch of chunks(within, 10)) {
          const crd = probeCrd(batch);
          expect(ours(crd, version)).toStrictEqual([]);
          expect(await theirs(plane(), crd)).toStrictEqual([]);
        }
        for (const batch of chunks(beyond, 40)) {
          const crd = probeCrd(batch);
          const expected = ours(crd, version);
          expect(expected.filter((m) => m.includes('estimated rule cost exceeds budget'))).toHaveLength(batch.length);
          expect(withoutTiedTopFour(await theirs(plane(), crd))).toStrictEqual(withoutTiedTopFour(expected));
        }
      },
      300_000,
    );

    test('the zero-cost check discriminates: a rule of cost 1 placed the same way is refused, by both, for the schema total', async () => {
      const control: Probe = { schema: ZERO_COST[0].schema, rule: "self.s == 'a' || true" };
      expect(costOf(control, version)).toBeGreaterThan(0n);
      const crd = freeProbeCrd(control);
      const expected = ours(crd, version);
      expect(
        expected.some((m) => m.includes('estimated rule cost total for entire OpenAPIv3 schema exceeds budget')),
      ).toBe(true);
      expect(withoutTiedTopFour(await theirs(plane(), crd))).toStrictEqual(withoutTiedTopFour(expected));
    }, 60_000);

    test.each<[string, JSONSchemaProps, string, string | undefined]>([
      [
        'an unbounded list of unbounded strings',
        obj({ l: { type: 'array', items: string() } }),
        "self.l.all(x, x.matches('^a'))",
        undefined,
      ],
      [
        'a rule under an unbounded list: the count comes from the smallest serialization',
        obj({ l: { type: 'array', items: obj({ s: string({ maxLength: 300 }) }, { required: ['s'] }) } }),
        'true',
        "self.s.contains('x')",
      ],
      ['a messageExpression is not multiplied', obj({ a: { type: 'integer' } }), 'self.a < 3', undefined],
    ])(
      '%s: same errors as the apiserver',
      async (_name, schema, rule, itemRule) => {
        const spec: any = JSON.parse(JSON.stringify(schema));
        spec['x-kubernetes-validations'] = [
          { rule, ...(rule === 'self.a < 3' ? { messageExpression: "'got ' + string(self.a)" } : {}) },
        ];
        if (itemRule) spec.properties.l.items['x-kubernetes-validations'] = [{ rule: itemRule }];
        const crd = probeCrd([]);
        crd.spec.versions[0].schema.openAPIV3Schema.properties.spec = spec;
        const expected = ours(crd, version);
        expect(expected.length).toBeGreaterThan(0);
        expect(await theirs(plane(), crd)).toStrictEqual(expected);
      },
      60_000,
    );
  },
  { shared: true },
);

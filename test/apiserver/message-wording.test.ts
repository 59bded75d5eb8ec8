import { since } from '../../lib/apimachinery/kubernetes-versions';
import { CrdManifest } from '../../lib/apiserver/crd-manifest';
import { describeEachApiServerVersion } from '../envtest';
import { CorpusCase, CorpusCrd } from '../support/differential/corpus';
import { compareCase, installCrds } from '../support/differential/run';

/**
 * The wording of the apiserver's errors on custom resources, version by version, on edges a generated corpus may miss:
 * singular counts (`1 byte`, `1 item`), values printed by Go (`%q` strings with their escapes, int64 and float64 with
 * `%v`, lists and objects with `%#v` or as JSON), enum lists of numbers, bounds of float64 values, the first string
 * error only, list-type errors, every CEL reason on scalar, object and list values, CEL evaluation errors, nullable
 * enums, ObjectMeta's label and annotation wording. Each case is created (dry run, strict field validation) on the
 * real apiserver of each version and checked by validateCustomResource for that version: every message word for word.
 */
const GROUP = 'wording.example.com';

const rule = (r: string, extra: Record<string, unknown> = {}) => ({
  'x-kubernetes-validations': [{ rule: r, ...extra }],
});

const SPEC = {
  type: 'object',
  properties: {
    s1: { type: 'string', maxLength: 1 },
    s5: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
    pat: { type: 'string', pattern: '^[a-z]*$' },
    l1: { type: 'array', maxItems: 1, items: { type: 'integer' } },
    l2: { type: 'array', minItems: 2, items: { type: 'string' } },
    m1: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
    en: { type: 'integer', enum: [1, 2] },
    es: { type: 'string', enum: ['a', 'b'] },
    nen: { type: 'string', nullable: true, enum: ['a'] },
    enl: { type: 'array', items: { type: 'string', enum: ['a'] } },
    emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    i1: { type: 'integer', minimum: 1, maximum: 4294967295 },
    ifrac: { type: 'integer', minimum: 1.5 },
    n: { type: 'number', minimum: 0.5, exclusiveMaximum: true, maximum: 1000000 },
    set: {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true },
    },
    sset: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    map: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name', 'port'],
      items: {
        type: 'object',
        required: ['name', 'port'],
        properties: { name: { type: 'string' }, port: { type: 'integer' } },
      },
    },
    cs: { type: 'string', ...rule('self.size() < 3', { message: 'short strings only' }) },
    ci: { type: 'integer', ...rule('self < 10') },
    cb: { type: 'boolean', ...rule('self') },
    cn: { type: 'number', ...rule('self < 1.5') },
    co: {
      type: 'object',
      properties: { a: { type: 'string' } },
      ...rule('self.a == "x"', { messageExpression: '"a is " + self.a' }),
    },
    cl: { type: 'array', items: { type: 'string' }, ...rule('self.size() < 2', { reason: 'FieldValueDuplicate' }) },
    cdup: { type: 'string', ...rule('self != "dup"', { reason: 'FieldValueDuplicate' }) },
    cfb: { type: 'string', ...rule('self != "no"', { reason: 'FieldValueForbidden', message: 'no is forbidden' }) },
    creq: {
      type: 'object',
      properties: { b: { type: 'string' } },
      ...rule('has(self.b)', { reason: 'FieldValueRequired', message: 'b is required' }),
    },
    ckey: { type: 'object', properties: { k: { type: 'string' } }, ...rule('self.k == "x"') },
    cpath: { type: 'object', properties: { p: { type: 'string' } }, ...rule('self.p != "bad"', { fieldPath: '.p' }) },
  },
};

/** A one-version CRD of the group whose spec is `spec`. */
function wordingCrd(scope: 'Namespaced' | 'Cluster', kind: string, spec: Record<string, unknown>): CorpusCrd {
  const singular = kind.toLowerCase();
  return {
    file: singular,
    manifest: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${singular}s.${GROUP}` },
      spec: {
        group: GROUP,
        scope,
        names: { plural: `${singular}s`, singular, kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
          },
        ],
      },
    } as unknown as CrdManifest,
  };
}

const CRD = wordingCrd('Namespaced', 'Wording', SPEC);

/** Each case: a spec (or metadata) that one check refuses, named by what it aims at. */
const CASES: Record<string, { spec?: Record<string, unknown>; metadata?: Record<string, unknown> }> = {
  'maxLength 1': { spec: { s1: 'ab' } },
  'maxLength 5 over': { spec: { s5: 'abcdefg' } },
  'maxLength 5 over and pattern refused: the first error only': { spec: { s5: 'ABCDEFG' } },
  'minLength and pattern refused: the first error only': { spec: { s5: 'A' } },
  'pattern: NBSP, NUL, VT, é, emoji, quotes, backslash, <&>': { spec: { pat: '\u00a0\u0000\u000bé😀"\\<&>\u2028' } },
  'pattern: C1 control and a long string': { spec: { pat: `\u0085${'é'.repeat(300)}` } },
  'maxItems 1': { spec: { l1: [1, 2] } },
  'minItems 2': { spec: { l2: [] } },
  'maxProperties 1': { spec: { m1: { a: '', b: '' } } },
  'enum of numbers': { spec: { en: 3 } },
  'enum given a list': { spec: { es: ['a'] } },
  'enum given an object': { spec: { es: { z: 1, a: [true, null] } } },
  'enum given a number': { spec: { es: 12 } },
  'nullable enum given null': { spec: { nen: null } },
  'enum item given null (not nullable)': { spec: { enl: ['a', null] } },
  'embedded resource without apiVersion and kind': { spec: { emb: { metadata: { name: 'x' } } } },
  'embedded resource with empty apiVersion and kind': { spec: { emb: { apiVersion: '', kind: '' } } },
  'embedded resource with a bad apiVersion and a kind no string': { spec: { emb: { apiVersion: 'a/b/c', kind: 5 } } },
  'integer below its minimum': { spec: { i1: 0 } },
  'a fraction in an integer field below its minimum': { spec: { i1: 0.5 } },
  'a float64 beyond int64 above its maximum': { spec: { i1: 1e19 } },
  'a float64 in exponent form below its minimum': { spec: { i1: -1e21 } },
  'an int64 above a maximum of 2^32-1': { spec: { i1: 4294967296 } },
  'an integer against a fractional minimum (truncated to 1)': { spec: { ifrac: 0 } },
  'number below a fractional minimum': { spec: { n: 0.25 } },
  'number at an exclusive maximum of 1e6': { spec: { n: 1000000 } },
  'set of objects, repeated': {
    spec: {
      set: [
        { b: 'x', a: 1 },
        { a: 1, b: 'x' },
      ],
    },
  },
  'set of strings, repeated': { spec: { sset: ['a', 'b', 'a'] } },
  'map list, repeated keys': {
    spec: {
      map: [
        { port: 80, name: 'a' },
        { name: 'a', port: 80 },
      ],
    },
  },
  'map list, an item no object': { spec: { map: [{ name: 'a', port: 1 }, 1, [2]] } },
  'CEL message on a string': { spec: { cs: 'abcd' } },
  'CEL rule on an integer': { spec: { ci: 12 } },
  'CEL rule on a boolean': { spec: { cb: false } },
  'CEL rule on a number': { spec: { cn: 2.5 } },
  'CEL messageExpression on an object': { spec: { co: { a: 'y' } } },
  'CEL Duplicate reason on a list': { spec: { cl: ['a', 'b'] } },
  'CEL Duplicate reason on a string': { spec: { cdup: 'dup' } },
  'CEL Forbidden reason': { spec: { cfb: 'no' } },
  'CEL Required reason': { spec: { creq: {} } },
  'CEL no such key': { spec: { ckey: {} } },
  'CEL fieldPath': { spec: { cpath: { p: 'bad' } } },
  'CEL rules skipped after a blocking error': { spec: { s1: 'ab', cs: 'abcd' } },
  'label value of 64 bytes': { metadata: { labels: { k: 'a'.repeat(64) } } },
  'label key with two slashes': { metadata: { labels: { 'a/b/c': 'v' } } },
  'label key name part of 64 bytes': { metadata: { labels: { ['b'.repeat(64)]: 'v' } } },
  'label key prefix of 254 bytes': { metadata: { labels: { [`${'p'.repeat(254)}/k`]: 'v' } } },
  'finalizer of two slashes': { metadata: { finalizers: ['a/b/c'] } },
  'annotations over 256 KiB': { metadata: { annotations: { big: 'x'.repeat(262144) } } },
};

/** A cluster-scoped kind: the apiserver clears the namespace of its objects instead of refusing it. */
const CLUSTER_CRD = wordingCrd('Cluster', 'ClusterWording', { type: 'object' });

function caseOf(id: string, c: { spec?: Record<string, unknown>; metadata?: Record<string, unknown> }): CorpusCase {
  return {
    id,
    crd: CRD,
    version: 'v1',
    kind: 'valid',
    note: id,
    at: '',
    object: { apiVersion: `${GROUP}/v1`, kind: 'Wording', metadata: { name: 'w', ...c.metadata }, spec: c.spec ?? {} },
  };
}

describeEachApiServerVersion(
  'error messages on custom resources, word for word',
  (plane, version) => {
    beforeAll(async () => {
      await installCrds(plane(), [CRD, CLUSTER_CRD]);
    }, 240_000);

    test.each(Object.entries(CASES))(
      '%s',
      async (id, c) => {
        const { apiserver, ours } = await compareCase(plane(), version, caseOf(id, c));
        expect(apiserver.refused).toBe(true);
        expect(ours).toStrictEqual(apiserver);
      },
      120_000,
    );

    test.each(['prod', 'Not_A_Label!'])(
      'a cluster-scoped object with metadata.namespace %p is accepted (the apiserver clears it)',
      async (namespace) => {
        const c: CorpusCase = {
          id: 'cluster-scoped namespace',
          crd: CLUSTER_CRD,
          version: 'v1',
          kind: 'valid',
          note: '',
          at: '',
          object: { apiVersion: `${GROUP}/v1`, kind: 'ClusterWording', metadata: { name: 'w', namespace }, spec: {} },
        };
        const { apiserver, ours } = await compareCase(plane(), version, c);
        expect(apiserver.refused).toBe(false);
        expect(ours).toStrictEqual(apiserver);
      },
      120_000,
    );

    test("an integer at a fractional minimum's truncation: accepted up to 1.35 (int64(minimum) compares), refused from 1.36 (the bound is no int64)", async () => {
      const { apiserver, ours } = await compareCase(
        plane(),
        version,
        caseOf('truncation', { spec: { ifrac: 1, n: 0.5, s5: 'ab', i1: 4294967295 } }),
      );
      expect(ours).toStrictEqual(apiserver);
      expect(apiserver.refused).toBe(since(version, 'numericFormatRanges'));
    }, 120_000);
  },
  { shared: true },
);

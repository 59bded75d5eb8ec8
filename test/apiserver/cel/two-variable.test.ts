import { errorsOf } from '../../../lib/apimachinery/issue';
import { CrdManifest } from '../../../lib/apiserver/crd-manifest';
import { validateCrdManifest } from '../../../lib/apiserver/crd-validation/validate-crd';
import { describeRealApiServer } from '../../envtest';
import { specCrd } from '../../support/spec-crd';

/**
 * cel-go's two-variable comprehensions (`ext.TwoVarComprehensions`: `all`, `exists`, `existsOne` with `(k, v, …)`,
 * `transformList`, `transformMap`, `transformMapEntry`) are not in the CEL environment of kube-apiserver 1.32: it
 * refuses every rule using one as a compilation failure. Our verdict and our compiler errors (cel-go's, sorted by
 * position, each call at its opening parenthesis) must be the apiserver's.
 */
const RULES: ReadonlyArray<readonly [string, string]> = [
  ['labels', 'self.all(k, v, v.size() > 0)'],
  ['labels', "self.exists(k, v, k == 'a' && v == 'b')"],
  ['labels', 'self.existsOne(k, v, v == k)'],
  ['labels', 'self.exists_one(k, v, v == k)'],
  ['labels', "self.transformMap(k, v, v + 'x').size() > 0"],
  ['labels', 'self.transformMapEntry(k, v, {v: k}).size() >= 0'],
  ['tags', 'self.transformList(i, t, i < 2, t).size() <= 2'],
  ['tags', 'self.all(i, t, i >= 0)'],
  // one-variable forms and ordinary calls next to it stay what they were
  ['labels', "self.all(k, k.size() > 0) && self.foo(1) && size(1) == 1 && 'a'.startsWith(1)"],
];

function crd(index: number, field: string, rule: string): CrdManifest {
  return specCrd({
    group: 'cel.example.com',
    kind: `TwoVar${index}`,
    plural: `twovars${index}`,
    spec: {
      type: 'object',
      properties: {
        labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 10 } },
        tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
      },
      'x-kubernetes-validations': [{ rule: rule.replace(/\bself\b/g, `self.${field}`) }],
    },
  });
}

/** The `ERROR: <input>:l:c: …` lines of a compilation failure (the source excerpts under each are left out). */
function compilerErrors(message: string): string[] {
  return message.split('\n').flatMap((line) => line.match(/ERROR: <input>:\d+:\d+: .*/g) ?? []);
}

describeRealApiServer(
  'two-variable comprehensions on kube-apiserver 1.32',
  (plane) => {
    test.each(RULES.map(([field, rule], i) => [rule, field, i] as const))(
      "%s: refused, with the apiserver's compiler errors",
      async (rule, field, i) => {
        const manifest = crd(i, field, rule);
        const ours = errorsOf(validateCrdManifest(manifest));
        const reply = await plane().request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
          manifest,
        );
        expect(reply.code).toBe(422);
        // one issue per compiler error, all on the rule
        expect(new Set(ours.map((issue) => issue.path))).toStrictEqual(
          new Set(['spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule']),
        );
        const ourErrors = ours.flatMap((issue) => compilerErrors(issue.message));
        expect(ourErrors).toStrictEqual(compilerErrors(reply.body.message));
        expect(ourErrors.length).toBeGreaterThan(0);
      },
    );
  },
  { shared: true },
);

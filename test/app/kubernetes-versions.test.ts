import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiObject, Chart } from 'cdk8s';
import { collectSynthReport, OperatorApp, OutputLayout, renderSynthReport, ValidatingAdmissionPolicy } from '../../lib';
import { errorsOf, formatIssue, Issue } from '../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../lib/apimachinery/kubernetes-versions';
import { CrdManifest } from '../../lib/apiserver/crd-manifest';
import { SchemaCheckMemo } from '../../lib/apiserver/crd-validation/schema-check-memo';
import { validateCrdManifestWith } from '../../lib/apiserver/crd-validation/validate-crd';
import { checkCrdForVersions, crdIssuesForVersions } from '../../lib/apiserver/crd-validation/version-support';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { describeEachApiServerVersion } from '../envtest';

/**
 * The app's Kubernetes range: a CRD feature that an older version of the range lacks fails synth with the construct
 * path, the field and the versions named; narrowing the range lets it pass. The per-version table is checked on the
 * real apiservers of 1.28, 1.32 and 1.36: each CRD is accepted exactly where our check says the version has it.
 */
function manifest(
  name: string,
  extra: {
    rule?: string;
    optionalOldSelf?: boolean | null;
    selectableFields?: boolean;
    itemRule?: string;
    /** a rule on the values of a map (below additionalProperties, where decoding is lenient) */
    valueRule?: { rule: string; optionalOldSelf?: boolean };
  } = {},
): CrdManifest {
  const rule = extra.rule
    ? [{ rule: extra.rule, ...(extra.optionalOldSelf !== undefined ? { optionalOldSelf: extra.optionalOldSelf } : {}) }]
    : undefined;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.versions.example.com` },
    spec: {
      group: 'versions.example.com',
      scope: 'Namespaced',
      names: { kind: name[0].toUpperCase() + name.slice(1), plural: `${name}s` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(extra.selectableFields ? { selectableFields: [{ jsonPath: '.spec.size' }] } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'string', maxLength: 20 },
                    items: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 10 } },
                    ...(extra.valueRule
                      ? {
                          labels: {
                            type: 'object',
                            maxProperties: 5,
                            additionalProperties: {
                              type: 'string',
                              maxLength: 10,
                              'x-kubernetes-validations': [extra.valueRule],
                            },
                          },
                        }
                      : {}),
                    // an unbounded list: a rule on its items counts 1,048,576 times (3 MiB over the smallest item, `{}`)
                    ...(extra.itemRule
                      ? {
                          rewrite: {
                            type: 'array',
                            items: {
                              type: 'object',
                              properties: { regexp: { type: 'string' }, transform: { type: 'string' } },
                              'x-kubernetes-validations': [{ rule: extra.itemRule }],
                            },
                          },
                        }
                      : {}),
                  },
                  ...(rule ? { 'x-kubernetes-validations': rule } : {}),
                },
              },
            },
          },
        },
      ],
    },
  } as unknown as CrdManifest;
}

function synthErrors(range: { min?: string; max?: string } | undefined, crd: CrdManifest): string {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-'));
  const app = new OperatorApp({
    outdir: path.join(outdir, 'dist'),
    report: false,
    policy: false,
    descriptionCheck: false,
    ...(range ? { kubernetesVersions: range } : {}),
  });
  CustomResourceDefinition.fromManifest(new Chart(app, 'chart'), 'crd', crd);
  try {
    app.synth();
    return '';
  } catch (e) {
    return (e as Error).message;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

const FEATURES: Record<string, Parameters<typeof manifest>[1]> = {
  quantity: { rule: "!has(self.size) || quantity(self.size).isGreaterThan(quantity('0'))" },
  optional: { rule: "self.?size.orValue('') != 'x'" },
  sets: { rule: '!has(self.items) || sets.contains(self.items, self.items)' },
  quote: { rule: "!has(self.size) || strings.quote(self.size) != ''" },
  ip: { rule: '!has(self.size) || !isIP(self.size) || ip(self.size).family() > 0' },
  format: { rule: '!has(self.size) || !format.dns1123Label().validate(self.size).hasValue()' },
  twovariable: { rule: "!has(self.items) || self.items.all(i, v, i >= 0 && v != '')" },
  semver: { rule: '!has(self.size) || !isSemver(self.size) || semver(self.size).major() >= 0' },
  lists: { rule: '!has(self.items) || lists.range(2).size() == 2' },
  oldself: { rule: '!oldSelf.hasValue() || oldSelf.value() == self', optionalOldSelf: true },
  // 1.28 refuses the field as unknown whatever its value
  oldselffalse: { rule: 'self == oldSelf', optionalOldSelf: false },
  oldselfnull: { rule: 'self == oldSelf', optionalOldSelf: null },
  // below additionalProperties 1.28 drops the field, and compiles the rule with oldSelf a string
  oldselfvalue: { valueRule: { rule: '!oldSelf.hasValue() || oldSelf.value() == self', optionalOldSelf: true } },
  selectable: { selectableFields: true },
  // 4 presence tests: 1.28 charges each (cost 10 × 1,048,576 items > 10,000,000), 1.29 and newer do not (6 × …)
  cost: { itemRule: '(has(self.regexp) && !has(self.transform)) || (!has(self.regexp) && has(self.transform))' },
  plain: { rule: '!has(self.size) || self.size.size() > 0' },
};

/**
 * CRDs that only older versions accept: below additionalProperties 1.28 drops `optionalOldSelf` without a word, so a
 * rule that needs oldSelf plain (not optional) compiles there and nowhere else.
 */
const ONLY_OLDER: Record<string, Parameters<typeof manifest>[1]> = {
  oldselfdropped: { valueRule: { rule: 'self == oldSelf', optionalOldSelf: true } },
};

/** What checking a CRD for `version` alone finds: the check of that version and what the version lacks. */
function verdictFor(crd: CrdManifest, version: KubernetesVersion): Issue[] {
  const memo = new SchemaCheckMemo();
  return crdIssuesForVersions(crd, [version], memo, validateCrdManifestWith(crd, version, memo));
}

/**
 * One mistake that versions of the range word otherwise: 8 presence tests per item of an unbounded list are over every
 * version's cost budget, by another factor on 1.28; a member call of `isSemver` (a global function) fails on every
 * version, as `undeclared reference` where the semver library is missing. The `_+_` error is worded alike everywhere.
 */
const REWORDED: Record<string, Parameters<typeof manifest>[1]> = {
  rewordedcost: {
    itemRule:
      '(has(self.regexp) && !has(self.transform)) || (!has(self.regexp) && has(self.transform)) || ' +
      '(has(self.regexp) && has(self.transform)) || (!has(self.regexp) && !has(self.transform))',
  },
  rewordedcel: { rule: 'self.size.isSemver() && self.size + 1' },
};

/** What a synth line says a version answers: its `on Kubernetes … worded:` part naming the version, else the line's own. */
function wordingOn(line: string, version: string): string {
  const worded = [...line.matchAll(/on Kubernetes ([\d., ]+) worded: ([^;)]*)/g)].find((m) =>
    m[1].split(', ').includes(version),
  );
  if (worded) return worded[2].replace(/ \(in container ''$/, '');
  const own = line.slice(line.indexOf('rule: ') + 'rule: '.length);
  return /^(?:Invalid value: compilation failed: )?((?:Forbidden|ERROR)[^(]*)/.exec(own)![1].trim();
}

describe("the app's Kubernetes versions", () => {
  test('one mistake that versions word otherwise is one problem: a cost figure, a compile error at the same place', () => {
    const RULE = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    expect(
      synthErrors(undefined, manifest('rewordedcost', REWORDED.rewordedcost)).split('\n  ').slice(1),
    ).toStrictEqual([
      `[chart/crd] ${RULE}.properties[rewrite].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.258291x ` +
        '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared) ' +
        '(on Kubernetes 1.28 worded: Forbidden: estimated rule cost exceeds budget by factor of 2.1x) ' +
        `(got ${JSON.stringify(REWORDED.rewordedcost!.itemRule).slice(0, 117)}...)`,
    ]);
    expect(synthErrors(undefined, manifest('rewordedcel', REWORDED.rewordedcel)).split('\n  ').slice(1)).toStrictEqual([
      `[chart/crd] ${RULE}.x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:19: found no matching overload for 'isSemver' applied to 'string.()' ` +
        "(on Kubernetes 1.28, 1.29, 1.30, 1.31, 1.32, 1.33 worded: ERROR: <input>:1:19: undeclared reference to 'isSemver' (in container ''); " +
        'the semver library (semver(), isSemver()) is in the CEL environment of new expressions from 1.34) (got "self.size.isSemver() && self.size + 1")',
      `[chart/crd] ${RULE}.x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:35: found no matching overload for '_+_' applied to '(string, int)' (got "self.size.isSemver() && self.size + 1")`,
    ]);
    // a range without the older wordings: the same lines without them
    expect(synthErrors({ min: '1.34' }, manifest('rewordedcel', REWORDED.rewordedcel))).not.toContain('worded');
    // an error only older versions make stays its own line
    expect(
      synthErrors(undefined, manifest('semver', { rule: '!has(self.size) || !isSemver(self.size) || nosuch > 0' }))
        .split('\n  ')
        .slice(1),
    ).toStrictEqual([
      `[chart/crd] ${RULE}.x-kubernetes-validations[0].rule: Invalid value: compilation failed: ERROR: <input>:1:44: undeclared reference to 'nosuch' (in container '') (got "!has(self.size) || !isSemver(self.size) || nosuch > 0")`,
      `[chart/crd] ${RULE}.x-kubernetes-validations[0].rule: Invalid value: "!has(self.size) || !isSemver(self.size) || nosuch > 0": compilation fails on Kubernetes 1.28, 1.29, 1.30, 1.31, 1.32, 1.33: ERROR: <input>:1:29: undeclared reference to 'isSemver' (in container '') (the semver library (semver(), isSemver()) is in the CEL environment of new expressions from 1.34)`,
    ]);
  });

  test('selectableFields targeted at 1.28 fails synth naming the versions, the construct and the field', () => {
    const message = synthErrors(undefined, manifest('selectable', FEATURES.selectable));
    expect(message).toContain('chart/crd');
    expect(message).toContain('spec.versions[0].selectableFields');
    expect(message).toContain('fails on Kubernetes 1.28, 1.29, 1.30');
    expect(message).toContain('needs 1.31 or newer');
  });

  test('a rule with a 1.30+ CEL function (format.*, sets.*) targeted at 1.28 fails synth naming the versions', () => {
    expect(synthErrors(undefined, manifest('format', FEATURES.format))).toContain(
      'compilation fails on Kubernetes 1.28, 1.29, 1.30, 1.31:',
    );
    expect(synthErrors({ min: '1.29' }, manifest('sets', FEATURES.sets))).toContain(
      'compilation fails on Kubernetes 1.29:',
    );
  });

  test("a rule over 1.28's CEL cost budget (not over 1.29's) fails synth targeting 1.28 with 1.28's figure", () => {
    const message = synthErrors(undefined, manifest('cost', FEATURES.cost));
    expect(message).toContain('chart/crd');
    expect(message).toContain('properties[rewrite].items.x-kubernetes-validations[0].rule');
    expect(message).toContain(
      'fails on Kubernetes 1.28, whose CEL cost estimate is higher: estimated rule cost exceeds budget by factor of 1.048576x',
    );
    expect(synthErrors({ min: '1.29' }, manifest('cost', FEATURES.cost))).toBe('');
  });

  test('narrowing the range to the versions that have the feature lets synth pass', () => {
    expect(synthErrors({ min: '1.32' }, manifest('format', FEATURES.format))).toBe('');
    expect(synthErrors({ min: 'v1.31.2' }, manifest('selectable', FEATURES.selectable))).toBe('');
    expect(synthErrors(undefined, manifest('plain', FEATURES.plain))).toBe('');
  });

  test('a range outside the supported versions is an error', () => {
    expect(synthErrors({ min: '1.27' }, manifest('plain', FEATURES.plain))).toContain(
      'kubernetesVersions.min: "1.27" is not a supported Kubernetes version (1.28 to 1.37)',
    );
    expect(synthErrors({ min: '1.33', max: '1.30' }, manifest('plain', FEATURES.plain))).toContain(
      'kubernetesVersions: min 1.33 is newer than max 1.30',
    );
  });

  test("1.37 is in the range (known from upstream's data, no apiserver here); 1.38 is not", () => {
    expect(synthErrors({ min: '1.37', max: 'v1.37.1' }, manifest('plain', FEATURES.plain))).toBe('');
    expect(synthErrors({ max: '1.38' }, manifest('plain', FEATURES.plain))).toContain(
      'kubernetesVersions.max: "1.38" is not a supported Kubernetes version (1.28 to 1.37)',
    );
  });

  test('optionalOldSelf: 1.28 refuses it as an unknown field where decoding is strict and drops it below additionalProperties; 1.29 drops it', () => {
    const RULE = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    expect(synthErrors(undefined, manifest('oldselffalse', FEATURES.oldselffalse))).toContain(
      `[chart/crd] ${RULE}.x-kubernetes-validations[0].optionalOldSelf: Forbidden: unknown field "optionalOldSelf": v1.ValidationRule has no such field on Kubernetes 1.28 (it has from 1.29), and kubectl apply refuses it (strict field validation)`,
    );
    const VALUE = `${RULE}.properties[labels].additionalProperties.x-kubernetes-validations[0]`;
    expect(
      checkCrdForVersions(manifest('oldselfvalue', FEATURES.oldselfvalue), ['1.28', '1.29', '1.32']).map(formatIssue),
    ).toStrictEqual([
      `${VALUE}.optionalOldSelf: v1.ValidationRule has no such field on Kubernetes 1.28 (it has from 1.29), and its decoder drops it here without a word (below items, additionalProperties and dependencies): the rule runs without it, as a transition rule: on updates only, oldSelf not optional`,
      // upstream's data: 1.29 has the field and drops it everywhere while its feature gate is off (its default)
      `${VALUE}.optionalOldSelf: Kubernetes 1.29 drops it while the CRDValidationRatcheting feature gate is off, the default there (on from 1.30): the rule runs without it, as a transition rule: on updates only, oldSelf not optional`,
      `${VALUE}.rule: Invalid value: "!oldSelf.hasValue() || oldSelf.value() == self": compilation fails on Kubernetes 1.28, 1.29: ERROR: <input>:1:18: found no matching overload for 'hasValue' applied to 'string.()'; ERROR: <input>:1:37: found no matching overload for 'value' applied to 'string.()' (optional values and syntax (x.?f, x[?k], optional.of(), optional.none(), hasValue(), orValue()) is in the CEL environment of new expressions from 1.29)`,
    ]);
    // 1.29 drops it where 1.28 refuses it: a warning, not an error
    expect(
      checkCrdForVersions(manifest('oldselffalse', FEATURES.oldselffalse), ['1.29']).map((i) => [i.severity, i.path]),
    ).toStrictEqual([['warning', `${RULE}.x-kubernetes-validations[0].optionalOldSelf`]]);
    // checked for 1.28 alone, a rule only 1.28 accepts (oldSelf plain) passes with the warning
    const dropped = verdictFor(manifest('oldselfdropped', ONLY_OLDER.oldselfdropped), '1.28');
    expect(dropped.map((i) => [i.severity, i.path])).toStrictEqual([['warning', `${VALUE}.optionalOldSelf`]]);
    expect(errorsOf(verdictFor(manifest('oldselfdropped', ONLY_OLDER.oldselfdropped), '1.32'))).toHaveLength(1);
  });

  test('string literals do not count as calls', () => {
    expect(checkCrdForVersions(manifest('literal', { rule: "self.size != 'quantity(1)'" }), ['1.28'])).toStrictEqual(
      [],
    );
  });
});

describeEachApiServerVersion(
  'CRD features by Kubernetes version',
  (plane, version) => {
    test.each(Object.keys(FEATURES))(
      '%s: the apiserver accepts the CRD exactly where our check says this version has it',
      async (feature) => {
        const crd = manifest(feature, FEATURES[feature]);
        const ours = errorsOf(checkCrdForVersions(crd, [version])).length === 0 ? 'accepted' : 'refused';
        // server-side apply, as APPLY.md applies CRDs: an older apiserver refuses fields it does not know
        const r = await plane().request(
          'PATCH',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=test&dryRun=All&fieldValidation=Strict`,
          crd,
          { contentType: 'application/apply-patch+yaml' },
        );
        expect({
          feature,
          apiserver: r.code === 201 || r.code === 200 ? 'accepted' : 'refused',
          message: r.code >= 300 ? r.body?.message : undefined,
        }).toStrictEqual({ feature, apiserver: ours, message: ours === 'refused' ? expect.any(String) : undefined });
      },
      60_000,
    );

    test.each(Object.keys(ONLY_OLDER))(
      '%s: the apiserver accepts the CRD exactly where its check for this version alone finds no error',
      async (name) => {
        const crd = manifest(name, ONLY_OLDER[name]);
        const ours = errorsOf(verdictFor(crd, version)).length === 0 ? 'accepted' : 'refused';
        const r = await plane().request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All&fieldValidation=Strict',
          crd,
        );
        expect({ name, apiserver: r.code === 201 ? 'accepted' : 'refused' }).toStrictEqual({ name, apiserver: ours });
      },
      60_000,
    );

    test.each(Object.keys(REWORDED))(
      '%s: the apiserver words the refusal as the merged synth line says this version does',
      async (name) => {
        const crd = manifest(name, REWORDED[name]);
        const line = synthErrors(undefined, crd).split('\n  ')[1];
        const r = await plane().request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All',
          crd,
        );
        expect(r.code).toBe(422);
        expect(r.body?.message).toContain(wordingOn(line, version));
      },
      60_000,
    );
  },
  { shared: true },
);

describe('API versions a version of the range does not serve', () => {
  const DEPLOYMENTS = {
    resourceRules: [
      { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE' as const], resources: ['deployments'] },
    ],
  };

  function synthPolicyApp(
    range: { min?: string } | undefined,
    props: { skip?: boolean; layout?: OutputLayout } = {},
  ): { error: string; dir: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-vap-'));
    const app = new OperatorApp({
      outdir: path.join(dir, 'dist'),
      report: false,
      policy: false,
      descriptionCheck: false,
      layout: props.layout ?? OutputLayout.APPLY_ORDER,
      ...(range ? { kubernetesVersions: range } : {}),
    });
    const chart = new Chart(app, 'chart');
    new ApiObject(chart, 'cm', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'plain', namespace: 'default' },
    });
    const policy = new ValidatingAdmissionPolicy(chart, 'replicas', {
      name: 'replicas',
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression: 'object.spec.replicas <= 5' }],
      ...(props.skip ? { onUnservedVersions: 'skip' as const } : {}),
    });
    policy.bind('binding');
    try {
      app.synth();
      return { error: '', dir: path.join(dir, 'dist') };
    } catch (e) {
      return { error: (e as Error).message, dir: path.join(dir, 'dist') };
    }
  }

  test('a ValidatingAdmissionPolicy (v1: 1.30+) targeted at 1.28 fails synth naming the construct and the versions', () => {
    const { error } = synthPolicyApp(undefined);
    expect(error).toContain(
      '[chart/replicas/Resource] admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy fails on Kubernetes 1.28, 1.29: not served there (served from Kubernetes 1.30)',
    );
    expect(error).toContain(
      '[chart/replicas/binding/Resource] admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding fails on Kubernetes 1.28, 1.29',
    );
    expect(error).toContain("kubernetesVersions: { min: '1.30' }");
    expect(synthPolicyApp({ min: '1.30' }).error).toBe('');
  });

  test("onUnservedVersions: 'skip' puts the policy and its binding in 6-requires-1.30.yaml, applied only where served", () => {
    const { error, dir } = synthPolicyApp(undefined, { skip: true });
    expect(error).toBe('');
    // the ConfigMap where it was; nothing left in 2-cluster-resources.yaml
    expect(
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .sort(),
    ).toStrictEqual(['3-namespaced-resources.yaml', '6-requires-1.30.yaml']);
    const conditional = fs.readFileSync(path.join(dir, '6-requires-1.30.yaml'), 'utf8');
    expect(conditional).toContain('kind: ValidatingAdmissionPolicy\n');
    expect(conditional).toContain('kind: ValidatingAdmissionPolicyBinding\n');
    const guide = fs.readFileSync(path.join(dir, 'APPLY.md'), 'utf8');
    expect(guide).toContain(
      'if kubectl get --raw /apis/admissionregistration.k8s.io/v1 | grep \'"kind":"ValidatingAdmissionPolicy"\' >/dev/null && ' +
        'kubectl get --raw /apis/admissionregistration.k8s.io/v1 | grep \'"kind":"ValidatingAdmissionPolicyBinding"\' >/dev/null; then kubectl apply -f dist/6-requires-1.30.yaml; fi',
    );
    expect(guide).toContain('`6-requires-1.30.yaml` needs Kubernetes 1.30 or newer');
    // a range every version of which serves it: no conditional file
    const { dir: newer } = synthPolicyApp({ min: '1.30' }, { skip: true });
    expect(fs.existsSync(path.join(newer, '6-requires-1.30.yaml'))).toBe(false);
    expect(fs.readFileSync(path.join(newer, '2-cluster-resources.yaml'), 'utf8')).toContain(
      'kind: ValidatingAdmissionPolicy\n',
    );
  });

  test("'skip' needs the apply-order layout (a file of its own)", () => {
    expect(synthPolicyApp(undefined, { skip: true, layout: OutputLayout.PER_CHART }).error).toContain(
      'needs layout: OutputLayout.APPLY_ORDER',
    );
  });
});

describe('a ValidatingAdmissionPolicy checked against each version of the range that serves it', () => {
  const DEPLOYMENTS = {
    resourceRules: [
      { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE' as const], resources: ['deployments'] },
    ],
  };

  function synth(
    range: { min?: string; max?: string },
    expression: string,
    binding: { validationActions?: ('Deny' | 'Warn' | 'Audit')[] } = {},
  ): { error: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-vap-range-'));
    const app = new OperatorApp({
      outdir: path.join(dir, 'dist'),
      report: false,
      policy: false,
      descriptionCheck: false,
      kubernetesVersions: range,
    });
    const chart = new Chart(app, 'chart');
    const policy = new ValidatingAdmissionPolicy(chart, 'p', {
      name: 'p',
      matchConstraints: DEPLOYMENTS,
      validations: [{ expression }],
    });
    policy.bind('b', binding);
    try {
      app.synth();
      return { error: '' };
    } catch (e) {
      return { error: (e as Error).message };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test("a CEL library newer than the range's oldest served version fails synth for the versions without it", () => {
    // the format library is in new admission expressions from 1.32 (introduced 1.31)
    const expression = '!format.dns1123Label().validate(object.metadata.name).hasValue()';
    const { error } = synth({ min: '1.30' }, expression);
    expect(error).toContain(
      "on Kubernetes 1.30, 1.31: spec.validations[0].expression: Invalid value: \"!format.dns1123Label().validate(object.metadata.name).hasValue()\": compilation failed: ERROR: <input>:1:2: undeclared reference to 'format' (in container '')",
    );
    expect(error).not.toContain('1.32');
    expect(synth({ min: '1.32' }, expression).error).toBe('');
  });

  test('the same refusal on every version is reported once, in the wording of each where it differs', () => {
    const { error } = synth({ min: '1.30' }, 'object.spec.replicas', { validationActions: ['Deny', 'Warn'] });
    // the result type is named from 1.32 on
    expect(error).toContain(
      'on Kubernetes 1.30, 1.31: spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool',
    );
    expect(error).toContain(
      'on Kubernetes 1.32, 1.33, 1.34, 1.35, 1.36, 1.37: spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool but got dyn',
    );
    // the binding's bad value as Go printed it before 1.34, as JSON after
    expect(error).toContain(
      'on Kubernetes 1.30, 1.31, 1.32, 1.33: spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn',
    );
    expect(error).toContain(
      'on Kubernetes 1.34, 1.35, 1.36, 1.37: spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn',
    );
  });

  test('a policy every version accepts passes; versions outside the range are not consulted', () => {
    expect(synth({ min: '1.32', max: '1.32' }, 'object.?spec.?replicas.orValue(1) <= 5').error).toBe('');
    expect(synth({ min: '1.30', max: '1.36' }, 'object.spec.replicas <= 5').error).toBe('');
  });
});

describe('the synth report says what each object needs', () => {
  test("no minimum-version note for a version at or below the start of the app's range", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versions-needs-'));
    // a range starting at 1.31 that every object passes: a minimum at or below its start is no news ('needs 1.30+' or
    // 'needs 1.31+' would be true of every version the app targets), so the report lists none
    const app = new OperatorApp({
      outdir: path.join(dir, 'dist'),
      report: false,
      policy: false,
      descriptionCheck: false,
      layout: OutputLayout.APPLY_ORDER,
      kubernetesVersions: { min: '1.31' },
    });
    const chart = new Chart(app, 'chart');
    new ApiObject(chart, 'plain', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'plain', namespace: 'default' },
    });
    new ApiObject(chart, 'svc', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: 'default' },
      spec: { ports: [{ port: 80 }], trafficDistribution: 'PreferClose' },
    });
    CustomResourceDefinition.fromManifest(chart, 'crd', manifest('selectable', FEATURES.selectable));
    new ValidatingAdmissionPolicy(chart, 'p', {
      name: 'p',
      onUnservedVersions: 'skip',
      validations: [{ expression: 'object.spec.replicas <= 5' }],
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
        ],
      },
    });
    app.synth();
    const report = collectSynthReport(app, path.join(dir, 'dist'));
    expect(report.needs).toBeUndefined();
    expect(renderSynthReport(report)).not.toMatch(/needs 1\.\d+\+/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

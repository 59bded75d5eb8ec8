/*
 * The Kubernetes versions this project imitates, and where their apiservers differ, as data keyed by version:
 * one checker reads `since(version, change)` instead of a copy of the checker per version.
 * Versions 1.28, 1.32 and 1.36 are measured on their real apiservers in the differential suites; the versions
 * between them follow upstream's release notes and sources (each change names its source). 1.37 has no apiserver
 * here: it is known only from upstream's data (its CEL environment and cost from k8s.io/apiserver v0.37.0-beta.0,
 * lib/apiserver/cel/upstream-base-env.ts; its built-in fields from k8s.io/api v0.37.0-beta.0's Go types,
 * builtin-fields-by-version.ts; the rest from its changelog), and is checked as 1.36 is wherever that data names no
 * change.
 */

/** The Kubernetes minor versions this project knows, oldest first. */
export const KUBERNETES_VERSIONS = [
  '1.28',
  '1.29',
  '1.30',
  '1.31',
  '1.32',
  '1.33',
  '1.34',
  '1.35',
  '1.36',
  '1.37',
] as const;

/** A Kubernetes minor version, `1.28` to `1.37`. */
export type KubernetesVersion = (typeof KUBERNETES_VERSIONS)[number];

/** The version checks use when none is given: the one every check was first measured on. */
export const DEFAULT_KUBERNETES_VERSION: KubernetesVersion = '1.32';

/** The range the project supports, and the default target of an app. */
export const SUPPORTED_KUBERNETES_RANGE = { min: '1.28', max: '1.37' } as const satisfies {
  min: KubernetesVersion;
  max: KubernetesVersion;
};

/**
 * The minor number (`1.32` → 32).
 *
 * @internal
 */
export function minorOf(version: KubernetesVersion): number {
  return Number(version.split('.')[1]);
}

/**
 * Whether `text` names a supported version (`1.30`, `v1.30`, `1.30.2`), and which.
 *
 * @internal
 */
export function parseKubernetesVersion(text: string): KubernetesVersion | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(text.trim());
  const version = m ? `1.${Number(m[1])}` : undefined;
  return (KUBERNETES_VERSIONS as readonly string[]).includes(version ?? '')
    ? (version as KubernetesVersion)
    : undefined;
}

/**
 * Every version from `min` to `max`, both included.
 *
 * @internal
 */
export function versionsBetween(min: KubernetesVersion, max: KubernetesVersion): KubernetesVersion[] {
  return KUBERNETES_VERSIONS.filter((v) => minorOf(v) >= minorOf(min) && minorOf(v) <= minorOf(max));
}

/**
 * Changes in what the apiserver accepts, each with the first minor version that has it.
 *
 * @internal
 */
export const APISERVER_CHANGES = {
  /** `mac` format: 12 or 16 hex digits without separators are accepted (measured: refused by 1.32, accepted by 1.36). */
  macWithoutSeparators: 36,
  /**
   * `uri` format and CEL `url()`/`isURL()`: a bracketed host must be an IPv6 address (Go 1.25.2's net/url,
   * CVE-2025-47912), and a host's port starts at its first colon (`http://x:1:2/` is refused: `invalid port ":1:2"
   * after host`). Measured on 1.36 (url() of the CEL library differential); 1.32 accepts both.
   */
  strictBracketedHosts: 36,
  /** integer/number formats are enforced: int32/int64 ranges, float's range ("Checked value must be of type …"). */
  numericFormatRanges: 36,
  /**
   * Formats are kept only on the types they are meant for (string formats on strings, numeric formats on numbers);
   * before, any known string format on any type made kube-openapi's type check report the format (`must be of type byte`).
   */
  formatsOnlyOnTheirType: 36,
  /**
   * A failed CRD CEL rule shows the value itself, omitted for objects and lists (`spec: Invalid value: <message>`,
   * `spec.name: Invalid value: "a.b": <message>`); before, the schema type (`Invalid value: "object": <message>`).
   * apiextensions-apiserver v0.35.0 ("Omit values from validation rule error expressions"); measured on 1.32 and 1.36.
   */
  celMessageWithoutType: 35,
  /**
   * Field error wording of k8s.io/apimachinery v0.32.0: `Too long: may not be more than N bytes` for a schema's
   * maxLength (before: `may not be longer than N`) and for annotations (before: `must have at most N bytes`).
   */
  tooLongInBytes: 32,
  /**
   * apiextensions-apiserver v0.34.0 ("Remove redundant detail messages in field.Required"): an embedded resource
   * without apiVersion or kind reads `Required value` (before: `Required value: must not be empty`).
   */
  embeddedRequiredWithoutDetail: 34,
  /** apimachinery v0.34.0: singular counts (`may not be more than 1 byte`, `must have at most 1 item`). */
  singularCounts: 34,
  /**
   * apimachinery v0.35.0 (label checks moved to `api/validate/content`): label keys and values, annotation keys and
   * finalizers say `must be no more than 63 bytes` (before: `characters`) and `a valid label key` (before: `a qualified
   * name`).
   */
  labelChecksInBytes: 35,
  /**
   * An unsupported (enum) value blocks CEL rules like a wrong type does (rules are skipped, with a fieldless note):
   * enums bound the rules' cost estimates since kubernetes/kubernetes#119511. Measured: 1.28 still evaluates the
   * rules after an enum error, 1.32 skips them.
   */
  enumErrorsBlockRules: 29,
  /** `selectableFields` in CRD versions (alpha 1.30, beta and on by default 1.31, GA 1.32). */
  selectableFields: 31,
  /**
   * `additionalProperties: false` inside allOf/anyOf/oneOf/not of a CRD schema: refused by 1.28 (`must be undefined
   * to be structural`), accepted by 1.32 and 1.36 (measured, bench/crd-differential.ts); 1.29 to 1.31 were not
   * measured and are taken as refusing.
   */
  additionalPropertiesFalseInJunctors: 32,
  /**
   * `example` and `externalDocs` in root `metadata` of a CRD schema: accepted by 1.28 and 1.32, refused by 1.36
   * (`must not specify anything other than name and generateName`; measured, bench/crd-differential.ts); 1.33 to 1.35
   * were not measured and are taken as refusing.
   */
  metadataDocKeywordsRefused: 33,
  /**
   * CEL cost: `has()` costs nothing beyond its operand (Kubernetes sets cel-go's `PresenceTestHasCost(false)` since its
   * cel-go v0.17.7 bump in 1.29); 1.28 charges 1 per presence test (measured: `has(self.a) || has(self.b)` costs 4 on
   * 1.28, 2 on 1.32).
   */
  presenceTestFree: 29,
  /**
   * CEL cost: a string without maxLength is as long as its longest enum value (before: as long as a request allows;
   * measured: `self == oldSelf` on `enum: [Delete, Retain]` costs 314,575 on 1.28 and 2 on 1.32). Upstream's CEL
   * cost changes of 1.29 (the cel-go v0.17 bump); 1.29 to 1.31 have no apiserver in the suites.
   */
  enumBoundsStringSize: 29,
  /**
   * CEL cost: a comprehension's result (`map`, `filter`) is sized like its range, so chained macros stay bounded
   * (measured: `self.l.map(x, x + 'a').filter(y, y != '')` over 20 items is over budget at any count on 1.28).
   */
  comprehensionResultSized: 29,
  /**
   * CEL cost: `==` of the Kubernetes libraries' own types (IP, CIDR, quantity, format, URL) has the library's estimate
   * (kubernetes/kubernetes#126359, July 2024: 1 for IP, CIDR and quantity); before, cel-go's default for values of
   * unknown size, unbounded (measured: `ip(self.v) == ip(self.w)` and `cidr(self.v) == cidr(self.v).masked()` are over
   * the budget on 1.28.15, cost 1 on 1.32). Placed at 1.31, the first release with it; 1.29 and 1.30 have no apiserver
   * in the suites.
   */
  libraryTypeEqualityCost: 31,
  /** CRD rules' `optionalOldSelf` (beta and on by default in 1.30, GA 1.31). */
  optionalOldSelf: 30,
  /**
   * A CRD rule's `optionalOldSelf` is a field of the API's types: 1.28 refuses it as unknown (measured). 1.29 has it
   * and drops it while the CRDValidationRatcheting feature gate is off, its default there (upstream's
   * `dropDisabledFields` in the CRD strategy; no 1.29 apiserver here).
   */
  optionalOldSelfField: 29,
  /**
   * A replicated pod template's GCE persistent disk need not be read-only: the gate `SkipReadOnlyValidationGCE` is
   * on by default from 1.29 (upstream's data; measured: 1.28 refuses `readOnly: false` in a Deployment of 2 replicas,
   * 1.32 and 1.36 accept it).
   */
  readOnlyGceDisksUnchecked: 29,
  /**
   * An admission expression of the wrong result type: `must evaluate to bool but got int` (plugin/cel/compile.go
   * from 1.32; before, `must evaluate to bool`, measured on 1.28).
   */
  policyResultTypeNamed: 32,
  /**
   * Admission policy type checking (kube-controller-manager's status controller) compiles the policy's variables and
   * declares `variables` (typechecking.go's composition environment, 1.30); before, a validation using them is
   * warned `undeclared reference to 'variables'` (measured on 1.28).
   */
  policyTypeCheckVariables: 30,
  /**
   * The status controller refreshes its RESTMapper once per policy when a resource is unknown to it (1.29); 1.28
   * skips kinds its mapper does not know yet, so a policy on a recently installed CRD gets no type checking
   * (measured on 1.28: none of the corpus' CRD kinds is checked).
   */
  policyTypeCheckRefreshesKinds: 29,
  /**
   * Type checking declares `params` (as dyn) whenever the policy has a paramKind, also when its schema is not found
   * (typechecking.go 1.36: `HasParams: !paramGVK.Empty()`); before, `params` is undeclared then.
   */
  policyParamsDeclaredUnresolved: 36,
  /**
   * Field errors print a bad value that is neither a string nor a number as JSON (apimachinery's field/errors.go,
   * 1.34, kubernetes/kubernetes#132314: `["Deny","Warn"]`, `{"k":1}`, `null`); before, as Go's `%#v`
   * (`[]admissionregistration.ValidationAction{"Deny", "Warn"}`, `map[string]interface {}{"k":1}`, `"null"`).
   */
  fieldValuesAsJson: 34,
  /**
   * A policy variable whose name is no CEL identifier: `must be a valid CEL identifier` (before: `name is not a valid
   * CEL identifier`). Measured on 1.32 and 1.36 only: the versions between have no apiserver in the suites and are
   * given the older wording.
   */
  celIdentifierWording: 36,
  /**
   * A binding's match resources are reported under `spec.matchResources` and their object selector under
   * `objectSelector`; 1.28 writes `spec.matchResouces` and `labelSelector` (measured: 1.28 and 1.32). The fix is
   * placed at 1.30, the policies' v1 release; 1.29 to 1.31 have no apiserver in the suites.
   */
  policyMatchResourcesPaths: 30,
  /**
   * CEL's `'%e'.format([x])` writes `1.000000×10⁰⁰`; before, `1.000000 × 10⁰⁰` with narrow no-break spaces (the
   * golang.org/x/text message printer cel-go formats with; x/text v0.23.0 of January 2025 dropped the spaces).
   * Measured: 1.32 has the spaces, 1.36 not; placed at 1.33, the first release after the fix (1.33 to 1.35 have no
   * apiserver in the suites).
   */
  scientificWithoutSpaces: 33,
  /**
   * CEL's `indexOf(s, offset)` and `lastIndexOf(s, offset)` of the strings extension: an offset at or past the string's
   * end finds nothing (-1); before, `index out of range` (cel-go v0.22.0, which 1.32 vendors; measured: 1.28 errors,
   * 1.32 and 1.36 give -1; 1.29 to 1.31 vendor cel-go v0.17 to v0.21).
   */
  stringOffsetPastEndNotFound: 32,
  /**
   * CEL's `lastIndexOf(s)` on a string shorter (in bytes) than `s` is -1; before, `''.lastIndexOf('a')` is `index out
   * of range: -1` (cel-go v0.25.1; measured: 1.32 errors, 1.36 gives -1). Placed at 1.34, the first release vendoring
   * cel-go v0.26 (1.33 to 1.35 have no apiserver in the suites).
   */
  lastIndexOfShorterNotFound: 34,
} as const;

/**
 * A change of `APISERVER_CHANGES`.
 *
 * @internal
 */
export type ApiserverChange = keyof typeof APISERVER_CHANGES;

/**
 * Whether `version` has `change`.
 *
 * @internal
 */
export function since(version: KubernetesVersion, change: ApiserverChange): boolean {
  return minorOf(version) >= APISERVER_CHANGES[change];
}

/**
 * The first version with `change`.
 *
 * @internal
 */
export function firstVersionWith(change: ApiserverChange): KubernetesVersion {
  return `1.${APISERVER_CHANGES[change]}` as KubernetesVersion;
}

/** The changes of `APISERVER_CHANGES` that change CEL cost estimates. */
const COST_CHANGES: readonly ApiserverChange[] = [
  'presenceTestFree',
  'enumBoundsStringSize',
  'comprehensionResultSized',
  'libraryTypeEqualityCost',
];

/**
 * A name of the CEL cost model of `version`: versions with the same name estimate every rule alike.
 *
 * @internal
 */
export function costModelOf(version: KubernetesVersion): string {
  return COST_CHANGES.filter((c) => since(version, c)).join(',');
}

/**
 * The changes of `APISERVER_CHANGES` that the checks of a custom resource read (lib/apiserver/value-validation,
 * schema, and the name and field-error helpers; test/structure/custom-resource-changes.test.ts keeps the list
 * complete). Those that change a verdict come first; the others change only the wording of an issue found anyway.
 */
const CUSTOM_RESOURCE_VERDICT_CHANGES: readonly ApiserverChange[] = [
  'macWithoutSeparators',
  'strictBracketedHosts',
  'numericFormatRanges',
  'formatsOnlyOnTheirType',
  'scientificWithoutSpaces',
  'stringOffsetPastEndNotFound',
  'lastIndexOfShorterNotFound',
];
/** Changes that decide nothing for a resource without issues: wording, and whether rules run after an error. */
const CUSTOM_RESOURCE_OTHER_CHANGES: readonly ApiserverChange[] = [
  'enumErrorsBlockRules',
  'celMessageWithoutType',
  'tooLongInBytes',
  'singularCounts',
  'fieldValuesAsJson',
  'labelChecksInBytes',
  'embeddedRequiredWithoutDetail',
];

/** @internal */
export const CUSTOM_RESOURCE_CHANGES: readonly ApiserverChange[] = [
  ...CUSTOM_RESOURCE_VERDICT_CHANGES,
  ...CUSTOM_RESOURCE_OTHER_CHANGES,
];

/**
 * A name of how `version` checks a custom resource: versions with the same name give the same issues, word for word.
 *
 * @internal
 */
export function customResourceModelOf(version: KubernetesVersion): string {
  return CUSTOM_RESOURCE_CHANGES.filter((c) => since(version, c)).join(',');
}

/**
 * A name of what `version` finds in a custom resource: versions with the same name find no issue in the same
 * resources (they may word the issues they find otherwise).
 *
 * @internal
 */
export function customResourceVerdictModelOf(version: KubernetesVersion): string {
  return CUSTOM_RESOURCE_VERDICT_CHANGES.filter((c) => since(version, c)).join(',');
}

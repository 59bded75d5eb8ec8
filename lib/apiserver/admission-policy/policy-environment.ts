import { BOOL, CelType, DYN, INT, listOf, mapOf, opaque, STRING, TIMESTAMP } from '../cel/cel-types';
import { FunctionDecl } from '../cel/declarations';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/**
 * The CEL environment of a ValidatingAdmissionPolicy's expressions, as kube-apiserver 1.32 declares it
 * (`k8s.io/apiserver/pkg/admission/plugin/cel`: `BuildRequestType`, `BuildNamespaceType`, the authz library).
 */

const obj = (name: string, fields: Record<string, CelType>): CelType => ({ kind: 'object', name, fields });

const GVK = obj('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const GVR = obj('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });
const USER_INFO = obj('kubernetes.UserInfo', {
  username: STRING, uid: STRING, groups: listOf(STRING), extra: mapOf(STRING, listOf(STRING)),
});

/** `request`: the AdmissionRequest without uid, object and oldObject (those are variables of their own). */
export const REQUEST_TYPE: CelType = obj('kubernetes.AdmissionRequest', {
  kind: GVK, resource: GVR, subResource: STRING, requestKind: GVK, requestResource: GVR, requestSubResource: STRING,
  name: STRING, namespace: STRING, operation: STRING, userInfo: USER_INFO, dryRun: BOOL, options: DYN,
});

/** `namespaceObject`: a hand-made subset of Namespace (no managedFields, ownerReferences ...). */
export const NAMESPACE_TYPE: CelType = obj('kubernetes.Namespace', {
  metadata: obj('kubernetes.NamespaceMetadata', {
    name: STRING, generateName: STRING, namespace: STRING, labels: mapOf(STRING, STRING), annotations: mapOf(STRING, STRING),
    UID: STRING, creationTimestamp: TIMESTAMP, deletionGracePeriodSeconds: INT, deletionTimestamp: TIMESTAMP,
    generation: INT, resourceVersion: STRING, finalizers: listOf(STRING),
  }),
  spec: obj('kubernetes.NamespaceSpec', { finalizers: listOf(STRING) }),
  status: obj('kubernetes.NamespaceStatus', {
    conditions: listOf(obj('kubernetes.NamespaceCondition', {
      status: STRING, type: STRING, lastTransitionTime: TIMESTAMP, message: STRING, reason: STRING,
    })),
    phase: STRING,
  }),
});

export const AUTHORIZER_TYPE = opaque('authorization.Authorizer');
const PATH_CHECK = opaque('authorization.PathCheck');
const GROUP_CHECK = opaque('authorization.GroupCheck');
export const RESOURCE_CHECK_TYPE = opaque('authorization.ResourceCheck');
const DECISION = opaque('authorization.Decision');

const method = (target: CelType, name: string, args: CelType[], result: CelType): FunctionDecl => ({ name, target, args, result });

/** The authz library (`library.Authz`, and `AuthzSelectors` of 1.31+, enabled in 1.32). */
export const AUTHZ_FUNCTIONS: readonly FunctionDecl[] = [
  method(AUTHORIZER_TYPE, 'path', [STRING], PATH_CHECK),
  method(AUTHORIZER_TYPE, 'group', [STRING], GROUP_CHECK),
  method(AUTHORIZER_TYPE, 'serviceAccount', [STRING, STRING], AUTHORIZER_TYPE),
  method(GROUP_CHECK, 'resource', [STRING], RESOURCE_CHECK_TYPE),
  ...['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'].map(m => method(RESOURCE_CHECK_TYPE, m, [STRING], RESOURCE_CHECK_TYPE)),
  method(PATH_CHECK, 'check', [STRING], DECISION),
  method(RESOURCE_CHECK_TYPE, 'check', [STRING], DECISION),
  method(DECISION, 'allowed', [], BOOL), method(DECISION, 'errored', [], BOOL),
  method(DECISION, 'reason', [], STRING), method(DECISION, 'error', [], STRING),
];

/**
 * Names of the local CEL library outside the environment of new admission expressions of a Kubernetes version, each
 * group with the first version that has it: `IntroducedVersion` in k8s.io/apiserver's pkg/cel/environment/base.go
 * plus one, since a version compiles new expressions at its compatibility version (its predecessor). A call is an
 * undeclared reference there, and so here. `until` groups are in no supported version (Kubernetes' base environment
 * never adds cel-go's math and encoders extensions, cel.bind or the strings extension's reverse through 1.36).
 * Measured at create on 1.28 (quantity, optional syntax, format), 1.32 (two-variable comprehensions, semver, lists)
 * and 1.36 (all three compile; math, base64, cel.bind and strings' reverse do not). ip()/cidr() are introduced in
 * 1.30 by base.go, yet 1.28.15 compiles them (measured): they are not withheld.
 */
const LIBRARY_SINCE: ReadonlyArray<{ readonly from: number; readonly names: readonly string[] }> = [
  // cel.OptionalTypes and library.Quantity (introduced 1.28); the `.?`/`[?` syntax is refused by the parser
  { from: 29, names: ['optional.of', 'optional.none', 'optional.ofNonZeroValue', 'hasValue', 'value', 'orValue',
    'quantity', 'isQuantity', 'isInteger', 'asInteger', 'asApproximateFloat', 'add', 'sub', 'compareTo', 'isGreaterThan', 'isLessThan'] },
  // ext.Strings v2 (format, strings.quote) and ext.Sets (introduced 1.29)
  { from: 30, names: ['format', 'strings.quote', 'sets.contains', 'sets.equivalent', 'sets.intersects'] },
  // library.Format (1.31) and library.AuthzSelectors (1.31, behind AuthorizeWithSelectors: beta, on, in 1.32)
  { from: 32, names: [...['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix',
    'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime', 'named'].map(f => `format.${f}`),
  'validate', 'fieldSelector', 'labelSelector'] },
  // ext.TwoVarComprehensions (1.32): the macros' two-variable forms are refused by `twoVariableComprehensions`
  { from: 33, names: ['transformList', 'transformMap', 'transformMapEntry'] },
  // library.SemverLib (1.33)
  { from: 34, names: ['semver', 'isSemver', 'major', 'minor', 'patch'] },
  // ext.Lists v3 (1.34)
  { from: 35, names: ['lists.range', 'slice', 'flatten', 'distinct', 'sort', 'sortBy', 'reverse', 'first', 'last'] },
  // never in Kubernetes' base environment so far
  { from: 99, names: ['cel.bind', 'base64.encode', 'base64.decode', 'strings.reverse',
    ...['greatest', 'least', 'ceil', 'floor', 'round', 'abs', 'sign', 'isNaN', 'isInf', 'isFinite', 'bitAnd', 'bitOr', 'bitXor',
      'bitNot', 'bitShiftLeft', 'bitShiftRight', 'trunc', 'sqrt'].map(f => `math.${f}`)] },
];

const withheldByVersion = new Map<KubernetesVersion, ReadonlySet<string>>();

/** The names of `LIBRARY_SINCE` that new admission expressions of `version` cannot use. */
export function withheldIn(version: KubernetesVersion): ReadonlySet<string> {
  let names = withheldByVersion.get(version);
  if (!names) {
    names = new Set(LIBRARY_SINCE.filter(g => minorOf(version) < g.from).flatMap(g => g.names));
    withheldByVersion.set(version, names);
  }
  return names;
}

/** Whether new admission expressions of `version` parse `x.?f` and `x[?k]` (cel.OptionalTypes, 1.29). */
export function hasOptionalSyntax(version: KubernetesVersion): boolean {
  return !withheldIn(version).has('optional.of');
}

/** Whether new admission expressions of `version` have two-variable comprehensions (`m.all(k, v, …)`, 1.33). */
export function hasTwoVariableComprehensions(version: KubernetesVersion): boolean {
  return !withheldIn(version).has('transformList');
}

/** Which optional variables an expression sees (`OptionalVariableDeclarations`). */
export interface PolicyVariables {
  /** `object` and `oldObject`: dyn at create, the matched kind's type when type-checking. */
  readonly object: CelType;
  /** `params`: declared only when the policy has a paramKind (dyn at create, its schema's type when type-checking). */
  readonly params?: CelType;
  /** `authorizer` (and, at create, `authorizer.requestResource`). */
  readonly authorizer: boolean;
  /** `authorizer.requestResource` is declared by the create-time compiler only, not by the type checker. */
  readonly requestResource: boolean;
  /** `variables`: declared when the policy has variables (composition), with the fields compiled so far. */
  readonly variables?: CelType;
}

/** The declarations of one compile. */
export function policyDeclarations(v: PolicyVariables): Record<string, CelType> {
  const decls: Record<string, CelType> = {
    object: v.object, oldObject: v.object, request: REQUEST_TYPE, namespaceObject: NAMESPACE_TYPE,
  };
  if (v.params) decls.params = v.params;
  if (v.authorizer) decls.authorizer = AUTHORIZER_TYPE;
  if (v.authorizer && v.requestResource) decls['authorizer.requestResource'] = RESOURCE_CHECK_TYPE;
  if (v.variables) decls.variables = v.variables;
  return decls;
}

/**
 * The type a compiled variable gets in `variables` (`convertCelTypeToDeclType`): scalars keep theirs, lists and
 * maps are converted element-wise, anything else (objects, library types) becomes dyn; a variable that failed to
 * compile is dyn.
 */
export function variableType(t: CelType | undefined): CelType {
  if (!t) return DYN;
  switch (t.kind) {
    case 'list': return listOf(variableType(t.elem));
    case 'map': return mapOf(variableType(t.key), variableType(t.value));
    case 'object': case 'opaque': case 'type': return DYN;
    default: return { kind: t.kind };
  }
}

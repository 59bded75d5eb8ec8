import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { BOOL, CelType, DYN, INT, listOf, mapOf, opaque, STRING, TIMESTAMP } from '../cel/cel-types';
import { FunctionDecl } from '../cel/declarations';
import type { StructDecl } from '../cel/type-checker';

/**
 * The CEL environment of a ValidatingAdmissionPolicy's expressions, as kube-apiserver 1.32 declares it
 * (`k8s.io/apiserver/pkg/admission/plugin/cel`: `BuildRequestType`, `BuildNamespaceType`, the authz library).
 */

const obj = (name: string, fields: Record<string, CelType>): CelType => ({ kind: 'object', name, fields });

const GVK = obj('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const GVR = obj('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });
const USER_INFO = obj('kubernetes.UserInfo', {
  username: STRING,
  uid: STRING,
  groups: listOf(STRING),
  extra: mapOf(STRING, listOf(STRING)),
});

/** `request`: the AdmissionRequest without uid, object and oldObject (those are variables of their own). */
export const REQUEST_TYPE: CelType = obj('kubernetes.AdmissionRequest', {
  kind: GVK,
  resource: GVR,
  subResource: STRING,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: USER_INFO,
  dryRun: BOOL,
  options: DYN,
});

/** `namespaceObject`: a hand-made subset of Namespace (no managedFields, ownerReferences ...). */
export const NAMESPACE_TYPE: CelType = obj('kubernetes.Namespace', {
  metadata: obj('kubernetes.NamespaceMetadata', {
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: mapOf(STRING, STRING),
    annotations: mapOf(STRING, STRING),
    UID: STRING,
    creationTimestamp: TIMESTAMP,
    deletionGracePeriodSeconds: INT,
    deletionTimestamp: TIMESTAMP,
    generation: INT,
    resourceVersion: STRING,
    finalizers: listOf(STRING),
  }),
  spec: obj('kubernetes.NamespaceSpec', { finalizers: listOf(STRING) }),
  status: obj('kubernetes.NamespaceStatus', {
    conditions: listOf(
      obj('kubernetes.NamespaceCondition', {
        status: STRING,
        type: STRING,
        lastTransitionTime: TIMESTAMP,
        message: STRING,
        reason: STRING,
      }),
    ),
    phase: STRING,
  }),
});

export const AUTHORIZER_TYPE = opaque('authorization.Authorizer');
const PATH_CHECK = opaque('authorization.PathCheck');
const GROUP_CHECK = opaque('authorization.GroupCheck');
export const RESOURCE_CHECK_TYPE = opaque('authorization.ResourceCheck');
const DECISION = opaque('authorization.Decision');

const method = (target: CelType, name: string, args: CelType[], result: CelType): FunctionDecl => ({
  name,
  target,
  args,
  result,
});

/** The authz library (`library.Authz`, and `AuthzSelectors` of 1.31+, enabled in 1.32). */
export const AUTHZ_FUNCTIONS: readonly FunctionDecl[] = [
  method(AUTHORIZER_TYPE, 'path', [STRING], PATH_CHECK),
  method(AUTHORIZER_TYPE, 'group', [STRING], GROUP_CHECK),
  method(AUTHORIZER_TYPE, 'serviceAccount', [STRING, STRING], AUTHORIZER_TYPE),
  method(GROUP_CHECK, 'resource', [STRING], RESOURCE_CHECK_TYPE),
  ...['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'].map((m) =>
    method(RESOURCE_CHECK_TYPE, m, [STRING], RESOURCE_CHECK_TYPE),
  ),
  method(PATH_CHECK, 'check', [STRING], DECISION),
  method(RESOURCE_CHECK_TYPE, 'check', [STRING], DECISION),
  method(DECISION, 'allowed', [], BOOL),
  method(DECISION, 'errored', [], BOOL),
  method(DECISION, 'reason', [], STRING),
  method(DECISION, 'error', [], STRING),
];

/**
 * Names the admission environment of a Kubernetes version lacks beyond the CEL libraries of `celEnvironment` (which
 * the type checker reads for CRD rules and admission expressions alike): the authorizer's selector methods
 * (library.AuthzSelectors, introduced 1.31 behind AuthorizeWithSelectors, beta and on in 1.32).
 */
export function withheldIn(version: KubernetesVersion): ReadonlySet<string> {
  return minorOf(version) < 32 ? AUTHZ_SELECTORS : NONE;
}

const AUTHZ_SELECTORS: ReadonlySet<string> = new Set(['fieldSelector', 'labelSelector']);
const NONE: ReadonlySet<string> = new Set();

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
  /** A mutating policy's message types (`Object…`, `JSONPatch`) and `jsonpatch.escapeKey` (`mutationStructs`). */
  readonly structs?: (messageName: string) => StructDecl | undefined;
}

/** The declarations of one compile. */
export function policyDeclarations(v: PolicyVariables): Record<string, CelType> {
  const decls: Record<string, CelType> = {
    object: v.object,
    oldObject: v.object,
    request: REQUEST_TYPE,
    namespaceObject: NAMESPACE_TYPE,
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
    case 'list':
      return listOf(variableType(t.elem));
    case 'map':
      return mapOf(variableType(t.key), variableType(t.value));
    case 'object':
    case 'opaque':
    case 'type':
      return DYN;
    default:
      return { kind: t.kind };
  }
}

import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { CelType, DYN, schemaCelType } from '../cel/cel-types';
import { CrdManifest } from '../crd-manifest';
import { builtinComponent, builtinKindFor, builtinSchema, GroupVersionKind, gvkString } from './builtin-openapi';
import { compileAdmissionExpression, CompiledExpression } from './compile';
import { PolicyVariables, variableType } from './policy-environment';
import { ValidatingAdmissionPolicyManifest } from './policy-manifest';
import { JSONSchemaProps } from '../schema/json-schema-props';

/** One entry of a policy's `status.typeChecking.expressionWarnings`. */
export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/** Where the type checker finds kinds and their schemas: the cluster's RESTMapper and published OpenAPI. */
export interface KindResolver {
  /** The kinds a resource maps to (empty when the cluster has no such resource). */
  kindsFor(group: string, version: string, resource: string): GroupVersionKind[];
  /** The kind's schema as `/openapi/v3` publishes it, or undefined when not published. */
  schemaFor(gvk: GroupVersionKind): JSONSchemaProps | undefined;
}

/** What `typeCheckPolicy` found. */
export interface PolicyTypeCheck {
  /** Exactly what the status controller writes into `status.typeChecking.expressionWarnings`. */
  readonly warnings: readonly ExpressionWarning[];
  /** The kinds the expressions were checked against (empty: nothing was checked, `typeChecking` is `{}`). */
  readonly kinds: readonly GroupVersionKind[];
  /** The paramKind's schema was found (`params` is typed), or there is no paramKind. */
  readonly paramsResolved: boolean;
}

/** The type check with what checks beyond the server's need. @internal */
export interface PolicyTypeCheckDetails extends PolicyTypeCheck {
  /** The declarations each matched kind's expressions were compiled with (variables typed per kind). */
  readonly perKind: ReadonlyArray<{ readonly gvk: GroupVersionKind; readonly vars: PolicyVariables }>;
  /** Compile results of every checked expression, per kind. */
  readonly compiled: ReadonlyArray<{
    readonly fieldRef: string;
    readonly gvk: GroupVersionKind;
    readonly result: CompiledExpression;
  }>;
}

const MAX_TYPES_TO_CHECK = 10;

/**
 * kube-controller-manager's `validatingadmissionpolicy-status-controller` (`TypeChecker.Check`, 1.32): every
 * `spec.validations[*].expression` and `messageExpression` compiled once per matched kind (at most 10; rules with a
 * wildcard group or version, wildcard and subresource resources, and kinds without a published schema are skipped)
 * with `object`/`oldObject` of the kind's type, `params` of the paramKind's type (undeclared when its schema is not
 * found), `authorizer`, and `variables` typed from the variables compiled the same way. Errors elsewhere
 * (matchConditions, auditAnnotations, variables) are never reported, and the result type is not checked.
 */
export function typeCheckPolicy(
  policy: ValidatingAdmissionPolicyManifest,
  resolver: KindResolver,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): PolicyTypeCheck {
  const { warnings, kinds, paramsResolved } = typeCheckPolicyDetails(policy, resolver, version);
  return { warnings, kinds, paramsResolved };
}

/** `typeCheckPolicy` with the per-kind declarations and compile results. @internal */
export function typeCheckPolicyDetails(
  policy: ValidatingAdmissionPolicyManifest,
  resolver: KindResolver,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): PolicyTypeCheckDetails {
  const spec = policy.spec ?? {};
  // before 1.29 the controller's RESTMapper is not refreshed for it: kinds of custom resources are unknown to it
  const known = (gvk: GroupVersionKind) =>
    since(version, 'policyTypeCheckRefreshesKinds') || builtinSchema(gvk) !== undefined;
  const kinds = typesToCheck(policy, resolver)
    .filter(known)
    .flatMap((gvk) => {
      const schema = resolver.schemaFor(gvk);
      return schema ? [{ gvk, type: namedType(schemaCelType(schema, true), gvk.kind) }] : [];
    });
  const paramGvk = spec.paramKind ? parseGvk(spec.paramKind.apiVersion ?? '', spec.paramKind.kind ?? '') : undefined;
  const paramSchema = paramGvk ? resolver.schemaFor(paramGvk) : undefined;
  const resolvedParams =
    paramSchema && paramGvk ? namedType(schemaCelType(paramSchema, true), paramGvk.kind) : undefined;
  // 1.36 declares params (dyn) for any paramKind; before, only when its schema is found
  const params =
    resolvedParams ?? (spec.paramKind && since(version, 'policyParamsDeclaredUnresolved') ? DYN : undefined);
  // the policy's variables are declared from 1.30 (composition in the type checker)
  const withVariables = since(version, 'policyTypeCheckVariables');

  const warnings: ExpressionWarning[] = [];
  const compiled: Array<PolicyTypeCheckDetails['compiled'][number]> = [];
  const perKind = kinds.map(({ gvk, type }) => {
    const fields: Record<string, CelType> = {};
    for (const v of spec.variables ?? []) {
      if (!withVariables) break;
      const vars: PolicyVariables = {
        object: type,
        params,
        authorizer: true,
        requestResource: false,
        variables: variablesOf(fields),
      };
      const c = compileAdmissionExpression(v.expression ?? '', vars, version);
      fields[v.name] = variableType(c.errorText ? undefined : c.type);
    }
    const vars: PolicyVariables = {
      object: type,
      params,
      authorizer: true,
      requestResource: false,
      variables: withVariables ? variablesOf(fields) : undefined,
    };
    return { gvk, vars };
  });
  const check = (fieldRef: string, expression: string) => {
    const results: string[] = [];
    for (const { gvk, vars } of perKind) {
      const result = compileAdmissionExpression(expression, vars, version);
      compiled.push({ fieldRef, gvk, result });
      if (result.errorText) results.push(`${gvkString(gvk)}: ${result.errorText}\n`);
    }
    if (results.length > 0) warnings.push({ fieldRef, warning: results.join('\n') });
  };
  (spec.validations ?? []).forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v.expression ?? '');
    if (v.messageExpression) check(`spec.validations[${i}].messageExpression`, v.messageExpression);
  });
  return {
    warnings,
    kinds: kinds.map((k) => k.gvk),
    paramsResolved: !spec.paramKind || resolvedParams !== undefined,
    compiled,
    perKind,
  };
}

function variablesOf(fields: Record<string, CelType>): CelType {
  return { kind: 'object', name: 'kubernetes.variables', fields: { ...fields } };
}

function parseGvk(apiVersion: string, kind: string): GroupVersionKind | undefined {
  const parts = apiVersion.split('/');
  if (parts.length > 2 || !kind) return undefined;
  return parts.length === 1 ? { group: '', version: parts[0], kind } : { group: parts[0], version: parts[1], kind };
}

/** `typesToCheck`: the kinds of the policy's resource rules, sorted by group, version and kind, at most 10. */
function typesToCheck(policy: ValidatingAdmissionPolicyManifest, resolver: KindResolver): GroupVersionKind[] {
  const found = new Map<string, GroupVersionKind>();
  const sorted = () =>
    [...found.values()].sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    let count = 0;
    for (const group of [...groups].sort(cmp)) {
      for (const version of [...versions].sort(cmp)) {
        for (const resource of [...resources].sort(cmp)) {
          for (const gvk of resolver.kindsFor(group, version, resource)) {
            found.set(gvkString(gvk), gvk);
            count++;
            if (count === MAX_TYPES_TO_CHECK) return sorted();
          }
        }
      }
    }
  }
  return sorted();
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `DeclType.MaybeAssignTypeName`: the root object is named after its kind and nested objects by their path
 * (`Deployment.spec.template`, list elements `.@idx`, map values `.@elem`), which is how cel-go names them in errors.
 * (The apiserver appends a per-process number to the kind, `Deployment950894724`: compare such text normalised.)
 */
function namedType(t: CelType, name: string): CelType {
  switch (t.kind) {
    case 'object': {
      const objectName = t.name !== 'object' ? t.name : name;
      const fields: Record<string, CelType> = {};
      for (const [f, ft] of Object.entries(t.fields)) fields[f] = namedType(ft, `${objectName}.${f}`);
      return { ...t, name: objectName, fields };
    }
    case 'list':
      return { ...t, elem: namedType(t.elem, `${name}.@idx`) };
    case 'map':
      return { ...t, value: namedType(t.value, `${name}.@elem`) };
    default:
      return t;
  }
}

/** Resolves built-in kinds from the vendored v1.32.13 OpenAPI, and the given CRDs as the apiserver publishes them. */
export function clusterResolver(crds: readonly CrdManifest[] = []): KindResolver {
  return {
    kindsFor(group, version, resource) {
      const crd = crds.find((c) => c.spec?.group === group && c.spec?.names?.plural === resource);
      if (crd) {
        const v = (crd.spec.versions ?? []).find((x) => x.name === version);
        return v && v.served !== false ? [{ group, version, kind: crd.spec.names.kind }] : [];
      }
      const builtin = builtinKindFor(group, version, resource);
      return builtin ? [{ group, version, kind: builtin.kind }] : [];
    },
    schemaFor(gvk) {
      const crd = crds.find((c) => c.spec?.group === gvk.group && c.spec?.names?.kind === gvk.kind);
      if (crd) {
        const v = (crd.spec.versions ?? []).find((x) => x.name === gvk.version);
        const schema = v?.schema?.openAPIV3Schema;
        return v && v.served !== false && schema ? publishedCrdSchema(schema) : undefined;
      }
      return builtinSchema(gvk);
    },
  };
}

/** A CRD version's schema as `/openapi/v3` publishes it: `apiVersion` and `kind` strings and `metadata` the full ObjectMeta. */
function publishedCrdSchema(schema: JSONSchemaProps): JSONSchemaProps {
  const objectMeta = builtinComponent('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') ?? { type: 'object' };
  return {
    ...schema,
    properties: {
      ...schema.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: objectMeta,
    },
  };
}

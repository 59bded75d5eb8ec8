import { compileAdmissionExpression, resultTypeName } from './compile';
import { PolicyVariables, variableType } from './policy-environment';
import {
  MatchConditionSpec,
  MatchResourcesSpec,
  NamedRuleWithOperationsSpec,
  ParamKindSpec,
  ParamRefSpec,
  ValidatingAdmissionPolicyBindingManifest,
  ValidatingAdmissionPolicyManifest,
} from './policy-manifest';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from '../../apimachinery/names';
import { CEL_RESERVED, CelType, DYN } from '../cel/cel-types';

/** The fields every admission policy has, validating or mutating: what both kinds' create checks share. */
interface PolicyHead {
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly failurePolicy?: string;
    readonly paramKind?: ParamKindSpec;
    readonly matchConstraints?: MatchResourcesSpec;
    readonly matchConditions?: readonly MatchConditionSpec[];
  };
}

/**
 * The checks of a policy's name, `failurePolicy`, `paramKind`, `matchConstraints` (with `match`: the mutating policy
 * refuses more operations) and `matchConditions`, in the order the apiserver reports them.
 */
export function policyHeadIssues(
  policy: PolicyHead,
  version: KubernetesVersion,
  match: (m: MatchResourcesSpec, path: string, version: KubernetesVersion) => Issue[],
): Issue[] {
  const issues: Issue[] = [];
  const spec = policy.spec ?? {};
  issues.push(...objectMetaName(policy.metadata?.name));
  const failurePolicy = spec.failurePolicy ?? 'Fail';
  if (!['Fail', 'Ignore'].includes(failurePolicy)) {
    issues.push(notSupported('spec.failurePolicy', failurePolicy, ['Fail', 'Ignore']));
  }
  const hasParams = spec.paramKind !== undefined;
  if (spec.paramKind) issues.push(...paramKind(spec.paramKind, 'spec.paramKind'));
  if (!spec.matchConstraints) {
    issues.push(required('spec.matchConstraints'));
  } else {
    issues.push(...match(spec.matchConstraints, 'spec.matchConstraints', version));
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) {
      issues.push(required('spec.matchConstraints.resourceRules'));
    }
  }
  issues.push(...matchConditions(spec.matchConditions ?? [], hasParams, 'spec.matchConditions', version));
  return issues;
}

/**
 * Compiles a policy's `variables` in order, each seen by the later ones (composition: `variables` exists when the
 * policy has variables), pushing what the apiserver refuses onto `issues`. `environment` gets the `variables` type so
 * far. Returns the type of `variables` once all are compiled, for the expressions that follow them.
 */
export function compileVariables(
  variables: readonly { readonly name?: string; readonly expression?: string }[],
  environment: (variables: CelType | undefined) => PolicyVariables,
  version: KubernetesVersion,
  issues: Issue[],
): () => CelType | undefined {
  const fields: Record<string, CelType> = {};
  const variablesType = (): CelType | undefined =>
    variables.length > 0 ? { kind: 'object', name: 'kubernetes.variables', fields: { ...fields } } : undefined;
  variables.forEach((v, i) => {
    const at = `spec.variables[${i}]`;
    if (!v.name || v.name.trim() === '') {
      issues.push(required(`${at}.name`, 'name is not specified'));
    } else if (!isCelIdentifier(v.name)) {
      issues.push(
        invalid(
          `${at}.name`,
          v.name,
          since(version, 'celIdentifierWording')
            ? 'must be a valid CEL identifier'
            : 'name is not a valid CEL identifier',
        ),
      );
    }
    const name = String(v.name);
    if (!v.expression || v.expression.trim() === '') {
      // not declared at all: an expression that reads it fails to compile too (`undefined field`, measured on 1.32
      // and 1.36 by bench/builtin-differential.ts)
      issues.push(required(`${at}.expression`, 'expression is not specified'));
      return;
    }
    const c = compileAdmissionExpression(v.expression, environment(variablesType()), version);
    if (c.errorText) issues.push(invalid(`${at}.expression`, v.expression, `compilation failed: ${c.errorText}`));
    else if (c.programError) issues.push(programFailed(`${at}.expression`, c.programError));
    fields[name] = variableType(c.errorText ? undefined : c.type);
  });
  return variablesType;
}

/**
 * What kube-apiserver 1.32 refuses when a ValidatingAdmissionPolicy is created (`ValidateValidatingAdmissionPolicy`,
 * after defaulting): every message is the `details.causes[].message` the server answers with, on the same field.
 * Expressions are compiled with `object`, `oldObject` and `params` as dyn, `request` and `namespaceObject` typed,
 * `authorizer` (not in messageExpression), and `variables` when the policy declares variables. The server sets no
 * cost limit at create: cost is not checked here (see `typeCheckPolicy`).
 */
export function validatePolicyManifest(
  policy: ValidatingAdmissionPolicyManifest,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const spec = policy.spec ?? {};
  const issues = policyHeadIssues(policy, version, matchResources);
  const hasParams = spec.paramKind !== undefined;
  const variablesType = compileVariables(
    spec.variables ?? [],
    (variables) => ({
      object: DYN,
      params: hasParams ? DYN : undefined,
      authorizer: true,
      requestResource: true,
      variables,
    }),
    version,
    issues,
  );

  const validations = spec.validations ?? [];
  const audits = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audits.length === 0) {
    issues.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    issues.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return issues;
  }
  validations.forEach((v, i) => {
    const at = `spec.validations[${i}]`;
    if ((v.expression ?? '').trim() === '') {
      issues.push(required(`${at}.expression`, 'expression is not specified'));
    } else {
      issues.push(
        ...expressionIssues(
          `${at}.expression`,
          v.expression,
          {
            object: DYN,
            params: hasParams ? DYN : undefined,
            authorizer: true,
            requestResource: true,
            variables: variablesType(),
          },
          ['bool'],
          version,
        ),
      );
    }
    const msgExpr = v.messageExpression ?? '';
    if (msgExpr.length > 0 && msgExpr.trim() === '') {
      issues.push(invalid(`${at}.messageExpression`, msgExpr, 'must be non-empty if specified'));
    } else if (msgExpr.trim() !== '') {
      issues.push(
        ...expressionIssues(
          `${at}.messageExpression`,
          msgExpr,
          {
            object: DYN,
            params: hasParams ? DYN : undefined,
            authorizer: false,
            requestResource: false,
            variables: variablesType(),
          },
          ['string'],
          version,
        ),
      );
    }
    const message = v.message ?? '';
    if (message.length > 0 && message.trim() === '') {
      issues.push(invalid(`${at}.message`, message, 'message must be non-empty if specified'));
    } else if (/[\n\r]/.test(message.trim())) {
      issues.push(invalid(`${at}.message`, message, 'message must not contain line breaks'));
    }
    if (v.reason !== undefined && !REASONS.includes(v.reason)) {
      issues.push(notSupported(`${at}.reason`, v.reason, REASONS));
    }
  });
  if (audits.length > MAX_AUDIT_ANNOTATIONS) {
    // the value as Go's %#v prints the slice
    // the internal type's Go field names, without json tags
    const shown = since(version, 'fieldValuesAsJson')
      ? JSON.stringify(audits.map((a) => ({ Key: a.key, ValueExpression: a.valueExpression })))
      : `[]admissionregistration.AuditAnnotation{${audits.map((a) => `admissionregistration.AuditAnnotation{Key:${JSON.stringify(a.key)}, ValueExpression:${JSON.stringify(a.valueExpression)}}`).join(', ')}}`;
    issues.push({
      path: 'spec.auditAnnotations',
      message: `Invalid value: ${shown}: must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
    });
  }
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    const at = `spec.auditAnnotations[${i}]`;
    const name = policy.metadata?.name ?? '';
    if (name.length > 0) {
      for (const e of isQualifiedName(`${name}/${a.key}`)) issues.push(invalid(`${at}.key`, `${name}/${a.key}`, e));
    } else {
      issues.push(invalid(`${at}.key`, a.key, 'requires metadata.name be non-empty'));
    }
    const trimmed = (a.valueExpression ?? '').trim();
    if (trimmed === '') {
      issues.push(required(`${at}.valueExpression`, 'valueExpression is not specified'));
    } else if (Buffer.byteLength(trimmed) > MAX_AUDIT_VALUE_EXPRESSION_LENGTH) {
      issues.push(
        required(`${at}.valueExpression`, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length`),
      );
    } else {
      const c = compileAdmissionExpression(
        trimmed,
        {
          object: DYN,
          params: hasParams ? DYN : undefined,
          authorizer: true,
          requestResource: true,
          variables: variablesType(),
        },
        version,
      );
      if (c.errorText) {
        issues.push(invalid(`${at}.valueExpression`, a.valueExpression, `compilation failed: ${c.errorText}`));
      } else if (!['string', 'null'].includes(c.type.kind)) {
        issues.push(
          invalid(
            `${at}.valueExpression`,
            a.valueExpression,
            `must evaluate to one of [string null_type]${butGot(c.type, version)}`,
          ),
        );
      } else if (c.programError) {
        issues.push(programFailed(`${at}.valueExpression`, c.programError));
      }
    }
    if (keys.has(a.key)) issues.push(duplicate(`${at}.key`, a.key));
    keys.add(a.key);
  });
  return issues;
}

/** What kube-apiserver 1.32 refuses when a ValidatingAdmissionPolicyBinding is created. */
export function validateBindingManifest(
  binding: ValidatingAdmissionPolicyBindingManifest,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const issues: Issue[] = [];
  const spec = binding.spec ?? {};
  issues.push(...objectMetaName(binding.metadata?.name));
  if (!spec.policyName) issues.push(required('spec.policyName'));
  else for (const e of isDns1123Subdomain(spec.policyName)) issues.push(invalid('spec.policyName', spec.policyName, e));
  if (spec.paramRef) issues.push(...paramRef(spec.paramRef, 'spec.paramRef', version));
  // 1.28 names the field `matchResouces` and its object selector `labelSelector` (measured)
  if (spec.matchResources) {
    issues.push(
      ...matchResources(
        spec.matchResources,
        since(version, 'policyMatchResourcesPaths') ? 'spec.matchResources' : 'spec.matchResouces',
        version,
      ),
    );
  }
  const actions = spec.validationActions ?? [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) issues.push(notSupported(`spec.validationActions[${i}]`, a, ACTIONS));
    if (seen.has(a)) issues.push(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    issues.push({
      path: 'spec.validationActions',
      message: `Invalid value: ${shownList(actions, version, 'admissionregistration.ValidationAction').shown}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
    });
  }
  if (seen.size === 0) issues.push(required('spec.validationActions', 'at least one validation action is required'));
  return issues;
}

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;

/** @internal shared with the mutating policy's checks */
export function isCelIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);
}

/** @internal shared with the mutating policy's checks */
export function expressionIssues(
  path: string,
  source: string,
  vars: Parameters<typeof compileAdmissionExpression>[1],
  want: readonly string[],
  version: KubernetesVersion,
): Issue[] {
  const c = compileAdmissionExpression(source, vars, version);
  if (c.errorText) return [invalid(path, source, `compilation failed: ${c.errorText}`)];
  if (!want.includes(c.type.kind)) {
    return [invalid(path, source, `must evaluate to ${want[0]}${butGot(c.type, version)}`)];
  }
  if (c.programError) return [programFailed(path, c.programError)];
  return [];
}

/** ` but got int` where the version names the result type (`policyResultTypeNamed`). */
function butGot(t: CelType, version: KubernetesVersion): string {
  return since(version, 'policyResultTypeNamed') ? ` but got ${resultTypeName(t)}` : '';
}

/** A compiled expression whose program cannot be built (a bad literal where literals are not validated at compile). */
/** @internal shared with the mutating policy's checks */
export function programFailed(path: string, error: string): Issue {
  return { path, message: `Internal error: program instantiation failed: ${error}` };
}

/** @internal shared with the mutating policy's checks */
export function matchConditions(
  conditions: readonly { name: string; expression: string }[],
  hasParams: boolean,
  path: string,
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  if (conditions.length > 64) {
    issues.push({ path, message: `Too many: ${conditions.length}: must have at most 64 items` });
  }
  const names = new Set<string>();
  conditions.forEach((m, i) => {
    const at = `${path}[${i}]`;
    const trimmed = (m.expression ?? '').trim();
    if (trimmed === '') {
      issues.push(required(`${at}.expression`));
    }
    // a stateless compiler: no `variables` in match conditions
    else {
      issues.push(
        ...expressionIssues(
          `${at}.expression`,
          trimmed,
          { object: DYN, params: hasParams ? DYN : undefined, authorizer: true, requestResource: true },
          ['bool'],
          version,
        ),
      );
    }
    if (!m.name) issues.push(required(`${at}.name`));
    else for (const e of isQualifiedName(m.name)) issues.push(invalid(`${at}.name`, m.name, e));
    if (m.name) {
      if (names.has(m.name)) issues.push(duplicate(`${at}.name`, m.name));
      names.add(m.name);
    }
  });
  return issues;
}

/** @internal shared with the mutating policy's checks */
export function paramKind(p: ParamKindSpec, path: string): Issue[] {
  const issues: Issue[] = [];
  if (!p.apiVersion) {
    issues.push(required(`${path}.apiVersion`));
  } else {
    const parts = p.apiVersion === '/' ? ['', ''] : p.apiVersion.split('/');
    if (parts.length > 2) {
      issues.push(invalid(`${path}.apiVersion`, p.apiVersion, `unexpected GroupVersion string: ${p.apiVersion}`));
    } else {
      const [group, version] = parts.length === 1 ? ['', parts[0]] : parts;
      if (group) {
        const errs = isDns1123Subdomain(group);
        if (errs.length > 0) issues.push(invalid(`${path}.apiVersion`, group, errs.join(',')));
      }
      if (!version) {
        issues.push(invalid(`${path}.apiVersion`, p.apiVersion, 'version must be specified'));
      } else {
        const errs = isDns1035Label(version);
        if (errs.length > 0) issues.push(invalid(`${path}.apiVersion`, version, errs.join(',')));
      }
    }
  }
  if (!p.kind) {
    issues.push(required(`${path}.kind`));
  } else {
    const errs = isDns1035Label(p.kind.toLowerCase());
    if (errs.length > 0) {
      issues.push(
        invalid(`${path}.kind`, p.kind, `may have mixed case, but should otherwise match: ${errs.join(',')}`),
      );
    }
  }
  return issues;
}

/** @internal shared with the mutating policy's checks */
export function paramRef(p: ParamRefSpec, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (p.name) {
    for (const e of pathSegmentName(p.name)) issues.push(invalid(`${path}.name`, p.name, e));
    if (p.selector) {
      issues.push({ path: `${path}.name`, message: 'Forbidden: name and selector are mutually exclusive' });
    }
  }
  if (p.selector) {
    issues.push(...labelSelectorIssues(p.selector, `${path}.selector`, version));
    if (p.name) {
      issues.push({ path: `${path}.selector`, message: 'Forbidden: name and selector are mutually exclusive' });
    }
  }
  if (!p.name && !p.selector) issues.push(required(path, 'one of name or selector must be specified'));
  if (!p.parameterNotFoundAction) {
    issues.push(required(`${path}.parameterNotFoundAction`));
  } else if (!['Deny', 'Allow'].includes(p.parameterNotFoundAction)) {
    issues.push(notSupported(`${path}.parameterNotFoundAction`, p.parameterNotFoundAction, ['Deny', 'Allow']));
  }
  return issues;
}

/** @internal shared with the mutating policy's checks */
export function matchResources(m: MatchResourcesSpec, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const policy = m.matchPolicy ?? 'Equivalent';
  if (!['Equivalent', 'Exact'].includes(policy)) {
    issues.push(notSupported(`${path}.matchPolicy`, policy, ['Equivalent', 'Exact']));
  }
  issues.push(...labelSelectorIssues(m.namespaceSelector ?? {}, `${path}.namespaceSelector`, version));
  issues.push(
    ...labelSelectorIssues(
      m.objectSelector ?? {},
      `${path}.${since(version, 'policyMatchResourcesPaths') ? 'objectSelector' : 'labelSelector'}`,
      version,
    ),
  );
  (m.resourceRules ?? []).forEach((r, i) => issues.push(...namedRule(r, `${path}.resourceRules[${i}]`, version)));
  (m.excludeResourceRules ?? []).forEach((r, i) =>
    issues.push(...namedRule(r, `${path}.excludeResourceRules[${i}]`, version)),
  );
  return issues;
}

/**
 * `validateNamedRuleWithOperations`: a policy's resource rule, or with no `resourceNames` a webhook's rule
 * (`validateRuleWithOperations`, shared with the webhook configurations' checks in builtin-validation/admission-webhooks).
 *
 * @internal
 */
export function namedRule(r: NamedRuleWithOperationsSpec, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  (r.resourceNames ?? []).forEach((n, i) => {
    for (const e of pathSegmentName(n)) issues.push(invalid(`${path}.resourceNames[${i}]`, n, e));
    if (names.has(n)) issues.push(duplicate(`${path}.resourceNames[${i}]`, n));
    names.add(n);
  });
  const operations = r.operations ?? [];
  if (operations.length === 0) issues.push(required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*')) {
    issues.push(
      invalid(
        `${path}.operations`,
        shownList(operations, version, 'admissionregistration.OperationType'),
        "if '*' is present, must not specify other operations",
      ),
    );
  }
  operations.forEach((o, i) => {
    if (!OPERATIONS.includes(o)) issues.push(notSupported(`${path}.operations[${i}]`, o, OPERATIONS));
  });
  issues.push(...rule(r, path, version));
  return issues;
}

/** `validateRule` (allowSubResource, no wildcards mixed with names). */
function rule(r: NamedRuleWithOperationsSpec, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const groups = r.apiGroups ?? [];
  if (groups.length === 0) issues.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) {
    issues.push(
      invalid(`${path}.apiGroups`, shownList(groups, version), "if '*' is present, must not specify other API groups"),
    );
  }
  const versions = r.apiVersions ?? [];
  if (versions.length === 0) issues.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    issues.push(
      invalid(
        `${path}.apiVersions`,
        shownList(versions, version),
        "if '*' is present, must not specify other API versions",
      ),
    );
  }
  versions.forEach((v, i) => {
    if (v === '') issues.push(required(`${path}.apiVersions[${i}]`));
  });
  issues.push(...resourcesRule(r.resources ?? [], `${path}.resources`, version));
  if (r.scope !== undefined && !['*', 'Cluster', 'Namespaced'].includes(r.scope)) {
    issues.push(notSupported(`${path}.scope`, r.scope, ['*', 'Cluster', 'Namespaced']));
  }
  return issues;
}

/**
 * `validateResources` (subresources allowed): `x/*` and `*\/x` exclude the resources they cover that come after them,
 * `*\/*` stands alone, and `*` excludes resources without a subresource. Upstream tracks the last of those only: the
 * flag is overwritten by each resource without a slash (measured: `['deployments', '*']` is accepted, `['*',
 * 'deployments']` refused, on 1.28, 1.32 and 1.36).
 */
function resourcesRule(resources: readonly string[], path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (resources.length === 0) issues.push(required(path));
  const wildcardSubresourcesOf = new Set<string>();
  const wildcardResourcesOf = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let resourceWithoutSubresource = false;
  resources.forEach((res, i) => {
    if (res === '') {
      issues.push(required(`${path}[${i}]`));
      return;
    }
    if (res === '*/*') doubleWildcard = true;
    if (res === '*') singleWildcard = true;
    const slash = res.indexOf('/');
    if (slash < 0) {
      resourceWithoutSubresource = res !== '*';
      return;
    }
    const [resource, sub] = [res.slice(0, slash), res.slice(slash + 1)];
    if (wildcardSubresourcesOf.has(resource)) {
      issues.push(invalid(`${path}[${i}]`, res, `if '${resource}/*' is present, must not specify ${res}`));
    }
    if (wildcardResourcesOf.has(sub)) {
      issues.push(invalid(`${path}[${i}]`, res, `if '*/${sub}' is present, must not specify ${res}`));
    }
    if (sub === '*') wildcardSubresourcesOf.add(resource);
    if (resource === '*') wildcardResourcesOf.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    issues.push(invalid(path, shownList(resources, version), "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && resourceWithoutSubresource) {
    issues.push(
      invalid(
        path,
        shownList(resources, version),
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return issues;
}

/** @internal shared with the mutating policy's checks */
export function objectMetaName(name: string | undefined): Issue[] {
  if (!name) return [required('metadata.name', 'name or generateName is required')];
  return isDns1123Subdomain(name).map((e) => invalid('metadata.name', name, e));
}

/** `path.ValidatePathSegmentName`. */
function pathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const bad = ['/', '%'].filter((c) => name.includes(c));
  return bad.map((c) => `may not contain '${c}'`);
}

export const required = (path: string, detail?: string): Issue => ({
  path,
  message: detail ? `Required value: ${detail}` : 'Required value',
});
export const invalid = (path: string, value: unknown, detail: string): Issue => ({
  path,
  message: `Invalid value: ${goValue(value)}: ${detail}`,
  value: typeof value === 'object' && value !== null && 'shown' in value ? (value as ShownValue).value : value,
});
export const duplicate = (path: string, value: string): Issue => ({
  path,
  message: `Duplicate value: ${goValue(value)}`,
});
export const notSupported = (path: string, value: string, supported: readonly string[]): Issue => ({
  path,
  message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  value,
});

/** A list as a field error prints it: JSON from 1.34 (`fieldValuesAsJson`), Go's `%#v` before (`[]string{"a", "b"}`). */
function shownList(v: readonly unknown[], version: KubernetesVersion, type = 'string'): ShownValue {
  return { shown: since(version, 'fieldValuesAsJson') ? JSON.stringify(v) : goSlice(v, type), value: v };
}

/** A value already rendered for a field error. */
interface ShownValue {
  readonly shown: string;
  readonly value: unknown;
}

function goValue(v: unknown): string {
  if (typeof v === 'object' && v !== null && 'shown' in v) return (v as ShownValue).shown;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return goSlice(v);
  return String(v);
}

/** Go's `%#v`-free rendering of a string slice in field errors: `[]string{"a", "b"}`. */
function goSlice(v: readonly unknown[], type = 'string'): string {
  return `[]${type}{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
}

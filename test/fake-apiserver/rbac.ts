/**
 * Optional authentication + RBAC authorization (like kube-apiserver with --authorization-mode=RBAC): bearer
 * tokens from the TokenRequest API identify ServiceAccounts, whose Role/ClusterRole bindings are evaluated for
 * every request. Off by default (everyone is admin), so least-privilege RBAC can be tested on purpose.
 */
import { ResourceInfo } from './resources';
import { ApiError } from './status';
import { Store } from './store';

export interface UserInfo {
  readonly name: string;
  readonly groups: string[];
  /** system:masters: bypasses authorization */
  readonly admin?: boolean;
}

export interface RequestAttributes {
  readonly verb: string;
  /** API group ('' for core) */
  readonly group: string;
  /** plural resource name */
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

export function attributesOf(verb: string, res: ResourceInfo, subresource?: string, namespace?: string, name?: string): RequestAttributes {
  return { verb, group: res.group, resource: res.plural, subresource, namespace: res.namespaced ? namespace : undefined, name };
}

export const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'], admin: true };
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { name: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}

function subjectMatches(subject: any, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject?.kind) {
    case 'ServiceAccount':
      return user.name === `system:serviceaccount:${subject.namespace ?? bindingNamespace}:${subject.name}`;
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    default:
      return false;
  }
}

function ruleAllows(rule: any, a: RequestAttributes): boolean {
  const verbs: string[] = rule.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(a.verb)) return false;
  const groups: string[] = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(a.group)) return false;
  const resources: string[] = rule.resources ?? [];
  const wanted = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resourceOk = resources.some((r) => r === '*' || r === wanted || (a.subresource !== undefined && r === `*/${a.subresource}`));
  if (!resourceOk) return false;
  const names: string[] = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== undefined && names.includes(a.name));
}

/** RBAC: does any (Cluster)RoleBinding grant the request? */
export function rbacAllows(store: Store, user: UserInfo, a: RequestAttributes): boolean {
  return rbacDecision(store, user, a).allowed;
}

/** The decision with the authorizer's reason (as SubjectAccessReview reports it). */
export function rbacDecision(store: Store, user: UserInfo, a: RequestAttributes): { allowed: boolean; reason?: string } {
  if (user.admin || user.groups.includes('system:masters')) return { allowed: true };
  // bootstrap ClusterRole system:basic-user, bound to system:authenticated
  if (user.groups.includes('system:authenticated') && a.verb === 'create' && !a.subresource
    && ((a.group === 'authorization.k8s.io' && (a.resource === 'selfsubjectaccessreviews' || a.resource === 'selfsubjectrulesreviews'))
      || (a.group === 'authentication.k8s.io' && a.resource === 'selfsubjectreviews'))) {
    return { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"' };
  }
  const roleRules = (roleRef: any, bindingNamespace: string | undefined): any[] => {
    if (roleRef?.kind === 'ClusterRole') return store.get('rbac.authorization.k8s.io/clusterroles', roleRef.name)?.rules ?? [];
    if (roleRef?.kind === 'Role' && bindingNamespace) return store.get('rbac.authorization.k8s.io/roles', `${bindingNamespace}/${roleRef.name}`)?.rules ?? [];
    return [];
  };
  const bindings = [
    ...store.list('rbac.authorization.k8s.io/clusterrolebindings').map((e) => ({ b: e.object, ns: undefined as string | undefined })),
    ...(a.namespace ? store.list('rbac.authorization.k8s.io/rolebindings', a.namespace).map((e) => ({ b: e.object, ns: a.namespace })) : []),
  ];
  for (const { b, ns } of bindings) {
    const subject = (b.subjects ?? []).find((s: any) => subjectMatches(s, user, ns));
    if (!subject) continue;
    if (roleRules(b.roleRef, ns).some((rule) => ruleAllows(rule, a))) {
      const bindingName = ns ? `${b.metadata.name}/${ns}` : b.metadata.name;
      const subjectName = subject.kind === 'ServiceAccount' ? `${subject.name}/${subject.namespace ?? ns}` : subject.name;
      return { allowed: true, reason: `RBAC: allowed by ${ns ? 'RoleBinding' : 'ClusterRoleBinding'} "${bindingName}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${subject.kind} "${subjectName}"` };
    }
  }
  return { allowed: false };
}

/** Identity for an impersonated user name (ServiceAccount names get their groups, like the apiserver). */
export function impersonatedUser(name: string, groups: string[]): UserInfo {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  const base = m ? serviceAccountUser(m[1], m[2]).groups : ['system:authenticated'];
  return { name, groups: [...new Set([...groups, ...base])] };
}

/** 403 Forbidden worded like the RBAC authorizer's denial. */
export function forbiddenFor(user: UserInfo, a: RequestAttributes): ApiError {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const target = a.name ? `${qualified} "${a.name}"` : qualified;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const details: Record<string, string> = {};
  if (a.name) details.name = a.name;
  if (a.group) details.group = a.group;
  details.kind = a.resource;
  return new ApiError(403, 'Forbidden', `${target} is forbidden: User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`, details);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

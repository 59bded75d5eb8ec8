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
  readonly res: ResourceInfo;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
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
  if (!groups.includes('*') && !groups.includes(a.res.group)) return false;
  const resources: string[] = rule.resources ?? [];
  const wanted = a.subresource ? `${a.res.plural}/${a.subresource}` : a.res.plural;
  const resourceOk = resources.some((r) => r === '*' || r === wanted || (a.subresource !== undefined && r === `*/${a.subresource}`));
  if (!resourceOk) return false;
  const names: string[] = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== undefined && names.includes(a.name));
}

/** RBAC: does any (Cluster)RoleBinding grant the request? */
export function rbacAllows(store: Store, user: UserInfo, a: RequestAttributes): boolean {
  if (user.admin) return true;
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
    if (!(b.subjects ?? []).some((s: any) => subjectMatches(s, user, ns))) continue;
    if (roleRules(b.roleRef, ns).some((rule) => ruleAllows(rule, a))) return true;
  }
  return false;
}

/** 403 Forbidden worded like the RBAC authorizer's denial. */
export function forbiddenFor(user: UserInfo, a: RequestAttributes): ApiError {
  const resource = a.subresource ? `${a.res.plural}/${a.subresource}` : a.res.plural;
  const qualified = a.res.group ? `${a.res.plural}.${a.res.group}` : a.res.plural;
  const target = a.name ? `${qualified} "${a.name}"` : qualified;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const details: Record<string, string> = {};
  if (a.name) details.name = a.name;
  if (a.res.group) details.group = a.res.group;
  details.kind = a.res.plural;
  return new ApiError(403, 'Forbidden', `${target} is forbidden: User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.res.group}" ${scope}`, details);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

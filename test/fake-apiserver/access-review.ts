/** authorization.k8s.io/v1 SelfSubjectAccessReview and SubjectAccessReview (what `kubectl auth can-i` asks), answered by RBAC. */
import { ADMIN, UserInfo, impersonatedUser, rbacDecision } from './rbac';
import { ResourceInfo, apiVersionOf } from './resources';
import { badRequest } from './status';
import { Store } from './store';

export function accessReview(store: Store, r: ResourceInfo, body: any, requester: UserInfo): any {
  const spec = body?.spec ?? {};
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if (!ra && !nra) throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  let subject: UserInfo = requester;
  if (r.kind === 'SubjectAccessReview') {
    if (!spec.user && !(spec.groups ?? []).length) throw badRequest('at least one of user or group must be specified');
    subject = impersonatedUser(spec.user ?? '', spec.groups ?? []);
  }
  let status: { allowed: boolean; reason?: string };
  if (ra) {
    status = rbacDecision(store, subject, {
      verb: ra.verb ?? '', group: ra.group ?? '', resource: ra.resource ?? '', subresource: ra.subresource || undefined,
      namespace: ra.namespace || undefined, name: ra.name || undefined,
    });
  } else {
    // discovery, health and version are open to authenticated users (system:discovery, system:public-info-viewer)
    status = subject === ADMIN || subject.groups.includes('system:authenticated') ? { allowed: true } : { allowed: false };
  }
  return { kind: r.kind, apiVersion: apiVersionOf(r), metadata: { creationTimestamp: null }, spec, status };
}

import { Issue } from '../apimachinery/issue';
import { ACCEPTED_RISKS_ANNOTATION, RbacRisk } from '../operator/rbac-risk';

const ESCALATION_VERBS = ['escalate', 'bind', 'impersonate'];

interface Manifest {
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly annotations?: Record<string, string>;
  };
  readonly rules?: readonly PolicyRuleManifest[];
}

interface PolicyRuleManifest {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** `Kind namespace/name`, how every policy issue names its object. @internal */
export function manifestRef(m: { kind?: string; metadata?: { name?: string; namespace?: string } }): string {
  const ns = m.metadata?.namespace ? `${m.metadata.namespace}/` : '';
  return `${m.kind ?? '?'} ${ns}${m.metadata?.name ?? '?'}`;
}

/** The kinds {@link lintRbac} looks at. @internal */
export function isRbacRoleKind(kind: string | undefined): boolean {
  return kind === 'Role' || kind === 'ClusterRole';
}

/**
 * `bind` on named roles only (`contract.binds`): the controller may refer to exactly these roles in the bindings it
 * writes, which is what the apiserver's escalation check asks of it, and nothing broader. Not a risk to accept.
 */
function bindsNamedRolesOnly(r: PolicyRuleManifest): boolean {
  return (
    (r.verbs ?? []).every((v) => v === 'bind') &&
    (r.resourceNames ?? []).length > 0 &&
    !(r.resourceNames ?? []).includes('*') &&
    (r.apiGroups ?? []).length > 0 &&
    (r.apiGroups ?? []).every((g) => g === 'rbac.authorization.k8s.io') &&
    (r.resources ?? []).length > 0 &&
    (r.resources ?? []).every((x) => x === 'roles' || x === 'clusterroles')
  );
}

/**
 * RBAC lint over manifests: wildcards, escalate/bind/impersonate and list/watch on Secrets are
 * errors, unless accepted through `ACCEPTED_RISKS_ANNOTATION`: an accepted risk is silent, an acceptance that no rule
 * of the role needs any more is a warning (stale). `bind` on roles by name (`contract.binds`) is no risk. A resource
 * granted by two rules of one role is a warning. Objects other than Role/ClusterRole are ignored.
 */
export function lintRbac(manifests: readonly unknown[]): Issue[] {
  const issues: Issue[] = [];
  for (const raw of manifests) {
    const m = raw as Manifest;
    if (!isRbacRoleKind(m?.kind)) continue;
    const accepted = acceptedRisks(m);
    const needed = new Set<string>();
    const where = manifestRef(m);
    const seen = new Map<string, number>();
    (m.rules ?? []).forEach((r, i) => {
      const at = `${where}: rules[${i}]`;
      const flag = (risk: RbacRisk, field: string, message: string, value: unknown) => {
        needed.add(risk);
        if (accepted.has(risk)) return;
        issues.push({
          path: `${at}.${field}`,
          message: `${message}; accept it explicitly as risk '${risk}' if intended`,
          value,
          severity: 'error',
        });
      };
      for (const field of ['apiGroups', 'resources', 'verbs', 'nonResourceURLs'] as const) {
        if ((r[field] ?? []).includes('*')) {
          flag(RbacRisk.WILDCARD, field, 'wildcard grants every current and future value', r[field]);
        }
      }
      const escalating = (r.verbs ?? []).filter((v) => ESCALATION_VERBS.includes(v));
      if (escalating.length > 0 && !bindsNamedRolesOnly(r)) {
        flag(
          RbacRisk.PRIVILEGE_ESCALATION,
          'verbs',
          `${escalating.join(', ')} bypass RBAC privilege-escalation checks`,
          r.verbs,
        );
      }
      const onCoreGroup = (r.apiGroups ?? []).some((g) => g === '' || g === '*');
      const onSecrets = (r.resources ?? []).some((x) => x === 'secrets' || x === '*');
      const reading = (r.verbs ?? []).some((v) => v === 'list' || v === 'watch' || v === '*');
      if (onCoreGroup && onSecrets && reading) {
        flag(RbacRisk.SECRETS_READ, 'verbs', "list/watch on secrets reveals every secret's contents", r.verbs);
      }
      for (const group of r.apiGroups ?? []) {
        for (const resource of r.resources ?? []) {
          for (const name of r.resourceNames?.length ? r.resourceNames : ['']) {
            const key = JSON.stringify([group, resource, name]);
            const earlier = seen.get(key);
            if (earlier !== undefined && earlier !== i) {
              issues.push({
                path: `${at}.resources`,
                message: `duplicate rule: ${group || 'core'}/${resource}${name ? `/${name}` : ''} is also granted by rules[${earlier}]; merge them`,
                value: resource,
                severity: 'warning',
              });
            } else {
              seen.set(key, i);
            }
          }
        }
      }
    });
    for (const risk of [...accepted].filter((a) => !needed.has(a)).sort()) {
      issues.push({
        path: `${where}: metadata.annotations.${ACCEPTED_RISKS_ANNOTATION}`,
        message: `accepted risk '${risk}' matches no rule of this role (stale? remove it from acceptRisks)`,
        value: risk,
        severity: 'warning',
      });
    }
  }
  return issues;
}

function acceptedRisks(m: Manifest): Set<string> {
  const raw = m.metadata?.annotations?.[ACCEPTED_RISKS_ANNOTATION] ?? '';
  return new Set(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

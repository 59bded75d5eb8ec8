/** RBAC grants that are dangerous enough to fail synth unless the user accepted them by name. */
export enum RbacRisk {
  /** `*` in apiGroups, resources or verbs: grants every current and future type or verb. */
  WILDCARD = 'wildcard',
  /** `escalate`, `bind` or `impersonate`: bypass RBAC's privilege-escalation checks. */
  PRIVILEGE_ESCALATION = 'privilege-escalation',
  /** `list` or `watch` on Secrets: returns their contents, not just names. */
  SECRETS_READ = 'secrets-read',
}

/**
 * Annotation on a Role or ClusterRole naming the risks its author accepted (comma-separated
 * `RbacRisk` values); those findings become warnings instead of errors.
 *
 * @internal
 */
export const ACCEPTED_RISKS_ANNOTATION = 'rbac.cdk8s-operator.io/accepted-risks';

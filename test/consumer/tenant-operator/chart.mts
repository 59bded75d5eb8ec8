import { Chart } from 'cdk8s';
import { conditionsSchema, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, ResourceScope, Schema, ValidatingAdmissionPolicy } from 'cdk8s-operator';
import { TENANT_CONTRACT } from './contract';

/**
 * dist/ of the Tenant operator: a cluster-scoped CRD, the operator with RBAC derived from its contract, and a policy
 * reserving each tenant's namespace prefix (`<tenant>-`) to the operator.
 */
export function synthTenantChart(outdir: string): void {
  const app = new OperatorApp({ outdir, layout: OutputLayout.APPLY_ORDER, kubernetesVersions: { min: '1.28' } });
  const chart = new Chart(app, 'tenants');
  const crd = new CustomResourceDefinition(chart, 'Tenant', {
    group: 'tenancy.example.com', kind: 'Tenant', scope: ResourceScope.CLUSTER,
    versions: [{
      name: 'v1',
      spec: Schema.object({
        description: 'A team\'s slice of the cluster.',
        properties: {
          owners: Schema.array(Schema.string({ description: 'A user name.', maxLength: 253 }), { description: 'Users given admin in the namespace.', minItems: 1, maxItems: 20 }),
          pods: Schema.integer({ description: 'Most pods in the namespace.', minimum: 1, maximum: 1000, default: 10 }),
        },
        required: ['owners'],
      }),
      status: Schema.object({
        description: 'Observed state.',
        properties: {
          phase: Schema.string({ description: 'Ready or Terminating.', maxLength: 32 }),
          message: Schema.string({ description: 'Why.', maxLength: 256 }),
          conditions: conditionsSchema({ description: 'Ready, False with the reason of the last failed reconcile.' }),
        },
      }),
      // the namespace is tenant-<name>: a whole-object rule keeps it a valid namespace name
      validations: [{ rule: "size(self.metadata.name) <= 56 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", message: 'a tenant name must be a DNS label of at most 56 characters' }],
    }],
  });
  const operator = new Operator(chart, 'tenant-operator', { crds: [crd], image: 'ghcr.io/acme/tenant-operator:0.1.0', contract: TENANT_CONTRACT });
  // every Tenant is a parameter: a namespace named <tenant>-… is created by the operator's ServiceAccount or not at all
  const operatorUser = `system:serviceaccount:${operator.namespace}:${operator.rbac.serviceAccount.name}`;
  new ValidatingAdmissionPolicy(chart, 'TenantPrefixes', {
    name: 'tenant-namespace-prefixes',
    paramKind: crd,
    // admissionregistration.k8s.io/v1 is served from 1.30: below, dist/APPLY.md leaves the policy out
    onUnservedVersions: 'skip',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }] },
    validations: [{
      expression: `request.userInfo.username == '${operatorUser}' || !object.metadata.name.startsWith(params.metadata.name + '-')`,
      messageExpression: "'namespace ' + object.metadata.name + ' has the prefix of tenant ' + params.metadata.name + ': only the tenant operator creates it'",
      reason: 'Forbidden',
    }],
  }).bind('Binding', { paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } });
  app.synth();
}

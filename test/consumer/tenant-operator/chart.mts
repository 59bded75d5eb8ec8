import { Chart } from 'cdk8s';
import { CustomResourceDefinition, Operator, OperatorApp, OutputLayout, ResourceScope, Schema } from 'cdk8s-operator';
import { TENANT_CONTRACT } from './contract';

/** dist/ of the Tenant operator: a cluster-scoped CRD, the operator with RBAC derived from its contract. */
export function synthTenantChart(outdir: string): void {
  const app = new OperatorApp({ outdir, layout: OutputLayout.APPLY_ORDER, kubernetesVersions: { min: '1.30' } });
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
      status: Schema.object({ description: 'Observed state.', properties: { phase: Schema.string({ description: 'Ready or Terminating.', maxLength: 32 }), message: Schema.string({ description: 'Why.', maxLength: 256 }) } }),
      // the namespace is tenant-<name>: a whole-object rule keeps it a valid namespace name
      validations: [{ rule: "size(self.metadata.name) <= 56 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", message: 'a tenant name must be a DNS label of at most 56 characters' }],
    }],
  });
  new Operator(chart, 'tenant-operator', { crds: [crd], image: 'ghcr.io/acme/tenant-operator:0.1.0', contract: TENANT_CONTRACT });
  app.synth();
}

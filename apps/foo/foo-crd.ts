import { Construct } from 'constructs';
import { CustomResourceDefinition, Schema } from '../../lib';

/**
 * kubernetes/sample-controller's Foo CRD, field for field (`samplecontroller.k8s.io/v1alpha1`, status
 * subresource), with descriptions added so `kubectl explain foo.spec` reads well.
 */
export function fooCrd(scope: Construct, id = 'FooDefinition'): CustomResourceDefinition {
  return new CustomResourceDefinition(scope, id, {
    group: 'samplecontroller.k8s.io',
    kind: 'Foo',
    description:
      "Foo is the sample-controller's example resource: the controller runs a Deployment for each Foo and reports its available replicas.",
    annotations: {
      // *.k8s.io groups need this annotation; upstream carries the same text.
      'api-approved.kubernetes.io':
        "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups",
    },
    versions: [
      {
        name: 'v1alpha1',
        spec: Schema.object({
          description: 'Desired state: a Deployment of nginx with this name and replica count.',
          properties: {
            deploymentName: Schema.string({ description: 'Name of the Deployment the controller creates and owns.' }),
            replicas: Schema.integer({ description: 'Replicas of the Deployment.', minimum: 1, maximum: 10 }),
          },
        }),
        status: Schema.object({
          description: 'Observed state, copied from the Deployment.',
          properties: {
            availableReplicas: Schema.integer({ description: "The Deployment's status.availableReplicas." }),
          },
        }),
        subresources: { status: true },
      },
    ],
  });
}

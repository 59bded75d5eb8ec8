/**
 * The sample-controller API: `Foo` in `samplecontroller.k8s.io/v1alpha1` (plural `foos`, status
 * subresource), exactly as kubernetes/sample-controller's CRD, and the Deployment it owns.
 */
import type { FooSpec, FooStatus } from '../../imports/samplecontroller.k8s.io';
import { KubeObject, resourceRef } from '../../runtime';

// spec and status come from the CRD itself (generated into imports/ by `npx projen import`).
export type { FooSpec, FooStatus };

/** A Foo object. */
export interface Foo extends KubeObject {
  spec?: FooSpec;
  status?: FooStatus;
}

// The owned apps/v1 Deployment with its Kubernetes API type (the runtime's typed reference): the desired
// Deployment is type-checked field by field. `status.observedGeneration` absent = not reported on yet.
export type { Deployment } from '../../runtime';
export { DEPLOYMENT } from '../../runtime';

/** The Foo kind. */
export const FOO = resourceRef<Foo>({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' });

/**
 * The sample-controller API: `Foo` in `samplecontroller.k8s.io/v1alpha1` (plural `foos`, status
 * subresource), exactly as kubernetes/sample-controller's CRD.
 */
import type { FooSpec, FooStatus } from '../../imports/samplecontroller.k8s.io';
import type { KubeObject, ResourceRef } from '../../runtime';

/** The Foo kind. */
export const FOO: ResourceRef = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
/** The owned Deployment kind. */
export const DEPLOYMENT: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };

// spec and status come from the CRD itself (generated into imports/ by `npx projen import`).
export type { FooSpec, FooStatus };

/** A Foo object. */
export interface Foo extends KubeObject {
  spec?: FooSpec;
  status?: FooStatus;
}

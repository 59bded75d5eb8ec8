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

/** The part of an apps/v1 Deployment the controller reads. */
export interface Deployment extends KubeObject {
  /** Set by the Deployment's controller; `observedGeneration` absent = not reported on yet. */
  status?: { readonly observedGeneration?: number; readonly availableReplicas?: number };
}

/** The Foo kind. */
export const FOO = resourceRef<Foo>({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' });
/** The owned Deployment kind. */
export const DEPLOYMENT = resourceRef<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' });

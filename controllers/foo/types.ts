/**
 * The sample-controller API: `Foo` in `samplecontroller.k8s.io/v1alpha1` (plural `foos`, status
 * subresource), exactly as kubernetes/sample-controller's CRD.
 */
import type { KubeObject, ResourceRef } from '../../runtime';

/** The Foo kind. */
export const FOO: ResourceRef = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
/** The owned Deployment kind. */
export const DEPLOYMENT: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };

/** `FooSpec`. */
export interface FooSpec {
  /** Name of the Deployment the Foo owns. */
  deploymentName?: string;
  /** Replicas of that Deployment (1–10 by the CRD schema). */
  replicas?: number;
}

/** `FooStatus`. */
export interface FooStatus {
  /** Copied from the Deployment's `status.availableReplicas`. */
  availableReplicas?: number;
}

/** A Foo object. */
export interface Foo extends KubeObject {
  spec?: FooSpec;
  status?: FooStatus;
}

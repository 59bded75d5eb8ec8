/**
 * The wire format of apiextensions.k8s.io/v1 `ConversionReview` (CRD conversion webhooks) and the
 * handler type the webhook server registers at {@link CONVERSION_PATH}.
 *
 * The server only frames the exchange: it decodes the review, calls the one registered
 * {@link ConversionHandler} with the request, checks the response names the request's `uid` (set
 * when missing), and reports a thrown error as `result.status: Failure` with the error's message
 * (the apiserver then fails the read or write that needed the conversion). What converts which
 * version into which is the handler's (issue #21's hub-and-spoke conversion builds on this).
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response
 */
import type { KubeStatus } from '../errors';
import type { KubeObject } from '../resource';

/** `apiextensions.k8s.io/v1`: the ConversionReview version the server speaks (CRDs' `conversionReviewVersions: ['v1']`). */
export const CONVERSION_REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';

/** The path conversion is served on (controller-runtime's too): a CRD's `spec.conversion.webhook.clientConfig.service.path`. */
export const CONVERSION_PATH = '/convert';

/** `ConversionRequest`: convert every object to `desiredAPIVersion`. */
export interface ConversionRequest {
  readonly uid: string;
  /** e.g. `database.example.com/v2`. */
  readonly desiredAPIVersion: string;
  readonly objects: readonly KubeObject[];
}

/** `ConversionResponse`: the converted objects in request order, and `result.status` Success or Failure. */
export interface ConversionResponse {
  /** @default - the request's uid */
  readonly uid?: string;
  readonly convertedObjects: readonly KubeObject[];
  /** @default { status: 'Success' } */
  readonly result?: Partial<KubeStatus>;
}

/** The envelope, in both directions. */
export interface ConversionReview {
  readonly apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  readonly kind: 'ConversionReview';
  readonly request?: ConversionRequest;
  readonly response?: ConversionResponse;
}

/** Converts a request's objects (throw to fail the conversion, with the error's message). */
export type ConversionHandler = (request: ConversionRequest) => ConversionResponse | Promise<ConversionResponse>;

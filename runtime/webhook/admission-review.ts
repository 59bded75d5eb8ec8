/**
 * The wire format of admission.k8s.io/v1 `AdmissionReview`: what the apiserver POSTs to a validating
 * or mutating webhook and what it expects back. Typed by the object kind a handler is written for.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request
 */
import type { KubeStatus } from '../errors';
import type { KubeObject } from '../resource';

/** `admission.k8s.io/v1` — the only version the webhook server accepts (v1beta1 was removed in Kubernetes 1.22). */
export const ADMISSION_REVIEW_API_VERSION = 'admission.k8s.io/v1';

/** Operations a webhook can be called for. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** `authenticationv1.UserInfo` of the requester. */
export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** `admissionv1.AdmissionRequest`, with `object`/`oldObject` typed as `T`. */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  /** Identifies this call; echoed in the response. */
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  /** What the object was sent as, when a matchPolicy Equivalent rule converted it. */
  readonly requestKind?: { readonly group: string; readonly version: string; readonly kind: string };
  readonly requestResource?: { readonly group: string; readonly version: string; readonly resource: string };
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  /** The object being admitted (absent on DELETE). */
  readonly object?: T;
  /** The existing object (UPDATE, DELETE). */
  readonly oldObject?: T;
  /**
   * True when the request will not be persisted (`kubectl --dry-run=server`). Webhooks are declared
   * `sideEffects: None`, so a handler must not write anything, dry run or not; it may use this to skip
   * expensive checks that only matter for a persisted object.
   */
  readonly dryRun?: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions of the request. */
  readonly options?: KubeObject;
}

/** `admissionv1.AdmissionResponse`. */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  /** Why it was denied: the apiserver shows `status.message` to the user. */
  readonly status?: Partial<KubeStatus>;
  /** base64 of a JSON patch (RFC 6902), with `patchType: 'JSONPatch'`. */
  readonly patch?: string;
  readonly patchType?: 'JSONPatch';
  readonly auditAnnotations?: Readonly<Record<string, string>>;
  /** Shown to the client (kubectl prints them as `Warning: ...`); at most 120 characters each is advisable. */
  readonly warnings?: readonly string[];
}

/** The `AdmissionReview` envelope, in both directions. */
export interface AdmissionReview<T extends KubeObject = KubeObject> {
  readonly apiVersion: typeof ADMISSION_REVIEW_API_VERSION;
  readonly kind: 'AdmissionReview';
  readonly request?: AdmissionRequest<T>;
  readonly response?: AdmissionResponse;
}

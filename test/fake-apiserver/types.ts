/** Public API of the fake kube-apiserver test double. */
import type { KubeConfig } from '@kubernetes/client-node';

export interface FakeApiServerOptions {
  /** CRD manifests (apiextensions.k8s.io/v1) to register at start. */
  readonly crds?: object[];
  /** How many events of one resource back a watch can resume (per resource, like the watch cache); older resourceVersions get 410 Expired. @default 1000 */
  readonly watchCacheWindow?: number;
  /** Interval of BOOKMARK events on watches that allow them. @default 1000 */
  readonly bookmarkIntervalMs?: number;
  /** Act like kube-controller-manager's garbage collector (ownerReferences, foreground/orphan, namespaces). @default false */
  readonly gc?: boolean;
  /**
   * Act like kube-controller-manager + kubelets for Deployments and StatefulSets: after each spec change their
   * status reports all replicas ready/available (observedGeneration = generation) after `workloadDelayMs`. @default false
   */
  readonly simulateWorkloads?: boolean;
  /** Delay before simulated workloads report ready. @default 50 */
  readonly workloadDelayMs?: number;
  /** resourceVersion counter start (real clusters are far from 1; a large value catches string comparisons). @default 1 */
  readonly initialResourceVersion?: number;
  /**
   * Authenticate bearer tokens and authorize every request with RBAC (Roles/ClusterRoles and their bindings in the
   * store), like --authorization-mode=RBAC. The admin kubeconfig stays all-powerful (system:masters); ServiceAccount
   * tokens come from `tokenFor()` or the TokenRequest API (POST serviceaccounts/<name>/token). @default false
   */
  readonly rbac?: boolean;
  /**
   * Serve HTTPS with a throw-away self-signed certificate (needs the openssl CLI). kubectl/client-go send bearer
   * tokens only over TLS, so use it together with `rbac` when kubectl must authenticate. @default false
   */
  readonly tls?: boolean;
  /** Fixed port to listen on. @default 0 (any free port) */
  readonly port?: number;
}

export type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface RecordedRequest {
  readonly verb: Verb;
  /** request path incl. query string */
  readonly path: string;
  /** plural resource name, e.g. `sampledbs` */
  readonly resource: string;
  readonly group: string;
  readonly code: number;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
  readonly contentType?: string;
  readonly userAgent?: string;
  /** authenticated user (`admin` unless rbac is on) */
  readonly user?: string;
}

export interface FaultMatch {
  readonly verb?: string;
  readonly resource?: string;
  /** how many matching requests fail @default 1 */
  readonly count?: number;
}

export interface Faults {
  /** The next `count` requests matching verb/resource fail with `status` (a proper Status body; Retry-After for 429/503). */
  failNext(match: FaultMatch, status: 429 | 500 | 503 | 409, opts?: { retryAfterSeconds?: number }): void;
  /** End every open watch stream abruptly (connection destroyed, no clean chunk terminator). */
  dropWatches(): void;
  /** Open watches receive nothing (no events, no bookmarks) for `ms`; held-back events arrive afterwards. */
  stallWatches(ms: number): void;
  /** The next `count` matching requests are answered only after `ms` (a slow apiserver; for client timeouts). */
  delayNext(match: FaultMatch, ms: number): void;
  /** Forget all pending failNext/delayNext rules. */
  clear(): void;
}

export interface FakeApiServer {
  /** http://127.0.0.1:<port> (https with `tls: true`) */
  readonly url: string;
  readonly port: number;
  /** A client-node KubeConfig pointing at this server (admin token unless given; skipTLSVerify so plain http is allowed). */
  kubeConfig(opts?: { token?: string }): KubeConfig;
  /** Writes a kubeconfig file for child processes and kubectl (admin token unless given). */
  writeKubeconfig(path: string, opts?: { token?: string }): void;
  /** The admin (system:masters) bearer token of kubeConfig()/writeKubeconfig(). */
  readonly adminToken: string;
  /** A bearer token for an existing ServiceAccount (meaningful with `rbac: true`). */
  tokenFor(namespace: string, name: string): string;
  close(): Promise<void>;
  /** Drop all connections, refuse connections for downMs, come back on the same port with the same data. */
  restart(opts?: { downMs?: number }): Promise<void>;
  /** Forget watch history: watches and continue tokens from older resourceVersions get 410 Expired. */
  compact(): void;
  readonly faults: Faults;
  readonly requests: ReadonlyArray<RecordedRequest>;
  /** Number of watch streams currently open. */
  readonly openWatches: number;
  /** The current (latest) resourceVersion. */
  readonly resourceVersion: string;
  /** Direct store access (like a kubelet/controller-manager): bypasses faults, bumps resourceVersion, emits watch events. */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): any | undefined;
  /** Create or replace (incl. status); returns the stored object. */
  put(obj: any): any;
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  /** Registers a CRD as if it had been created through the API. */
  addCrd(crd: object): void;
}

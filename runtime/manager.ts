/**
 * The manager: owns the client, shared informers, controllers, leader election, probes, metrics
 * and graceful shutdown (controller-runtime `manager`).
 *
 * Expected flow:
 * ```ts
 * const mgr = new Manager({ leaderElection: { leaseName: 'foo-controller' }, healthProbeBindAddress: ':8081' });
 * new ControllerBuilder(mgr, { name: 'foo' }).for(FOO).owns(DEPLOYMENT).complete(reconciler);
 * mgr.installSignalHandlers();
 * await mgr.start();
 * ```
 * 1. `start()` opens the metrics and probe servers and starts every informer (caches fill on all
 *    replicas, so a new leader starts warm).
 * 2. Without leader election controllers start at once; with it, when the lease is acquired.
 *    Controllers start their workers only after their caches synced.
 *    A webhook server (`webhookServer` option) listens on every replica, leader or not.
 * 3. `stop()` (SIGTERM/SIGINT via {@link Manager.installSignalHandlers}): controllers stop taking
 *    work at once and in-flight reconciles get up to `gracefulShutdownTimeoutMs` (30 s), while the
 *    webhook server drains; then the lease is released, informers and servers stop.
 *
 * Guarantees:
 * - One informer per (kind, namespace) shared by all controllers.
 * - `/readyz` passes once every informer synced; `/healthz` has a `ping` check.
 * - Lease loss is survived in-process (the kubelet's CrashLoop back-off would otherwise grow with every
 *   apiserver outage): a process that lost its lease never acts — from the moment the loss is declared
 *   (the renew deadline, before the lease can expire for anyone else) writes through
 *   `readYourWritesClient` fail with `NotLeaderError` without being sent, `assertLeader()` throws (for
 *   actions outside the API), the controllers stop taking work and leader runnables stop;
 *   `onLeadershipLost` is called and the manager campaigns again at once with the same identity, as a
 *   restarted client-go process would (it does not wait for reconciles still in flight: one hanging on an
 *   unreachable apiserver or database would hold the campaign for the whole shutdown grace). When
 *   re-elected, controllers start again from the informer caches, which kept watching (as on any standby
 *   replica): every cached object is reconciled once more; leader runnables start once their previous
 *   run stopped. `leaderElection.exitOnLoss: true` restores exit code 1 instead (controller-runtime's
 *   behaviour), after the in-flight reconciles finished (or the grace passed).
 * - Terms: each run of the controllers (one per election won) is a term, carried by everything it starts
 *   (AsyncLocalStorage): a reconcile of an earlier term still in flight after a re-election is refused its
 *   writes and `assertLeader()`, so two terms never act at once even though the new one does not wait for
 *   the old one to end.
 * - Leader election uses its own client, as client-go's `resourcelock.NewFromKubeconfig`: each Lease request
 *   times out after max(1 s, renewDeadline / 2) and is not retried by the client (the elector retries every
 *   retry period), so a request hanging on an apiserver that went away cannot hold the election.
 * - `leaseTransitions` as client-go: re-acquiring a lease that still names this identity (nobody took it
 *   during the outage) is no transition; taking it back from another holder is one.
 *
 * Caveats: a controller that fails to start (cache sync timeout) calls `onFatalError`
 * (default: log and exit 1).
 */
import { AsyncLocalStorage } from 'async_hooks';
import { existsSync, readFileSync } from 'fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { CacheOptions } from './cache-transform';
import { KubeClient, RestClient, RestClientOptions } from './client';
import { assertContractGrants, ContractNeed, contractViolations, ControllerContract } from './contract';
import { Controller, ControllerHost } from './controller';
import type { ShardGate } from './controller';
import { EventRecorder, EventRecorderOptions } from './events';
import { HealthCheck, MetricsServer, ProbeServer } from './health';
import { Informer, InformerOptions } from './informer';
import { ConnectionConfig, loadDefaultConnection } from './kubeconfig';
import { defaultIdentity, LeaderElector } from './leader-election';
import { LeaderGuardedClient, NotLeaderError } from './leader-guard';
import { createLogger, Logger } from './log';
import { ManagerSharding, ManagerShardingOptions } from './manager-sharding';
import { RuntimeMetrics } from './metrics';
import { NamespacedInformers, SharedInformer } from './namespaced-informers';
import { DeferredWrites, ReadYourWritesClient } from './read-your-writes';
import { KubeObject, ResourceRef, resourceId } from './resource';
import { Store, storeOf, TypedResourceRef } from './store';
import type { CertificateSource } from './webhook/certificate-source';
import type { DefaultingHandler } from './webhook/defaulting';
import { WebhookServer, WebhookServerOptions } from './webhook/server';
import type { ValidatingHandler } from './webhook/validating';
import {
  contractShardAssignment,
  contractShardRanges,
  SHARD_ASSIGNMENTS,
  ShardAssignment,
  ShardRanges,
} from '../lib/apimachinery/controller-contract';
import { webhookPath } from '../lib/apimachinery/webhook-path';

/** Leader election settings of a {@link Manager}. */
export interface ManagerLeaderElectionOptions {
  /** Lease name, e.g. `foo-controller-leader`. */
  readonly leaseName: string;
  /**
   * Namespace of the Lease: the operator's own namespace, where its chart grants Leases.
   * @default - `POD_NAMESPACE` (the chart sets it from the downward API), else the in-cluster ServiceAccount's
   * namespace; out of cluster without either, `start()` fails naming this option (as controller-runtime does)
   */
  readonly namespace?: string;
  /** @default `<hostname>_<uuid>` */
  readonly identity?: string;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
  /**
   * Exit the process (code 1) after the lease was lost and the controllers stopped, instead of campaigning
   * again: controller-runtime's behaviour, for a binary keeping state outside the runtime that only a
   * restart resets. In a Pod this means a restart per lost lease, with the kubelet's growing back-off.
   * @default false
   */
  readonly exitOnLoss?: boolean;
}

export type { ManagerShardingOptions } from './manager-sharding';

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /** A ready client (tests); otherwise one is built from `kubeConfig`. */
  readonly client?: KubeClient;
  /**
   * @default - `KUBECONFIG` / `~/.kube/config` / in-cluster, read without client-node where the config
   * allows it (kubeconfig.ts: about 20 MiB less resident memory)
   */
  readonly kubeConfig?: KubeConfig | ConnectionConfig;
  /** Retry and timeout tuning of the built client. */
  readonly clientOptions?: Omit<RestClientOptions, 'transport' | 'metrics' | 'logger'>;
  /** Watch only this namespace (same as `namespaces: [namespace]`). @default - all namespaces */
  readonly namespace?: string;
  /**
   * Watch only these namespaces: one informer per namespace and kind (a Role in each is enough).
   * @default - `namespace`, else the contract's `watchNamespaces`, else all namespaces
   */
  readonly namespaces?: readonly string[];
  /**
   * What the controllers may do against the API (the same declaration the chart derives RBAC from).
   * Wiring it does not grant — a kind in `for`/`owns`/`watches`, an event recorder, leader election,
   * a watched namespace — throws `ContractViolationError` naming the missing verb and resource.
   * @default - unchecked
   */
  readonly contract?: ControllerContract;
  /**
   * Leader election; omitted = disabled. With `sharding`, only the leader runnables (storage migration,
   * certificate rotation) wait for the lease: the controllers run on every member, each on its share.
   */
  readonly leaderElection?: ManagerLeaderElectionOptions;
  /**
   * Shard the controllers across the replicas (sharding.ts): each member reconciles and caches only its share.
   * @default - not sharded: every replica that runs controllers reconciles every object
   */
  readonly sharding?: ManagerShardingOptions;
  /**
   * Parallel reconciles of each controller that does not set its own (`withConcurrency`): controller-runtime's
   * manager-wide `Controller.MaxConcurrentReconciles`. The binaries pass `--concurrency` here.
   * @default 1
   */
  readonly concurrency?: number;
  /** Called each time the lease was lost, once the controllers stopped taking work (the manager campaigns again right after). @default - nothing */
  readonly onLeadershipLost?: () => void;
  /** Called when a controller cannot start. @default - exit(1) */
  readonly onFatalError?: (err: unknown) => void;
  /** `[host]:port` for `/metrics`; `0` disables. @default '0' */
  readonly metricsBindAddress?: string;
  /** `[host]:port` for `/healthz` and `/readyz`; `0` disables. @default '0' */
  readonly healthProbeBindAddress?: string;
  /** Time in-flight reconciles get on shutdown. @default 30000 */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Informer / watcher tuning (watchdog, backoff, resync). */
  readonly informer?: InformerOptions;
  /** @default - JSON logger on stderr */
  readonly logger?: Logger;
  /** @default - a new registry */
  readonly metrics?: RuntimeMetrics;
  /**
   * Serve admission and conversion webhooks (`manager.webhookServer`): started with the manager on
   * every replica (leader or not), part of `/readyz`, drained on shutdown (the controllers stop meanwhile).
   * @default - no webhook server
   */
  readonly webhookServer?: Omit<WebhookServerOptions, 'metrics' | 'logger' | 'certificates'> & {
    /** The certificate source, or a function making it from the manager's client (e.g. a `SecretCertificateSource`). */
    readonly certificates: CertificateSource | ((client: KubeClient) => CertificateSource);
  };
}

/** Work that runs only while the manager runs controllers (the leader). */
export interface LeaderRunnable {
  readonly name: string;
  /** Starts the work in the background (must not throw; report failures itself). */
  start(): void;
  /** Stops it; resolves once it has stopped. */
  stop(): Promise<void>;
}

/** See module docs. */
export class Manager implements ControllerHost {
  public readonly client: KubeClient;
  public readonly metrics: RuntimeMetrics;
  public readonly logger: Logger;
  public readonly probes = new ProbeServer();
  private readonly metricsServer: MetricsServer;
  private readonly informers = new Map<string, SharedInformer>();
  private readonly cacheOptions = new Map<string, CacheOptions>();
  private readonly controllers: Controller[] = [];
  private readonly leaderRunnables: LeaderRunnable[] = [];
  private elector: LeaderElector | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;
  private controllersRunning = false;
  /** May act: leading (or no leader election) and not yet past the loss of the lease. */
  private acting = false;
  /** The current term (see module docs): incremented each time the controllers start. */
  private term = 0;
  /** The term of the code running (set around everything a term starts). */
  private readonly terms = new AsyncLocalStorage<number>();
  /** Leader runnables of the last term stopping: the next term starts them once they stopped. */
  private runnablesStopped: Promise<unknown> = Promise.resolve();
  /** The leader election's own client (see module docs). */
  private readonly electionClient: KubeClient;
  private leaseNamespace: string | undefined;
  private leaderResolve!: () => void;
  /** The sharded mode (the `sharding` option): the ring, the shares, the assignment (manager-sharding.ts). */
  private readonly sharding: ManagerSharding | undefined;
  /** Resolves when this manager's controllers start (leader elected, or no leader election). */
  public readonly elected: Promise<void>;
  /** This process's identity: the leader election identity, also used as events' `reportingInstance`. */
  public readonly identity: string;

  /**
   * The client reconcilers write through: each write returns once the manager's cache of that kind
   * shows it (see `ReadYourWritesClient`).
   */
  public readonly readYourWritesClient: KubeClient;
  private readonly readYourWrites: ReadYourWritesClient;
  /** The namespaces watched; undefined = all namespaces. */
  public readonly watchNamespaces?: readonly string[];
  /** The contract wiring is checked against. */
  public readonly contract?: ControllerContract;
  /** The webhook server, when `webhookServer` options were given: register handlers on it before `start()`. */
  public readonly webhookServer?: WebhookServer;
  /** Parallel reconciles of a controller that sets none. */
  public readonly defaultConcurrency: number;
  /** How this member gets its share when sharded: the option, else the contract's, else `labels`. */
  public readonly shardAssignment?: ShardAssignment;
  /** How assignment `server` cuts the hash space (`sharding.ranges`, else the contract's), when sharded. */
  public readonly shardRanges?: ShardRanges;

  constructor(private readonly options: ManagerOptions = {}) {
    this.contract = options.contract;
    if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
      throw new Error(`concurrency: must be a positive integer, got ${options.concurrency}`);
    }
    this.defaultConcurrency = options.concurrency ?? 1;
    const namespaces =
      options.namespaces ?? (options.namespace !== undefined ? [options.namespace] : options.contract?.watchNamespaces);
    if (namespaces?.length === 0) {
      throw new Error('namespaces: must name at least one namespace (omit it for all namespaces), got []');
    }
    this.watchNamespaces = namespaces === undefined ? undefined : [...new Set(namespaces)];
    if (options.sharding) {
      this.shardAssignment =
        options.sharding.assignment ?? (options.contract && contractShardAssignment(options.contract)) ?? 'labels';
      if (!SHARD_ASSIGNMENTS.includes(this.shardAssignment)) {
        throw new Error(
          `sharding.assignment: must be one of ${SHARD_ASSIGNMENTS.join(', ')}, got ${JSON.stringify(this.shardAssignment)}`,
        );
      }
      this.shardRanges = options.sharding.ranges ?? (options.contract ? contractShardRanges(options.contract) : 'even');
    }
    if (options.contract) {
      const needs: ContractNeed[] = (this.watchNamespaces ?? []).map((namespace) => ({
        use: 'namespace' as const,
        namespace,
      }));
      if (options.leaderElection) needs.push({ use: 'leaderElection' });
      if (this.shardAssignment) {
        needs.push({
          use: 'sharding',
          assignment: this.shardAssignment,
          readsNamespaces: this.shardRanges === 'namespaces' && !this.watchNamespaces,
        });
      }
      assertContractGrants('manager', options.contract, needs);
    }
    this.metrics = options.metrics ?? RuntimeMetrics.forProcess();
    this.logger = options.logger ?? createLogger();
    const kubeConfig = options.client ? undefined : (options.kubeConfig ?? loadDefaultConnection());
    this.client =
      options.client ??
      RestClient.fromKubeConfig(kubeConfig!, {
        ...options.clientOptions,
        metrics: this.metrics,
        logger: this.logger.child({ component: 'client' }),
      });
    const renewDeadlineMs = options.leaderElection?.renewDeadlineMs ?? 10_000;
    this.electionClient =
      options.client ??
      (options.leaderElection
        ? RestClient.fromKubeConfig(kubeConfig!, {
            ...options.clientOptions,
            requestTimeoutMs: Math.max(1000, renewDeadlineMs / 2),
            maxRetries: 0,
            maxThrottleRetries: 0,
            metrics: this.metrics,
            logger: this.logger.child({ component: 'leader-election-client' }),
          })
        : this.client);
    // Writes of reconcilers are refused once the lease is lost, in-flight reconciles (of any earlier term) included.
    const guarded = new LeaderGuardedClient(
      this.client,
      () => this.mayAct(),
      (obj) => this.sharding?.labelCreate(obj) ?? obj,
      // only a shard ring waits for writes in flight (at a handover): no bookkeeping per write without one
      options.sharding ? (write) => this.sharding!.trackWrite(write) : undefined,
    );
    this.readYourWrites = new ReadYourWritesClient(guarded, {
      cacheOf: (resource) => this.informers.get(resourceId(resource))?.cache,
      logger: this.logger.child({ component: 'client' }),
    });
    this.readYourWritesClient = this.readYourWrites;
    this.metricsServer = new MetricsServer(this.metrics);
    this.elected = new Promise((resolve) => {
      this.leaderResolve = resolve;
    });
    this.identity = options.leaderElection?.identity ?? defaultIdentity();
    this.probes.addHealthCheck('ping', () => true);
    this.sharding =
      options.sharding &&
      new ManagerSharding({ ...options.sharding, ranges: this.shardRanges }, this.shardAssignment!, {
        identity: this.identity,
        client: this.client,
        electionClient: this.electionClient,
        informers: this.informers,
        watchNamespaces: this.watchNamespaces,
        labelSelector: options.informer?.labelSelector,
        metrics: this.metrics,
        logger: this.logger,
        controllers: () => this.controllers,
        // Events about the Leases it deletes, where the contract lets it write Events (else the log and the metric)
        recorder: () =>
          this.contract && contractViolations(this.contract, [{ use: 'events' }]).length > 0
            ? undefined
            : this.eventRecorder(`sharding.cdk8s-operator.io/${options.sharding!.ring}`),
        informerOf: (resource) => this.getInformer(resource),
      });
    if (options.webhookServer) {
      const { certificates } = options.webhookServer;
      const server = new WebhookServer({
        ...options.webhookServer,
        certificates: typeof certificates === 'function' ? certificates(this.client) : certificates,
        metrics: this.metrics,
        logger: this.logger.child({ component: 'webhook' }),
      });
      this.webhookServer = server;
      this.probes.addReadyCheck('webhook-server', () => server.ready());
    }
    this.probes.addReadyCheck('informers-synced', () => {
      const pending = [...this.informers.values()].filter((i) => !i.hasSynced).map((i) => resourceId(i.resource));
      if (pending.length) throw new Error(`not synced: ${pending.join(', ')}`);
    });
  }

  /** True while this manager may act: it holds the lease (or runs without leader election). */
  get isLeader(): boolean {
    return this.acting;
  }

  /**
   * Throws {@link NotLeaderError} unless this manager may act. Reconcilers call it before an action outside
   * the API (a database promotion, a cloud call); writes through `readYourWritesClient` check it themselves.
   */
  assertLeader(what = 'action'): void {
    if (!this.mayAct()) throw new NotLeaderError(what);
  }

  /** Leading, and the caller belongs to the current term (or to none: code outside the controllers). */
  private mayAct(): boolean {
    // A reconcile writes only for an object of this member's share, and only while it holds its Lease.
    const inShard = this.sharding?.mayAct(!!this.options.leaderElection);
    if (inShard !== undefined) return inShard;
    if (!this.acting) return false;
    const term = this.terms.getStore();
    return term === undefined || term === this.term;
  }

  /** True while controllers run (leader, or no leader election). */
  get isRunningControllers(): boolean {
    return this.controllersRunning;
  }

  /** Address of the probe server after start. */
  get healthProbeAddress(): string | undefined {
    return this.probes.address;
  }

  /** Address of the metrics server after start. */
  get metricsAddress(): string | undefined {
    return this.metricsServer.address;
  }

  /**
   * The shared informer of a kind in the watched namespaces (one per namespace behind it when several).
   * `cache` (what its cache keeps) is fixed by the call that creates the informer: a later call asking
   * for other cache options throws, naming the kind.
   */
  getInformer(resource: ResourceRef, cache?: CacheOptions): SharedInformer {
    const id = resourceId(resource);
    let informer = this.informers.get(id);
    const existing = this.cacheOptions.get(id);
    if (
      informer &&
      cache &&
      (cache.transform !== existing?.transform || !!cache.metadataOnly !== !!existing?.metadataOnly)
    ) {
      throw new Error(
        `the informer of ${id} already exists with other cache options: pass the same transform and metadataOnly wherever the kind is watched (or read), or only at the first use`,
      );
    }
    if (!informer) {
      this.cacheOptions.set(id, cache ?? {});
      const shard = this.sharding?.informerOptions(resource);
      const inNamespace = (namespace: string | undefined) =>
        new Informer(
          this.client,
          resource,
          { ...this.options.informer, ...cache, ...shard, namespace },
          this.logger.child({ component: 'informer' }),
          this.metrics,
        );
      const namespaces = this.watchNamespaces;
      informer =
        namespaces && namespaces.length > 1
          ? new NamespacedInformers(resource, new Map(namespaces.map((ns) => [ns, inNamespace(ns)])))
          : inNamespace(namespaces?.[0]);
      this.informers.set(id, informer);
      this.sharding?.watch(resource, informer);
      if (this.started) informer.start();
    }
    return informer;
  }

  /**
   * What a sharded controller needs (controller.ts): the shard key of a request of its primary kind (undefined
   * when the object is not in this member's cache: not its share, or deleted), whether this member owns it now,
   * and the scope its reconcile runs in (its writes are checked against the key).
   */
  shardGate(primary: ResourceRef, owned: readonly ResourceRef[] = []): ShardGate | undefined {
    return this.sharding?.gate(primary, owned);
  }

  /** The shard ring's member name and the members it acts with (sharding), for tests and status. */
  get shard(): { readonly member: string; readonly members: readonly string[] } | undefined {
    return this.sharding?.shard;
  }

  /**
   * The shard label an object gets when it is created (the labelling webhook, shard-label-webhook.ts): its owner in
   * the view every member acts on, by the shard key known before the apiserver assigns a UID: the namespace with
   * `key: 'namespace'`; with `key: 'uid'` the controller owner's UID (an object without one, whose own UID is not
   * assigned yet, is left to the assigner's watch). Undefined when the assignment is not `labels`, this member does
   * not act on a view yet, or the key is not known at admission.
   */
  shardLabelAtAdmission(
    obj: KubeObject,
    namespace?: string,
  ): { readonly ring: string; readonly label: string; readonly member: string } | undefined {
    return this.sharding?.labelAtAdmission(obj, namespace);
  }

  /** The typed, read-only store of a kind (its shared informer's cache; `cache` as in {@link getInformer}). */
  getStore<T extends KubeObject>(resource: TypedResourceRef<T>, cache?: CacheOptions): Store<T> {
    return storeOf<T>(this.getInformer(resource, cache).cache);
  }

  /** The writes of one reconcile, through `readYourWritesClient` (controller.ts gives them to each reconcile). */
  deferredWrites(): DeferredWrites {
    return this.readYourWrites.deferred();
  }

  /** Registers a controller (done by `ControllerBuilder.complete`). */
  addController(controller: Controller): void {
    if (this.controllers.some((c) => c.name === controller.name)) {
      throw new Error(`controller name '${controller.name}' is already used`);
    }
    this.controllers.push(controller);
    if (this.controllersRunning) void this.terms.run(this.term, () => this.startController(controller));
  }

  /**
   * Runs `runnable` while this manager runs controllers (as the leader, or always without leader
   * election), e.g. the storage version migration: started with the controllers, stopped with them.
   */
  addLeaderRunnable(runnable: LeaderRunnable): void {
    this.leaderRunnables.push(runnable);
    if (this.controllersRunning) this.terms.run(this.term, () => runnable.start());
  }

  /**
   * An events.k8s.io recorder reporting as `reportingController`, with its spam filter and series as `options` set
   * them. Throws if the contract has no `events`. A member of a shard ring has its part of one replica's Event
   * budget (`share`: 1 / the ring's members), so that the ring's Events reach the apiserver no faster than one
   * replica's (events.ts).
   */
  eventRecorder(
    reportingController: string,
    options: Pick<
      EventRecorderOptions,
      'burst' | 'refillIntervalMs' | 'spamFilterPer' | 'seriesWindowMs' | 'share'
    > = {},
  ): EventRecorder {
    if (this.contract) {
      assertContractGrants(`event recorder '${reportingController}'`, this.contract, [{ use: 'events' }]);
    }
    const sharding = this.sharding;
    return new EventRecorder({
      share: sharding && (() => 1 / Math.max(1, sharding.shard?.members.length ?? 1)),
      ...options,
      client: this.client,
      reportingController,
      reportingInstance: this.identity,
      logger: this.logger.child({ component: 'events' }),
      metrics: this.metrics,
    });
  }

  /**
   * Serves the validating webhook of a kind at its `webhookPath` (where the chart's configuration
   * points). Throws `ContractViolationError` unless the contract declares it in `webhooks`, and when
   * the manager has no `webhookServer`.
   */
  validatingWebhook<T extends KubeObject>(
    resource: TypedResourceRef<T> | ResourceRef,
    handler: ValidatingHandler<T>,
  ): void {
    this.webhookServerFor('validating', resource).validating<T>(
      webhookPath('validating', resource.apiVersion, resource.kind),
      handler,
    );
  }

  /** Serves the defaulting (mutating) webhook of a kind at its `webhookPath`; as {@link validatingWebhook}. */
  defaultingWebhook<T extends KubeObject>(
    resource: TypedResourceRef<T> | ResourceRef,
    handler: DefaultingHandler<T>,
  ): void {
    this.webhookServerFor('defaulting', resource).defaulting<T>(
      webhookPath('defaulting', resource.apiVersion, resource.kind),
      handler,
    );
  }

  private webhookServerFor(type: 'validating' | 'defaulting', resource: ResourceRef): WebhookServer {
    if (this.contract) assertContractGrants(`${type} webhook`, this.contract, [{ use: 'webhook', type, resource }]);
    if (!this.webhookServer) {
      throw new Error(
        `a ${type} webhook for ${resource.kind} needs the manager's webhookServer option (runControllerBinary sets it when the contract declares webhooks)`,
      );
    }
    return this.webhookServer;
  }

  /** Adds a named liveness check. */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.probes.addHealthCheck(name, check);
  }

  /** Adds a named readiness check. */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.probes.addReadyCheck(name, check);
  }

  /**
   * Starts servers, informers and (directly or after election) controllers. Resolves once running;
   * without leader election that includes cache sync of all controllers.
   */
  async start(): Promise<void> {
    if (this.started) return;
    // Only a manager that serves webhooks must serve all of them (reconciler tests run managers without a server).
    const unserved = (this.webhookServer ? (this.contract?.webhooks ?? []) : [])
      .map((w) => webhookPath(w.type, w.for.apiVersion, w.for.kind))
      .filter((path) => !this.webhookServer?.paths.has(path));
    if (unserved.length) {
      throw new Error(
        `the contract declares webhooks without a handler (the apiserver would call them and fail): ${unserved.join(', ')}; register them with manager.validatingWebhook / defaultingWebhook before start()`,
      );
    }
    // Before anything listens or connects: a missing Lease namespace is a start-up error.
    const leaseNamespace = this.options.leaderElection
      ? (this.options.leaderElection.namespace ?? leaderElectionNamespace())
      : undefined;
    this.started = true;
    await this.metricsServer.start(this.options.metricsBindAddress ?? '0');
    await this.probes.start(this.options.healthProbeBindAddress ?? '0');
    await this.webhookServer?.start();
    if (this.sharding) {
      await this.startSharded(this.sharding, leaseNamespace);
      return;
    }
    for (const informer of this.informers.values()) informer.start();
    if (!this.options.leaderElection) {
      this.acting = true;
      await this.startControllers();
      return;
    }
    this.leaseNamespace = leaseNamespace;
    this.campaign();
  }

  /**
   * Sharded: joins the ring and waits for its view to settle (sharding.ts `settle`, at most 10 s), then starts the
   * informers (filtered to the share) and every controller; the leader runnables wait for the lease when leader
   * election is on.
   */
  private async startSharded(sharding: ManagerSharding, leaseNamespace: string | undefined): Promise<void> {
    await sharding.start(this.options.sharding!.namespace ?? leaseNamespace ?? leaderElectionNamespace());
    for (const informer of this.informers.values()) informer.start();
    this.acting = !this.options.leaderElection;
    this.controllersRunning = true;
    await Promise.all(this.controllers.map((c) => this.startController(c)));
    if (!this.options.leaderElection) {
      this.leaderResolve();
      for (const r of this.leaderRunnables) r.start();
      return;
    }
    this.leaseNamespace = leaseNamespace;
    this.campaign();
  }

  /** Campaigns for the lease with a new elector (same identity); controllers start when it leads. */
  private campaign(): void {
    const le = this.options.leaderElection!;
    const elector: LeaderElector = new LeaderElector({
      client: this.electionClient,
      leaseName: le.leaseName,
      namespace: this.leaseNamespace!,
      identity: this.identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger: this.logger.child({ component: 'leader-election' }),
      metrics: this.metrics,
      onStartedLeading: () => {
        if (this.stopping || elector !== this.elector) return;
        this.acting = true;
        void this.startControllers().catch((err) => this.fatal(err));
      },
      // Synchronously, before anything else runs: from here on nothing is written.
      onStoppedLeading: () => {
        this.acting = false;
        void this.onLost();
      },
    });
    this.elector = elector;
    elector.start().catch((err) => this.fatal(err));
  }

  /** Graceful shutdown (idempotent). */
  stop(): Promise<void> {
    if (!this.stopping) this.stopping = this.doStop();
    return this.stopping;
  }

  /** Stops on SIGTERM/SIGINT, then exits 0. Returns a function removing the handlers. */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): () => void {
    const handler = (signal: NodeJS.Signals) => {
      this.logger.info('signal received, shutting down', { signal });
      this.stop().then(
        () => exit(0),
        (err) => {
          this.logger.error('shutdown failed', { error: err });
          exit(1);
        },
      );
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
    return () => {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
    };
  }

  private async startControllers(): Promise<void> {
    if (this.stopping) return;
    const term = ++this.term;
    this.controllersRunning = true;
    this.leaderResolve();
    // Everything this term starts (workers, their reconciles, leader runnables) carries it (see mayAct).
    await this.terms.run(term, async () => {
      const runnables = this.runnablesStopped.then(() => {
        if (this.term === term && this.controllersRunning) for (const r of this.leaderRunnables) r.start();
      });
      await Promise.all([
        runnables,
        ...(this.sharding?.ring ? [] : this.controllers.map((c) => this.startController(c))),
      ]);
    });
  }

  private async startController(controller: Controller): Promise<void> {
    await controller.start();
  }

  private async stopControllers(): Promise<void> {
    const grace = this.options.gracefulShutdownTimeoutMs ?? 30_000;
    this.controllersRunning = false;
    await Promise.all([...this.controllers.map((c) => c.stop(grace)), ...this.leaderRunnables.map((r) => r.stop())]);
  }

  private async onLost(): Promise<void> {
    const exit = this.options.leaderElection?.exitOnLoss === true;
    if (exit) {
      await this.stopControllers();
      this.logger.error('leader lease lost, controllers stopped; exiting (exitOnLoss)');
      this.options.onLeadershipLost?.();
      process.exit(1);
      return;
    }
    // Queues shut down at once (no new work); reconciles in flight are not waited for: their term is over,
    // so they cannot write any more (mayAct), and one hanging on an unreachable apiserver or database would
    // otherwise hold the campaign for the whole grace period.
    // Sharded: the controllers keep running on this member's share; only the leader runnables stop.
    if (!this.sharding?.ring) this.controllersRunning = false;
    const inFlight = Promise.all(
      (this.sharding?.ring ? [] : this.controllers).map((c) =>
        c.stop(this.options.gracefulShutdownTimeoutMs ?? 30_000),
      ),
    );
    this.runnablesStopped = Promise.all(this.leaderRunnables.map((r) => r.stop()));
    this.logger.error('leader lease lost, controllers stopped taking work; campaigning again');
    this.options.onLeadershipLost?.();
    if (!this.stopping) this.campaign();
    await inFlight;
  }

  private fatal(err: unknown): void {
    this.logger.error('controller failed to start', { error: err });
    if (this.options.onFatalError) this.options.onFatalError(err);
    else process.exit(1);
  }

  private async doStop(): Promise<void> {
    // Webhooks before the informers (their handlers read the caches; the readiness probe must fail before the port
    // closes), and the controllers meanwhile: a replaced operator that went on reconciling through the webhook
    // server's shutdown delay (5 s in a cluster) was seen finishing a failover its successor was to take over.
    await Promise.all([this.webhookServer?.stop(), this.stopControllers()]);
    this.acting = false;
    await this.sharding?.stop();
    await this.elector?.stop();
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await this.metricsServer.stop();
    await this.probes.stop();
    (this.client as { close?: () => void }).close?.();
    if (this.electionClient !== this.client) (this.electionClient as { close?: () => void }).close?.();
    this.logger.info('manager stopped');
  }
}

/** The in-cluster ServiceAccount's namespace (mounted with its token). */
const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * The Lease's namespace when none is configured: `POD_NAMESPACE`, else the in-cluster ServiceAccount's
 * namespace. Out of cluster there is no right guess (`default` is where the chart grants nothing), so
 * the start fails naming the options, as controller-runtime's does.
 */
export function leaderElectionNamespace(
  env: NodeJS.ProcessEnv = process.env,
  file = SERVICE_ACCOUNT_NAMESPACE_FILE,
): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error(
    "leader election: no namespace for the Lease; out of cluster, set --leader-election-namespace=<the operator's namespace> " +
      "(or POD_NAMESPACE; `npx cdk8s-operator run` runs the controller with its chart's ServiceAccount and namespace)",
  );
}

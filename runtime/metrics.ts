/**
 * Prometheus metrics with the names controller-runtime and client-go users' dashboards expect.
 *
 * Expected flow: one {@link RuntimeMetrics} per manager (own prom-client `Registry`, so several
 * managers can live in one process, e.g. in tests); clients, queues, controllers and leader
 * election record into it; the manager serves `registry.metrics()` on `/metrics`.
 *
 * Guarantees: names and labels follow controller-runtime: `controller_runtime_reconcile_total{controller,result}`,
 * `workqueue_*{name}`, `rest_client_requests_total{code,method,host}`, `leader_election_master_status{name}`,
 * `controller_runtime_webhook_requests_total{webhook,code}` and `controller_runtime_webhook_latency_seconds{webhook}`;
 * `controller_runtime_events_total{reporting_controller,result}` is ours (client-go counts no events).
 */
import * as prom from 'prom-client';

/** Histogram buckets used by controller-runtime for reconcile time (seconds). */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** workqueue buckets: 1 ns .. 10^9 ns as in client-go (ExponentialBuckets(10e-9, 10, 12)). */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];
const REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
/** Prometheus' default buckets, which controller-runtime's webhook latency histogram uses. */
const WEBHOOK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** All runtime metrics, registered in one registry. */
export class RuntimeMetrics {
  /** Runtime metrics plus the process and Node.js metrics (`process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, …). */
  public static forProcess(): RuntimeMetrics {
    const metrics = new RuntimeMetrics();
    prom.collectDefaultMetrics({ register: metrics.registry });
    return metrics;
  }

  public readonly registry: prom.Registry;

  public readonly reconcileTotal: prom.Counter<'controller' | 'result'>;
  public readonly reconcileErrors: prom.Counter<'controller'>;
  public readonly terminalReconcileErrors: prom.Counter<'controller'>;
  public readonly reconcilePanics: prom.Counter<'controller'>;
  public readonly reconcileTime: prom.Histogram<'controller'>;
  public readonly maxConcurrentReconciles: prom.Gauge<'controller'>;
  public readonly activeWorkers: prom.Gauge<'controller'>;

  public readonly queueDepth: prom.Gauge<'name' | 'controller'>;
  public readonly queueAdds: prom.Counter<'name' | 'controller'>;
  public readonly queueDuration: prom.Histogram<'name' | 'controller'>;
  public readonly workDuration: prom.Histogram<'name' | 'controller'>;
  public readonly unfinishedWork: prom.Gauge<'name' | 'controller'>;
  public readonly longestRunningProcessor: prom.Gauge<'name' | 'controller'>;
  public readonly queueRetries: prom.Counter<'name' | 'controller'>;

  public readonly restRequests: prom.Counter<'code' | 'method' | 'host'>;
  public readonly restRequestDuration: prom.Histogram<'verb' | 'host'>;

  public readonly leaderElectionMasterStatus: prom.Gauge<'name'>;

  public readonly webhookRequests: prom.Counter<'webhook' | 'code'>;
  public readonly webhookLatency: prom.Histogram<'webhook'>;
  public readonly webhookInFlight: prom.Gauge<'webhook'>;
  public readonly webhookPanics: prom.Counter<'webhook'>;

  public readonly shardMembers: prom.Gauge<'ring'>;
  public readonly shardOwnedObjects: prom.Gauge<'ring' | 'resource'>;
  public readonly shardHandovers: prom.Counter<'ring' | 'direction'>;
  public readonly shardViewChanges: prom.Counter<'ring'>;
  public readonly shardLeasesCollected: prom.Counter<'ring'>;
  public readonly shardTablesProposed: prom.Counter<'ring'>;
  public readonly shardLabelWrites: prom.Counter<'ring' | 'reason'>;
  public readonly shardServerSelection: prom.Gauge<'ring'>;
  public readonly watchErrors: prom.Counter<'resource' | 'reason'>;
  public readonly events: prom.Counter<'reporting_controller' | 'result'>;
  public readonly watchRestarts: prom.Counter<'resource' | 'reason'>;

  /** Collectors run before each scrape (used by work queues for the "unfinished work" gauges). */
  private readonly collectors = new Set<() => void>();

  constructor(registry: prom.Registry = new prom.Registry()) {
    this.registry = registry;
    const reg = [registry];
    const collect = () => {
      for (const c of this.collectors) c();
    };

    this.reconcileTotal = new prom.Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers: reg,
    });
    this.reconcileErrors = new prom.Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers: reg,
    });
    this.terminalReconcileErrors = new prom.Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers: reg,
    });
    this.reconcilePanics = new prom.Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics (programming errors) per controller',
      labelNames: ['controller'],
      registers: reg,
    });
    this.reconcileTime = new prom.Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers: reg,
    });
    this.maxConcurrentReconciles = new prom.Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers: reg,
    });
    this.activeWorkers = new prom.Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers: reg,
    });

    this.queueDepth = new prom.Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'],
      registers: reg,
    });
    this.queueAdds = new prom.Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers: reg,
    });
    this.queueDuration = new prom.Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers: reg,
    });
    this.workDuration = new prom.Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'],
      buckets: QUEUE_BUCKETS,
      registers: reg,
    });
    this.unfinishedWork = new prom.Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      labelNames: ['name', 'controller'],
      registers: reg,
      collect,
    });
    // No collect of its own: unfinishedWork's collect (registered just before) sets both gauges from one
    // clock reading, so a scrape never shows the longest processor running longer than all unfinished work.
    this.longestRunningProcessor = new prom.Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name', 'controller'],
      registers: reg,
    });
    this.queueRetries = new prom.Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers: reg,
    });

    this.restRequests = new prom.Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host',
      labelNames: ['code', 'method', 'host'],
      registers: reg,
    });
    this.restRequestDuration = new prom.Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds, broken down by verb and host',
      labelNames: ['verb', 'host'],
      buckets: REST_BUCKETS,
      registers: reg,
    });

    this.leaderElectionMasterStatus = new prom.Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers: reg,
    });

    // controller-runtime pkg/webhook/internal/metrics: `webhook` is the path, `code` the HTTP status code.
    this.webhookRequests = new prom.Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers: reg,
    });
    this.webhookLatency = new prom.Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: WEBHOOK_BUCKETS,
      registers: reg,
    });
    this.webhookInFlight = new prom.Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers: reg,
    });
    this.webhookPanics = new prom.Counter({
      name: 'controller_runtime_webhook_panics_total',
      help: 'Total number of webhook panics (handlers that threw)',
      labelNames: ['webhook'],
      registers: reg,
    });

    this.shardMembers = new prom.Gauge({
      name: 'controller_runtime_shard_members',
      help: 'Members of the shard ring in the view this member acts on',
      labelNames: ['ring'],
      registers: reg,
    });
    this.shardOwnedObjects = new prom.Gauge({
      name: 'controller_runtime_shard_owned_objects',
      help: 'Objects of a sharded kind this member caches (its share)',
      labelNames: ['ring', 'resource'],
      registers: reg,
    });
    this.shardHandovers = new prom.Counter({
      name: 'controller_runtime_shard_handovers_total',
      help: 'Objects that moved to (in) or away from (out) this member on ring changes',
      labelNames: ['ring', 'direction'],
      registers: reg,
    });
    this.shardViewChanges = new prom.Counter({
      name: 'controller_runtime_shard_view_changes_total',
      help: 'Ring membership changes this member acknowledged',
      labelNames: ['ring'],
      registers: reg,
    });
    this.shardLeasesCollected = new prom.Counter({
      name: 'controller_runtime_shard_leases_collected_total',
      help: 'Leases of members gone (expired) this member deleted, so that a member joining later does not count them live',
      labelNames: ['ring'],
      registers: reg,
    });
    this.shardTablesProposed = new prom.Counter({
      name: 'controller_runtime_shard_tables_proposed_total',
      help: "Range tables this member proposed as the ring's first member (ranges: 'namespaces'), each a view change",
      labelNames: ['ring'],
      registers: reg,
    });
    this.shardLabelWrites = new prom.Counter({
      name: 'controller_runtime_shard_label_writes_total',
      help: 'Shard labels this member wrote: assign (an object without a live member), move (to its new owner), or admission (in the create request, by the labelling webhook)',
      labelNames: ['ring', 'reason'],
      registers: reg,
    });
    this.shardServerSelection = new prom.Gauge({
      name: 'controller_runtime_shard_server_selection',
      help: "1 when the apiserver filters this member's lists and watches by its shard ranges (assignment server), 0 when the member filters them",
      labelNames: ['ring'],
      registers: reg,
    });
    this.watchErrors = new prom.Counter({
      name: 'runtime_watch_errors_total',
      help: 'Watch/list failures per resource (the watcher keeps retrying)',
      labelNames: ['resource', 'reason'],
      registers: reg,
    });
    this.events = new prom.Counter({
      name: 'controller_runtime_events_total',
      help: 'Events an event recorder was asked to record, by result: created, series (a repeat, written as its series count), dropped_spam (the per-object spam filter), dropped_queue (too many waiting for a writer) or failed (the write failed)',
      labelNames: ['reporting_controller', 'result'],
      registers: reg,
    });
    this.watchRestarts = new prom.Counter({
      name: 'runtime_watch_restarts_total',
      help: 'Watch restarts per resource and reason (timeout, watchdog, gone, error)',
      labelNames: ['resource', 'reason'],
      registers: reg,
    });
  }

  /** Registers a function run before each scrape; returns an unregister function. */
  addCollector(fn: () => void): () => void {
    this.collectors.add(fn);
    return () => this.collectors.delete(fn);
  }

  /** Text exposition format for `/metrics`. */
  async expose(): Promise<string> {
    return this.registry.metrics();
  }

  /** Current value of a counter/gauge with the given labels (0 when absent); for tests and health checks. */
  async value(name: string, labels: Record<string, string> = {}): Promise<number> {
    const metric = this.registry.getSingleMetric(name);
    if (!metric) return 0;
    const data = await metric.get();
    // For histograms, count observations (the `_count` series).
    const isHistogram = String(data.type) === 'histogram';
    let sum = 0;
    for (const v of data.values) {
      const series = (v as { metricName?: string }).metricName ?? '';
      if (isHistogram && !series.endsWith('_count')) continue;
      const l = v.labels as Record<string, string | number>;
      if (Object.entries(labels).every(([k, want]) => String(l[k]) === want)) sum += v.value;
    }
    return sum;
  }
}

import { Construct } from 'constructs';
import { OPERATOR_OWNED_PARAMETERS } from '../../controllers/sampledb/tuning';
import { conditionsSchema, CrdVersionProps, CustomResourceDefinition, Schema } from '../../lib';

/** Matches a version like `16`, `16.4` or `16.4.1`; the major version picks the postgres image. */
const VERSION_PATTERN = '^[0-9]+(\\.[0-9]+){0,2}$';
/** A quantity like `1Gi` (binary or decimal suffix). */
export const QUANTITY_PATTERN = '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$';
/** A CPU quantity like `500m` or `2`. */
const CPU_PATTERN = '^[0-9]+(\\.[0-9]+)?m?$';
/** A DNS label: backup names are the names of the Jobs that wrote them. */
const BACKUP_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** Five cron fields (minute hour day-of-month month day-of-week) or a @-macro. */
const CRON_PATTERN = '^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|(\\S+\\s+){4}\\S+)$';

/**
 * The SampleDB CRD of the seed documents (Kubernetes docs' operator example), `kind: SampleDB` in
 * `database.example.com`, with two served versions:
 * - `v1`, exactly as released in 0.1.0 (`crd-baselines/`): `restoreFrom` is a backup name (a string);
 * - `v2`, the storage version and the hub the controller reconciles: `restoreFrom` is `{ sampleDB, backup }`
 *   (restore from any SampleDB of the namespace), plus replication, failover and switchover fields.
 * The operator converts between them (controllers/sampledb/conversion.ts) through its webhook, which the
 * chart's `Operator` sets as this CRD's `spec.conversion`, and migrates v1-stored objects to v2.
 */
export function sampleDbCrd(scope: Construct, id = 'SampleDBDefinition'): CustomResourceDefinition {
  return new CustomResourceDefinition(scope, id, {
    group: 'database.example.com',
    kind: 'SampleDB',
    description:
      'SampleDB is a PostgreSQL database run by the SampleDB operator: a StatefulSet with its volumes, credentials, services, scheduled backups, upgrades and a final snapshot on delete.',
    shortNames: ['sdb'],
    categories: ['databases'],
    // The operator's webhook (apps/sampledb: Operator 'sampledb-operator' with contract.conversion, which sets the same).
    conversion: {
      service: {
        name: 'sampledb-operator-webhook',
        namespace: 'sampledb-operator-system',
        port: 443,
        path: '/convert',
      },
    },
    versions: [
      V1_0_1_0,
      {
        name: 'v2',
        storage: true,
        spec: Schema.object({
          description: 'Desired state of a PostgreSQL database.',
          properties: {
            version: Schema.string({
              description:
                'PostgreSQL version, e.g. "16" or "16.4"; the major version picks the image. Major versions can only go up.',
              pattern: VERSION_PATTERN,
              maxLength: 16,
              validations: [
                {
                  rule: "int(self.split('.')[0]) >= int(oldSelf.split('.')[0])",
                  message: 'major version downgrades are not supported',
                },
              ],
            }),
            replicas: Schema.integer({
              description: 'Number of database pods: one primary, the others hot standbys streaming from it.',
              minimum: 1,
              maximum: 9,
              default: 1,
              format: 'int32',
            }),
            synchronous: Schema.boolean({
              description:
                'Synchronous replication: a commit is acknowledged only once a standby has it (synchronous_standby_names = ANY 1 of the standbys recorded in status.synchronousStandbys), so a failover loses no acknowledged write: it waits until every standby that may hold the last commits answers (status.synchronousStandbys). Writes wait while no standby is connected. Off: asynchronous, a failover loses what the standbys had not received (status.instances[].lagBytes).',
              default: false,
            }),
            failoverDelaySeconds: Schema.integer({
              description:
                'How long the primary may be unavailable (pod gone or not ready) before the most advanced standby is promoted. Raised to the self-fence bound (anomalies.isolationFenceSeconds + 5) when shorter.',
              minimum: 0,
              maximum: 3600,
              default: 10,
              format: 'int32',
            }),
            primary: Schema.string({
              description:
                'Preferred primary pod (e.g. "my-db-1"): when it is a healthy standby the operator switches over to it (a switchover on request).',
              pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?-[0-8]$',
              maxLength: 63,
            }),
            backupSchedule: Schema.string({
              description: 'Cron schedule of regular backups, e.g. "0 2 * * *". No backups when absent.',
              pattern: CRON_PATTERN,
              maxLength: 64,
            }),
            backupRetention: Schema.integer({
              description: 'How many scheduled backups to keep.',
              minimum: 1,
              maximum: 365,
              format: 'int32',
            }),
            // No schema default: the operator's defaulting webhook fills it at create, from the namespace's
            // annotation database.example.com/default-storage, else 1Gi (a schema default would be applied before
            // admission, and the webhook could no longer tell an omitted size from an explicit one).
            storage: Schema.string({
              description:
                'Size of each data volume (a Kubernetes quantity). Immutable: StatefulSet volume claim templates cannot change. Defaulted at create from the namespace annotation database.example.com/default-storage, else 1Gi.',
              pattern: QUANTITY_PATTERN,
              maxLength: 32,
              validations: [{ rule: 'self == oldSelf', message: 'storage is immutable' }],
            }),
            storageClassName: Schema.string({
              description:
                'StorageClass of the data and backup volumes. Immutable. Defaulted at create from the namespace annotation database.example.com/default-storage-class, else the cluster default class.',
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
              maxLength: 253,
              validations: [{ rule: 'self == oldSelf', message: 'storageClassName is immutable' }],
            }),
            backupStorage: Schema.string({
              description: 'Size of the backup volume (a Kubernetes quantity). Immutable.',
              default: '2Gi',
              pattern: QUANTITY_PATTERN,
              maxLength: 32,
              validations: [{ rule: 'self == oldSelf', message: 'backupStorage is immutable' }],
            }),
            volumeRetention: Schema.string({
              description:
                'What happens to the data volumes when the SampleDB is deleted (after the final snapshot): Delete or Retain. The backup volume is always retained.',
              enum: ['Delete', 'Retain'],
              default: 'Delete',
            }),
            anomalies: Schema.object({
              description:
                "What the operator watches for, and acts on: replication lag, a diverged standby, long and idle-in-transaction sessions, transaction ID age, connection saturation. Each is a condition, a metric (sampledb_anomaly) and an alert of the chart's PrometheusRule.",
              properties: {
                maxLagBytes: Schema.integer({
                  description:
                    "A standby further behind the primary (WAL bytes not replayed) leaves the <db>-ro Service until it catches up, and is never promoted by a failover (Patroni's maximum_lag_on_failover; Spilo sets 32 MiB). 0: no bound.",
                  minimum: 0,
                  default: 33554432,
                  format: 'int64',
                }),
                idleInTransactionSeconds: Schema.integer({
                  description:
                    'Sessions idle in a transaction for longer are terminated by the operator (pg_terminate_backend), each an event. Absent: never terminated, only reported.',
                  minimum: 1,
                  maximum: 86400,
                  format: 'int32',
                }),
                longTransactionSeconds: Schema.integer({
                  description: 'A transaction open for longer is reported (condition LongTransaction, alert).',
                  minimum: 1,
                  default: 300,
                  format: 'int32',
                }),
                xidAgeThreshold: Schema.integer({
                  description:
                    'Transaction ID age (age(datfrozenxid)) reported as a wraparound risk (condition XidAgeHigh, alert); wraparound is at 2^31.',
                  minimum: 1000,
                  maximum: 2000000000,
                  default: 1000000000,
                  format: 'int64',
                }),
                connectionSaturationPercent: Schema.integer({
                  description:
                    'Connections in use on the primary, in percent of max_connections, reported as saturation (condition ConnectionsSaturated, alert).',
                  minimum: 1,
                  maximum: 100,
                  default: 80,
                  format: 'int32',
                }),
                isolationFenceSeconds: Schema.integer({
                  description:
                    'A primary that reaches neither the apiserver nor any standby for this long stops PostgreSQL by itself (checked inside its container every second), so a failover can never leave two writable instances. It has stopped within isolationFenceSeconds + 5 s; the operator raises the failover delay to that bound. Condition IsolationFencing, event PrimarySelfFenced. 0: off.',
                  minimum: 0,
                  maximum: 300,
                  default: 5,
                  format: 'int32',
                }),
                rewindDivergedStandbys: Schema.boolean({
                  description:
                    'A standby that replayed past the point where the primary\'s timeline forked off its own (after an asynchronous failover promoted a standby behind it) can never follow the primary: the operator ends its sessions and restarts it, and it rewinds itself onto the primary (pg_rewind) before it starts. Event StandbyDiverged, condition StandbyDiverged, sampledb_autopilot_actions_total{action="StandbyRewound"}. Off: it stays diverged, out of <db>-ro.',
                  default: true,
                }),
              },
            }),
            storageAutoGrow: Schema.object({
              description:
                'Grows the data volumes by themselves: when the database (the sizes PostgreSQL reports for its databases and its WAL) uses trigger percent of a data volume claim, every data claim grows by step percent, up to limit (condition StorageAutoGrow False LimitReached there). The StorageClass must allow volume expansion. Absent: volumes never grow.',
              properties: {
                trigger: Schema.integer({
                  description: "Percent of the claim's capacity in use that triggers a growth.",
                  minimum: 10,
                  maximum: 99,
                  default: 75,
                  format: 'int32',
                }),
                step: Schema.integer({
                  description: 'Percent of the current capacity added by each growth.',
                  minimum: 5,
                  maximum: 1000,
                  default: 50,
                  format: 'int32',
                }),
                limit: Schema.string({
                  description: 'The largest size a data volume may grow to (a Kubernetes quantity).',
                  pattern: QUANTITY_PATTERN,
                  maxLength: 32,
                }),
              },
              required: ['limit'],
            }),
            autoscaling: Schema.object({
              description:
                'Replica auto-scaling on the connections in use on the standbys (the primary while there is none): above targetConnectionUsePercent the operator raises spec.replicas (at most maxReplicas, not within cooldownSeconds of the last scaling); after stabilizationWindowSeconds below it, lowers it by one (never below minReplicas, nor below 2 with synchronous: the primary and a synchronous standby always remain). Each scaling is an event (Autoscaled), condition Autoscaling and sampledb_autopilot_actions_total{action="ScaledUp"|"ScaledDown"}. Absent or enabled false: spec.replicas is left as written (an external HPA or KEDA can drive the /scale subresource instead; do not use both).',
              properties: {
                enabled: Schema.boolean({ description: 'Off: spec.replicas is left as written.', default: true }),
                minReplicas: Schema.integer({
                  description: 'Fewest instances (primary included).',
                  minimum: 1,
                  maximum: 9,
                  format: 'int32',
                }),
                maxReplicas: Schema.integer({
                  description: 'Most instances (primary included).',
                  minimum: 1,
                  maximum: 9,
                  format: 'int32',
                }),
                targetConnectionUsePercent: Schema.integer({
                  description:
                    'Client connections in use on the standbys, in percent of their max_connections, that the scaling aims at (10 % tolerance either way).',
                  minimum: 1,
                  maximum: 100,
                  default: 75,
                  format: 'int32',
                }),
                stabilizationWindowSeconds: Schema.integer({
                  description: 'How long the use must stay below the target before one instance is removed.',
                  minimum: 0,
                  maximum: 86400,
                  default: 300,
                  format: 'int32',
                }),
                cooldownSeconds: Schema.integer({
                  description: 'No scaling sooner than this after the last one.',
                  minimum: 0,
                  maximum: 86400,
                  default: 60,
                  format: 'int32',
                }),
              },
              required: ['minReplicas', 'maxReplicas'],
              validations: [
                { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
              ],
            }),
            resources: Schema.object({
              description:
                "CPU and memory of the database container. Auto-tuning (postgresql.autoTune) derives the memory and connection settings from limits.memory, else requests.memory. A change rolls the pods (the StatefulSet replaces them from the highest ordinal down). Absent: requests cpu 100m and memory 256Mi, limit memory 1Gi, and nothing derived (PostgreSQL's own defaults, as before this field existed).",
              properties: {
                requests: resourceList('Requested CPU and memory (scheduling).'),
                limits: resourceList('CPU and memory limits (memory: the container is killed beyond it).'),
              },
            }),
            postgresql: Schema.object({
              description:
                'PostgreSQL settings: derived from resources by the operator (autoTune), and your overrides (parameters). Reloadable settings are applied with a reload; settings that need a restart with a rolling restart (standbys first, then a switchover), unless autoRestart is false.',
              properties: {
                parameters: Schema.map(Schema.string({ maxLength: 1024 }), {
                  description: `PostgreSQL settings (name → value, as in postgresql.conf), applied to every instance with ALTER SYSTEM; they override the derived ones. The operator owns ${OPERATOR_OWNED_PARAMETERS.length} settings (replication, failover, listening) and refuses them here.`,
                  maxProperties: 64,
                  validations: [
                    {
                      rule: "self.all(k, k.matches('^[a-z_][a-z0-9_]*([.][a-z_][a-z0-9_]*)?$'))",
                      message:
                        'parameter names are lowercase PostgreSQL setting names (e.g. work_mem, pg_stat_statements.max)',
                    },
                    {
                      rule: `self.all(k, !(k in [${OPERATOR_OWNED_PARAMETERS.map((p) => `'${p}'`).join(', ')}]))`,
                      message: `parameters the operator owns cannot be set: ${OPERATOR_OWNED_PARAMETERS.join(', ')}`,
                    },
                  ],
                }),
                autoTune: Schema.boolean({
                  description:
                    'Derive shared_buffers, effective_cache_size, work_mem, maintenance_work_mem, max_connections, wal_buffers, min_wal_size and max_wal_size from resources and the data volume (docs/sampledb-autopilot.md). Off: only parameters are applied.',
                  default: true,
                }),
                autoRestart: Schema.boolean({
                  description:
                    'Restart instances whose settings need a restart (standbys one at a time, then a switchover so the old primary restarts as a standby). Off: status.postgresql.restartPending lists them and condition ParametersApplied says so; nothing restarts.',
                  default: true,
                }),
              },
            }),
            restoreFrom: Schema.object({
              description:
                'A backup to restore into this database once it is initialized: one of any SampleDB in this namespace, including a deleted one whose backup volume (<sampleDB>-backups) remains.',
              properties: {
                sampleDB: Schema.string({
                  description:
                    'The SampleDB whose backup volume holds the backup (it may be deleted). Defaults to this database.',
                  pattern: BACKUP_NAME_PATTERN,
                  maxLength: 40,
                }),
                backup: Schema.string({
                  description:
                    'Backup name, as in status.lastBackup.name of that SampleDB (or <sampleDB>-final-snapshot).',
                  pattern: BACKUP_NAME_PATTERN,
                  maxLength: 63,
                }),
              },
              required: ['backup'],
            }),
          },
          required: ['version'],
          validations: [
            {
              rule: '!has(self.backupRetention) || has(self.backupSchedule)',
              message: 'backupRetention needs a backupSchedule',
              fieldPath: '.backupRetention',
            },
          ],
        }),
        status: Schema.object({
          description: 'Observed state, written by the operator.',
          properties: {
            replicas: Schema.integer({ description: 'Pods created for this database.', format: 'int32' }),
            readyReplicas: Schema.integer({ description: 'Pods ready to serve.', format: 'int32' }),
            labelSelector: Schema.string({
              description: 'Selector of the database pods (for the scale subresource and HPAs).',
            }),
            phase: Schema.string({
              description: 'Lifecycle phase.',
              enum: ['Pending', 'Creating', 'Running', 'Upgrading', 'Restoring', 'Deleting', 'Failed'],
            }),
            currentVersion: Schema.string({ description: 'The version the StatefulSet runs.' }),
            lastBackup: Schema.object({
              description: 'The most recent successful backup.',
              properties: {
                name: Schema.string({ description: 'Backup name (usable in spec.restoreFrom).' }),
                type: Schema.string({
                  description: 'What made it.',
                  enum: ['Scheduled', 'PreUpgrade', 'FinalSnapshot'],
                }),
                completionTime: Schema.string({ description: 'When the backup Job completed.', format: 'date-time' }),
              },
            }),
            restoredFrom: Schema.string({ description: 'The backup most recently restored into this database.' }),
            currentPrimary: Schema.string({
              description: 'The pod that is the primary (selected by the <name>-rw Service).',
            }),
            targetPrimary: Schema.string({
              description: 'The pod being made primary by a failover or switchover in progress.',
            }),
            targetPrimarySince: Schema.string({
              description: 'When the failover or switchover in progress started.',
              format: 'date-time',
            }),
            primaryUnavailableSince: Schema.string({
              description: 'Since when the primary has been unavailable (failover after spec.failoverDelaySeconds).',
              format: 'date-time',
            }),
            timeline: Schema.integer({
              description:
                'The newest PostgreSQL timeline ID of this database: one an instance was seen on or a promotion reserved. A promotion takes a higher one, also when the standby promoted never learned of the last promotion (it is given placeholder history files up to this ID first): two promotions never share an ID, which pg_rewind could not tell apart.',
              format: 'int64',
              minimum: 1,
            }),
            synchronousStandbys: Schema.array(
              Schema.object({
                properties: {
                  name: Schema.string({ description: 'Pod name.', maxLength: 63 }),
                  leftAtLsn: Schema.string({
                    description:
                      "The primary's WAL position when this standby was first seen no longer streaming: it stays in the list until a standby that streams has flushed past it.",
                    maxLength: 32,
                  }),
                },
                required: ['name'],
              }),
              {
                description:
                  'With spec.synchronous: the standbys that may hold acknowledged commits the others lack (streaming from the primary when it last answered, or since stopped). A failover waits until each answers; spec.synchronous: false fails over without them.',
                listType: 'map',
                listMapKeys: ['name'],
                maxItems: 16,
              },
            ),
            instances: Schema.array(
              Schema.object({
                properties: {
                  name: Schema.string({ description: 'Pod name.', maxLength: 63 }),
                  role: Schema.string({
                    description: 'What PostgreSQL in the pod reports.',
                    enum: ['primary', 'standby', 'unknown'],
                  }),
                  ready: Schema.boolean({ description: 'The pod is ready.' }),
                  timeline: Schema.integer({
                    description: 'PostgreSQL timeline (it grows with every promotion).',
                    format: 'int64',
                  }),
                  lagBytes: Schema.integer({
                    description: 'WAL bytes the primary has that this standby has not replayed.',
                    format: 'int64',
                  }),
                },
                required: ['name', 'role', 'ready'],
              }),
              {
                description: 'Each database pod: its role, readiness, timeline and replication lag.',
                listType: 'map',
                listMapKeys: ['name'],
                maxItems: 16,
              },
            ),
            storage: Schema.object({
              description:
                'Use of the data volumes, as PostgreSQL reports it (databases and WAL), against the smallest data claim.',
              properties: {
                capacity: Schema.string({ description: 'Capacity of the smallest data volume claim.' }),
                usedPercent: Schema.integer({
                  description: 'Percent of it the database uses (whole percent).',
                  format: 'int32',
                }),
              },
            }),
            autoscaling: Schema.object({
              description:
                'Replica auto-scaling (spec.autoscaling): when it last scaled, and since when the load is below the target.',
              properties: {
                lastScaleTime: Schema.string({
                  description: 'When the operator last changed spec.replicas.',
                  format: 'date-time',
                }),
                belowTargetSince: Schema.string({
                  description: 'Since when the connection use has been below the target (scale-in after the window).',
                  format: 'date-time',
                }),
              },
            }),
            postgresql: Schema.object({
              description: 'The PostgreSQL settings the operator applies, and the instances still running older ones.',
              properties: {
                parameters: Schema.map(Schema.string(), {
                  description:
                    'Every setting the operator applies (derived, then spec.postgresql.parameters), as written with ALTER SYSTEM.',
                }),
                tunedForMemory: Schema.string({
                  description: 'The memory the derived settings were computed from (absent: nothing derived).',
                }),
                restartPending: Schema.array(Schema.string(), {
                  description:
                    'Instances whose PostgreSQL needs a restart to run the applied settings (pg_settings.pending_restart).',
                  maxItems: 16,
                }),
              },
            }),
            observedGeneration: Schema.integer({
              description: 'The .metadata.generation this status describes.',
              format: 'int64',
            }),
            conditions: conditionsSchema(),
          },
        }),
        printerColumns: [
          { name: 'Version', type: 'string', jsonPath: '.spec.version' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
          { name: 'Primary', type: 'string', jsonPath: '.status.currentPrimary' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        subresources: {
          status: true,
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.labelSelector',
          },
        },
      },
    ],
  });
}

function resourceList(description: string) {
  return Schema.object({
    description,
    properties: {
      cpu: Schema.string({ description: 'CPU, e.g. 500m or 2.', pattern: CPU_PATTERN, maxLength: 16 }),
      memory: Schema.string({ description: 'Memory, e.g. 512Mi or 2Gi.', pattern: QUANTITY_PATTERN, maxLength: 32 }),
    },
  });
}

/**
 * `v1` as released in 0.1.0, unchanged (the evolution guard compares it with crd-baselines/ and refuses
 * any breaking change to it): v1 clients and manifests keep working. What v1 cannot express (v2's
 * `restoreFrom.sampleDB`, replication and failover fields, the instances in status) survives a v1 round
 * trip in the annotation `database.example.com/conversion-data`.
 */
const V1_0_1_0: CrdVersionProps = {
  name: 'v1',
  served: true,
  storage: false,
  spec: Schema.object({
    description: 'Desired state of a PostgreSQL database.',
    properties: {
      version: Schema.string({
        description:
          'PostgreSQL version, e.g. "16" or "16.4"; the major version picks the image. Major versions can only go up.',
        pattern: VERSION_PATTERN,
        maxLength: 16,
        validations: [
          {
            rule: "int(self.split('.')[0]) >= int(oldSelf.split('.')[0])",
            message: 'major version downgrades are not supported',
          },
        ],
      }),
      replicas: Schema.integer({
        description: 'Number of database pods.',
        minimum: 1,
        maximum: 9,
        default: 1,
        format: 'int32',
      }),
      backupSchedule: Schema.string({
        description: 'Cron schedule of regular backups, e.g. "0 2 * * *". No backups when absent.',
        pattern: CRON_PATTERN,
        maxLength: 64,
      }),
      backupRetention: Schema.integer({
        description: 'How many scheduled backups to keep.',
        minimum: 1,
        maximum: 365,
        format: 'int32',
      }),
      storage: Schema.string({
        description:
          'Size of each data volume (a Kubernetes quantity). Immutable: StatefulSet volume claim templates cannot change.',
        default: '1Gi',
        pattern: QUANTITY_PATTERN,
        maxLength: 32,
        validations: [{ rule: 'self == oldSelf', message: 'storage is immutable' }],
      }),
      backupStorage: Schema.string({
        description: 'Size of the backup volume (a Kubernetes quantity). Immutable.',
        default: '2Gi',
        pattern: QUANTITY_PATTERN,
        maxLength: 32,
        validations: [{ rule: 'self == oldSelf', message: 'backupStorage is immutable' }],
      }),
      volumeRetention: Schema.string({
        description:
          'What happens to the data volumes when the SampleDB is deleted (after the final snapshot): Delete or Retain. The backup volume is always retained.',
        enum: ['Delete', 'Retain'],
        default: 'Delete',
      }),
      restoreFrom: Schema.string({
        description:
          'Name of a backup (as in status.lastBackup.name) to restore into this database once it is initialized.',
        pattern: BACKUP_NAME_PATTERN,
        maxLength: 63,
      }),
    },
    required: ['version'],
    validations: [
      {
        rule: '!has(self.backupRetention) || has(self.backupSchedule)',
        message: 'backupRetention needs a backupSchedule',
        fieldPath: '.backupRetention',
      },
    ],
  }),
  status: Schema.object({
    description: 'Observed state, written by the operator.',
    properties: {
      replicas: Schema.integer({ description: 'Pods created for this database.', format: 'int32' }),
      readyReplicas: Schema.integer({ description: 'Pods ready to serve.', format: 'int32' }),
      labelSelector: Schema.string({
        description: 'Selector of the database pods (for the scale subresource and HPAs).',
      }),
      phase: Schema.string({
        description: 'Lifecycle phase.',
        enum: ['Pending', 'Creating', 'Running', 'Upgrading', 'Restoring', 'Deleting', 'Failed'],
      }),
      currentVersion: Schema.string({ description: 'The version the StatefulSet runs.' }),
      lastBackup: Schema.object({
        description: 'The most recent successful backup.',
        properties: {
          name: Schema.string({ description: 'Backup name (usable in spec.restoreFrom).' }),
          type: Schema.string({ description: 'What made it.', enum: ['Scheduled', 'PreUpgrade', 'FinalSnapshot'] }),
          completionTime: Schema.string({ description: 'When the backup Job completed.', format: 'date-time' }),
        },
      }),
      restoredFrom: Schema.string({ description: 'The backup most recently restored into this database.' }),
      observedGeneration: Schema.integer({
        description: 'The .metadata.generation this status describes.',
        format: 'int64',
      }),
      conditions: conditionsSchema(),
    },
  }),
  printerColumns: [
    { name: 'Version', type: 'string', jsonPath: '.spec.version' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  subresources: {
    status: true,
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.labelSelector',
    },
  },
};

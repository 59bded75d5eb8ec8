// The public API of `cdk8s-operator/runtime`: exactly what runtime/README.md documents under
// "Public API" (test/runtime/public-api.test.ts compares the two). Everything else is internal:
// import it from its module inside this repository if a test needs it.

// Wiring: manager, controllers, the contract
export { leaderElectionNamespace, Manager } from './manager';
export type { ManagerLeaderElectionOptions, ManagerOptions, ManagerShardingOptions } from './manager';
export { rendezvousOwner, SHARD_RING_LABEL, SHARD_VIEW_ANNOTATION, shardKeyOf } from './sharding';
export type { ShardKey } from './sharding';
export { Controller, ControllerBuilder } from './controller';
export type { ControllerOptions, ShardGate, MapFunc, ReconcileContext, Reconciler, Request, Result, SourceOptions } from './controller';
export { ContractViolationError, defineContract } from './contract';
export type { ControllerContract, NetworkPeer } from './contract';
export type { SharedInformer } from './namespaced-informers';
export type { EventHandler, InformerOptions } from './informer';
export type { HealthCheck } from './health';
export { DEFAULT_CONCURRENCY, parseManagerFlags, parseWatchNamespace, runControllerBinary, startControllerBinary } from './cli';
export type { ControllerBinary, ManagerFlags } from './cli';
export { LeaderElectionForbiddenError } from './leader-election';
export { LeaderGuardedClient, NotLeaderError } from './leader-guard';

// Reading: typed stores
export { resourceRef, storeOf } from './store';
export {
  CONFIGMAP, CRONJOB, DAEMONSET, DEPLOYMENT, INGRESS, JOB, LEASE, NETWORKPOLICY, PERSISTENTVOLUMECLAIM, POD, PODDISRUPTIONBUDGET,
  ROLE, ROLEBINDING, SECRET, SERVICE, SERVICEACCOUNT, STATEFULSET,
} from './builtins';
export type {
  BuiltinObject, ConfigMap, CronJob, DaemonSet, Deployment, Ingress, Job, Lease, NetworkPolicy, PersistentVolumeClaim, Pod,
  PodDisruptionBudget, Role, RoleBinding, Secret, Service, ServiceAccount, StatefulSet, Wire,
} from './builtins';
export type { CacheReader, Store, Stored, StoredMeta, TypedResourceRef } from './store';
export { keepFields, stripForCache } from './cache-transform';
export type { CacheOptions, CacheTransform, FieldMask } from './cache-transform';

// Writing: clients and helpers
export { ReadYourWritesClient } from './read-your-writes';
export type { ReadYourWritesOptions } from './read-your-writes';
export { RestClient, retryOnConflict } from './client';
export type {
  DeleteOptions, JsonPatchOperation, KubeClient, ListOptions, ListResult, Patch, PatchOptions, RestClientOptions,
  WatchEvent, WatchEventType, WatchOptions, WatchStream, WriteOptions,
} from './client';
export { loadDefaultKubeConfig } from './client-node';
export { applyOwned } from './apply';
export type { ApplyOptions, ApplyResult } from './apply';
export { findCondition, isConditionTrue, removeCondition, setCondition, updateStatus } from './status';
export type { Condition, ConditionInput, UpdateStatusOptions } from './status';
export { addFinalizer, finalizer, removeFinalizer } from './finalizer';
export type { FinalizerHandlers } from './finalizer';
export { controllerReference, getControllerOf, isControlledBy, setControllerReference } from './owner-references';
export { getLabelOwner, labelOwnerSelector, OWNER_ANNOTATION, OWNER_UID_LABEL, setLabelOwner } from './label-owner';
export type { LabelOwnerRef } from './label-owner';
export { EventRecorder } from './events';
export type { EventInput, EventRecorderOptions, EventType } from './events';

// Errors
export {
  AlreadyOwnedError, ApiError, fromApiException, isAlreadyExists, isConflict, isForbidden, isGone, isInvalid, isNotFound, isTooManyRequests,
  TerminalError, TimeoutError,
} from './errors';
export type { KubeStatus } from './errors';

// Event filters
export { and, annotationsChanged, generationChanged, labelsChanged, or, resourceVersionChanged } from './predicates';
export type { EventKind, Predicate } from './predicates';

// Admission and conversion webhooks (runtime/webhook/)
export { WebhookServer } from './webhook/server';
export type { WebhookServerOptions } from './webhook/server';
export { allowed, denied } from './webhook/validating';
export type { AdmissionVerdict, ValidatingHandler } from './webhook/validating';
export type { DefaultingHandler } from './webhook/defaulting';
export { ADMISSION_REVIEW_API_VERSION } from './webhook/admission-review';
export type { AdmissionOperation, AdmissionRequest, AdmissionResponse, AdmissionReview, AdmissionUserInfo } from './webhook/admission-review';
export { CONVERSION_PATH, CONVERSION_REVIEW_API_VERSION } from './webhook/conversion-review';
export type { ConversionHandler, ConversionRequest, ConversionResponse, ConversionReview } from './webhook/conversion-review';
export { staticCertificate } from './webhook/certificate-source';
export type { CertificateSource, ServingCertificate } from './webhook/certificate-source';
export { createCertificateAuthority, createServingCertificate } from './webhook/certificates';
export { SecretCertificateSource } from './webhook/secret-certificate-source';
export type { SecretCertificateSourceOptions } from './webhook/secret-certificate-source';
export { SelfManagedCertificates } from './webhook/self-managed-certificates';
export type { RotationRound, SelfManagedCertificatesOptions } from './webhook/self-managed-certificates';
export { injectCaBundle } from './webhook/ca-injection';
export type { CaBundleTarget } from './webhook/ca-injection';
export type { CertificateAuthorityOptions, KeyPair, ServingCertificateOptions } from './webhook/certificates';
export { webhookPath } from '../lib/apimachinery/webhook-path';
export type { WebhookType } from '../lib/apimachinery/webhook-path';

// CRD conversion (hub and spokes) and storage version migration (runtime/conversion/)
export { ConversionError, conversionBinary, conversionHandler, convertObjects, crdNameOf, defineConversion, handleConversionReview, MIGRATED_CONDITION, MIGRATION_ANNOTATION, setupConversion, StorageVersionMigrator, storageMigrationRunnable, webhookEnvironment } from './conversion';
export type { ConversionProps, KindConversion, MigrationClient, MigrationResult, ServedConversion, SetupConversionOptions, SpokeConversion, StorageMigrationRunnableOptions, StorageVersionMigratorOptions, WebhookEnvironment } from './conversion';
export type { LeaderRunnable } from './manager';
export type { ListPage } from './client';

// Objects, logging, metrics
export { groupKind, objectKey, parseApiVersion, parseObjectKey } from './resource';
export type { KubeObject, ObjectKeyRef, ObjectMeta, OwnerReference, ResourceRef } from './resource';
export { createLogger, silentLogger } from './log';
export type { LogFields, Logger, LoggerOptions, LogLevel } from './log';
export { RuntimeMetrics } from './metrics';

// Cross-resource mapping: label selectors and the index of objects that select others
export { labelSelectorMatches, labelSelectorProblems } from './label-selector';
export type { Labels, LabelSelector, LabelSelectorRequirement } from './label-selector';
export { LabelSelectorIndex, SelectorIndex } from './selector-index';
export type { SelectorIndexOptions } from './selector-index';

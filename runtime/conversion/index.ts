/** CRD conversion (hub and spokes, lossless), the ConversionReview handler and storage version migration. */
export { ConversionError, defineConversion } from './define-conversion';
export type { ConversionProps, KindConversion, SpokeConversion } from './define-conversion';
export { conversionHandler, convertObjects, handleConversionReview } from './conversion-review';
export {
  CRD_RESOURCE,
  IN_TREE_MIGRATION_API_VERSIONS,
  MIGRATED_CONDITION,
  MIGRATION_ANNOTATION,
  MIGRATION_GENERATION_ANNOTATION,
  StorageVersionMigrator,
  storageMigrationRunnable,
} from './storage-migrator';
export type {
  MigrationClient,
  MigrationResult,
  StorageMigrationRunnableOptions,
  StorageVersionMigratorOptions,
} from './storage-migrator';
export { conversionBinary, crdNameOf, setupConversion, webhookEnvironment } from './setup';
export type { ServedConversion, SetupConversionOptions, WebhookEnvironment } from './setup';

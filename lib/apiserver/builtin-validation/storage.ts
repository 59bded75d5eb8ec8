import { REPLICATION_CONTROLLER_VALIDATORS } from './replication-controller';
import { persistentVolumeClaimIssues } from './storage-claims';
import { STORAGE_CLASS_VALIDATORS } from './storage-classes';
import { CSI_DRIVER_VALIDATORS } from './storage-csi-driver';
import { PERSISTENT_VOLUME_VALIDATORS } from './storage-volumes';
import { BuiltinValidators } from './validator';

/*
 * The storage kinds' create-time validation: v1 PersistentVolumeClaim and PersistentVolume (pkg/apis/core/validation), storage.k8s.io/v1
 * StorageClass and CSIDriver (pkg/apis/storage/validation); with them the v1 ReplicationController, the core group's
 * one workload (its pod template is pod-spec.ts's). Measured on 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation/storage-differential).
 */

/** @internal */
export const STORAGE_VALIDATORS: BuiltinValidators = {
  'v1/PersistentVolumeClaim': persistentVolumeClaimIssues,
  ...STORAGE_CLASS_VALIDATORS,
  ...CSI_DRIVER_VALIDATORS,
  ...PERSISTENT_VOLUME_VALIDATORS,
  ...REPLICATION_CONTROLLER_VALIDATORS,
};

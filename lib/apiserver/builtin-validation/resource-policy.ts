import { LIMIT_RANGE_VALIDATORS } from './resource-policy-limit-range';
import { RESOURCE_QUOTA_VALIDATORS } from './resource-policy-quota';
import { BuiltinValidators } from './validator';

/*
 * The namespace resource policies' create-time validation: v1 LimitRange and ResourceQuota (pkg/apis/core/validation).
 * Measured on 1.28, 1.32 and 1.36 (test/apiserver/builtin-validation/resource-policy-differential).
 */

/** @internal */
export const RESOURCE_POLICY_VALIDATORS: BuiltinValidators = {
  ...LIMIT_RANGE_VALIDATORS,
  ...RESOURCE_QUOTA_VALIDATORS,
};

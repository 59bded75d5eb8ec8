import { BuiltinValidators } from './validator';

/** @internal */
export const RBAC_VALIDATORS: BuiltinValidators = {};

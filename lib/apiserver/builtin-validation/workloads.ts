import { BuiltinValidators } from './validator';

/** @internal */
export const WORKLOAD_VALIDATORS: BuiltinValidators = {};

import { BuiltinValidators } from './validator';

/** @internal */
export const POLICY_VALIDATORS: BuiltinValidators = {};

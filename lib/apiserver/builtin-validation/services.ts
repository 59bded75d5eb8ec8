import { BuiltinValidators } from './validator';

/** @internal */
export const SERVICE_VALIDATORS: BuiltinValidators = {};

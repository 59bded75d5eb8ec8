import { BuiltinValidators } from './validator';

/** @internal */
export const NETWORKING_VALIDATORS: BuiltinValidators = {};

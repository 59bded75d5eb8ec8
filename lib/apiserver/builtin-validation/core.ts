import { BuiltinValidators } from './validator';

/** @internal */
export const CORE_VALIDATORS: BuiltinValidators = {};

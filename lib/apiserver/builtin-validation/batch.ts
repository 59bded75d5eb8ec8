import { BuiltinValidators } from './validator';

/** @internal */
export const BATCH_VALIDATORS: BuiltinValidators = {};

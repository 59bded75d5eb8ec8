import { BuiltinValidators } from './validator';

/** @internal */
export const AUTOSCALING_VALIDATORS: BuiltinValidators = {};

/**
 * cel-go's cost arithmetic (`checker.SizeEstimate` / `checker.CostEstimate`): unsigned 64-bit ranges that
 * saturate at the maximum instead of overflowing. BigInt keeps every value exact, as in Go; conversions
 * to floating point happen exactly where cel-go converts to float64.
 */
export interface Range {
  readonly min: bigint;
  readonly max: bigint;
}

export const MAX_UINT64 = (1n << 64n) - 1n;
const TWO_TO_64 = 2 ** 64;

/** cel-go `common` cost constants (v0.22). */
export const SELECT_AND_IDENT_COST = 1n;
export const CONST_COST = 0n;
export const LIST_CREATE_BASE_COST = 10n;
export const MAP_CREATE_BASE_COST = 30n;
export const STRUCT_CREATE_BASE_COST = 40n;
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

export const range = (min: bigint, max: bigint = min): Range => ({ min, max });
export const ZERO: Range = range(0n);
export const ONE: Range = range(1n);
export const UNKNOWN_SIZE: Range = range(0n, MAX_UINT64);

function addU64(x: bigint, y: bigint): bigint {
  return y > 0n && x > MAX_UINT64 - y ? MAX_UINT64 : x + y;
}

function mulU64(x: bigint, y: bigint): bigint {
  return y !== 0n && x > MAX_UINT64 / y ? MAX_UINT64 : x * y;
}

/** `multiplyByCostFactor`: float64(x) * factor, rounded up. */
function mulFactor(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return MAX_UINT64;
  const ceil = Math.ceil(xf * factor);
  if (ceil >= TWO_TO_64) return MAX_UINT64;
  return BigInt(ceil);
}

export const add = (a: Range, b: Range): Range => range(addU64(a.min, b.min), addU64(a.max, b.max));
export const multiply = (a: Range, b: Range): Range => range(mulU64(a.min, b.min), mulU64(a.max, b.max));
export const multiplyByCostFactor = (a: Range, factor: number): Range =>
  range(mulFactor(a.min, factor), mulFactor(a.max, factor));
export const union = (a: Range, b: Range): Range => range(b.min < a.min ? b.min : a.min, b.max > a.max ? b.max : a.max);
export const sum = (xs: readonly Range[]): Range => xs.reduce(add, ZERO);

/** `multiplyWithOverflowGuard` of the apiextensions validation (cost × cardinality). */
export function multiplyWithOverflowGuard(cost: bigint, cardinality: bigint): bigint {
  if (cost === 0n) return 0n;
  return MAX_UINT64 / cost < cardinality ? MAX_UINT64 : cost * cardinality;
}

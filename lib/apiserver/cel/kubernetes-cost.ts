import { CelType } from './cel-types';
import type { CostNode } from './cost-estimate';
import {
  add,
  MAX_UINT64,
  multiply,
  multiplyByCostFactor,
  ONE,
  Range,
  range,
  REGEX_STRING_LENGTH_COST_FACTOR,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  ZERO,
} from './cost-units';

/** Where the library estimator gets sizes the expression does not know (the apiextensions size estimator). */
export interface SizeSource {
  estimateSize(node: CostNode): Range | undefined;
}

/** apiserver/pkg/cel/limits.go */
const MAX_FORMAT_SIZE = 64n;
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

/**
 * The Kubernetes CEL libraries' static costs: a port of `CostEstimator.EstimateCallCost` of
 * k8s.io/apiserver v0.32 `pkg/cel/library/cost.go`. Undefined where that returns nil (cel-go's own
 * estimate applies; `options.libraryTypeEquality`: whether the version has the `==` estimate of the library's types).
 * `target` is the receiver of a member call; cel-go always passes a non-nil pointer,
 * so the Go code's `target != nil` tests are always true and are left out.
 */
export function kubernetesCallCost(
  sizes: SizeSource,
  fn: string,
  overload: string,
  target: CostNode | undefined,
  args: readonly CostNode[],
  options: { readonly libraryTypeEquality: boolean } = { libraryTypeEquality: true },
): { cost: Range; resultSize?: Range } | undefined {
  const sizeEstimate = (n: CostNode): Range => n.computedSize ?? sizes.estimateSize(n) ?? UNKNOWN_SIZE;
  const traversal = (size: Range, times = 1): Range => multiplyByCostFactor(size, times * STRING_TRAVERSAL_COST_FACTOR);
  switch (fn) {
    case 'check':
      // an authorization check has a fixed cost, which allows two of them per expression
      return { cost: range(350000n) };
    case 'serviceAccount':
    case 'path':
    case 'group':
    case 'resource':
    case 'subresource':
    case 'namespace':
    case 'name':
    case 'allowed':
    case 'reason':
    case 'error':
    case 'errored':
      return { cost: ONE };
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      if (!target) return undefined;
      const element = listElementNode(target);
      if (element) {
        // 1 per element compared, plus the traversal of string and bytes elements
        let elementCost = ONE;
        if (element.type.kind === 'string' || element.type.kind === 'bytes') {
          elementCost = add(elementCost, traversal(sizeEstimate(element)));
        }
        return { cost: multiply(sizeEstimate(target), elementCost) };
      }
      // a string target (indexOf, lastIndexOf)
      return { cost: traversal(sizeEstimate(target)) };
    }
    case 'url':
    case 'jsonpatch.escapeKey':
      if (args.length === 1) {
        const size = sizeEstimate(args[0]);
        return { cost: traversal(size), resultSize: size };
      }
      return undefined;
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (target) {
        const size = sizeEstimate(target);
        return { cost: traversal(size), resultSize: size };
      }
      return undefined;
    case 'replace':
      if (target && args.length >= 2) {
        return replaceCost(sizeEstimate(target), sizeEstimate(args[0]), sizeEstimate(args[1]), traversal);
      }
      return undefined;
    case 'split':
      if (target) {
        const size = sizeEstimate(target);
        // worst case: a "" separator returns every character as an element, unless a constant limit says less
        let max = size.max;
        const limit = args[1]?.expr?.exprKind;
        if (args.length > 1 && limit?.case === 'constExpr' && limit.value.constantKind.case === 'int64Value') {
          max = BigInt.asUintN(64, BigInt(limit.value.constantKind.value as bigint));
        }
        return { cost: traversal(size, 2), resultSize: range(0n, max) };
      }
      return undefined;
    case 'join':
      if (target) {
        let size = ZERO;
        const listSize = sizeEstimate(target);
        const element = listElementNode(target);
        if (element) size = multiply(listSize, sizeEstimate(element));
        if (args.length > 0) {
          const separators = range(
            listSize.min > 0n ? listSize.min - 1n : 0n,
            listSize.max > 0n ? listSize.max - 1n : 0n,
          );
          size = add(size, multiply(sizeEstimate(args[0]), separators));
        }
        return { cost: traversal(size), resultSize: size };
      }
      return undefined;
    case 'find':
    case 'findAll':
      if (target && args.length >= 1) {
        const size = sizeEstimate(target);
        // one more than the string length so that an empty string with an expensive regex is not free;
        // a regex is assumed to have one expression per 4 characters
        const strCost = traversal(add(size, ONE));
        const regexCost = multiplyByCostFactor(sizeEstimate(args[0]), REGEX_STRING_LENGTH_COST_FACTOR);
        return { cost: multiply(strCost, regexCost), resultSize: range(0n, size.max) };
      }
      return undefined;
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
      return { cost: traversal(sizeEstimate(args[0])) };
    case 'ip':
      if (args.length >= 1) {
        // the IP of a CIDR is a field access
        if (overload === 'cidr_ip') return { cost: ONE };
        return { cost: traversal(sizeEstimate(args[0])) };
      }
      return { cost: ONE };
    case 'ip.isCanonical':
      // parse, then compare with the original
      if (args.length >= 1) return { cost: traversal(sizeEstimate(args[0]), 2) };
      return undefined;
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return { cost: ONE };
    case 'containsIP':
    case 'containsCIDR':
      if (target && args.length >= 1) {
        // comparing two IPv4 or IPv6 byte lists
        const ipSize = range(4n, 16n);
        let cost = traversal(add(ipSize, ipSize));
        if (fn === 'containsCIDR') cost = add(add(cost, traversal(ipSize)), ONE); // masking and the prefix bits
        if (overload === 'cidr_contains_ip_string' || overload === 'cidr_contains_cidr_string') {
          cost = add(cost, traversal(sizeEstimate(args[0])));
        }
        return { cost };
      }
      return undefined;
    case 'quantity':
    case 'isQuantity':
      return { cost: traversal(sizeEstimate(args[0])) };
    case 'validate':
      return {
        cost: multiplyByCostFactor(
          traversal(sizeEstimate(args[0])),
          MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR,
        ),
      };
    case 'format.named':
    case 'sign':
    case 'asInteger':
    case 'isInteger':
    case 'asApproximateFloat':
    case 'isGreaterThan':
    case 'isLessThan':
    case 'compareTo':
    case 'add':
    case 'sub':
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
      return { cost: ONE };
    case '_==_':
      // not before 1.31 (APISERVER_CHANGES.libraryTypeEqualityCost): cel-go's estimate applies
      if (args.length === 2 && options.libraryTypeEquality) return libraryTypeEquality(args[0], args[1]);
      return undefined;
  }
  return undefined;
}

/** Equality of the Kubernetes library's own types: O(1), except formats and URLs. */
function libraryTypeEquality(lhs: CostNode, rhs: CostNode): { cost: Range } | undefined {
  const l = lhs.type;
  const r = rhs.type;
  if (l.kind !== 'opaque' || r.kind !== 'opaque' || l.name !== r.name) return undefined;
  switch (l.name) {
    case 'IP':
    case 'CIDR':
    case 'Quantity':
    case 'Semver':
      return { cost: ONE };
    case 'Format':
      return { cost: multiplyByCostFactor(range(1n, MAX_FORMAT_SIZE), STRING_TRAVERSAL_COST_FACTOR) };
    case 'URL': {
      // as in the Go code, both sizes are read from the right-hand side
      const size = rhs.computedSize ? rhs.computedSize : ONE;
      return { cost: multiplyByCostFactor(range(1n, size.max), STRING_TRAVERSAL_COST_FACTOR) };
    }
  }
  return undefined;
}

function replaceCost(
  size: Range,
  toReplace: Range,
  replaceWith: Range,
  traversal: (s: Range, times?: number) => Range,
): { cost: Range; resultSize: Range } {
  let countMax: bigint;
  let countMin: bigint;
  let retainedMax = 0n;
  let retainedMin = 0n;
  // the longest result
  if (toReplace.min === 0n) {
    // replacing "" surrounds every character with the replacement
    countMax = size.max < MAX_UINT64 ? size.max + 1n : size.max;
    retainedMax = size.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0n;
    retainedMax = size.max;
  } else {
    countMax = BigInt(Math.ceil(Number(size.max) / Number(toReplace.min)));
  }
  // the shortest result
  if (toReplace.max === 0n) {
    countMin = size.min < MAX_UINT64 ? size.min + 1n : size.min;
    retainedMin = size.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0n;
    retainedMin = size.min;
  } else {
    countMin = BigInt(Math.ceil(Number(size.min) / Number(toReplace.max)));
  }
  const resultSize = add(multiply(range(countMin, countMax), replaceWith), range(retainedMin, retainedMax));
  // the traversal plus building the result
  return { cost: traversal(size, 2), resultSize };
}

/** `listElementNode`: the element of a list-typed node, with the path extended by `@items` when the list has one. */
function listElementNode(list: CostNode): CostNode | undefined {
  const params = typeParameters(list.type);
  if (params.length === 0) return undefined;
  return { path: list.path ? [...list.path, '@items'] : undefined, type: params[0] };
}

/** cel-go `Type.Parameters()`: list(E) → [E], map(K, V) → [K, V], optional(T) → [T]. */
export function typeParameters(t: CelType): CelType[] {
  switch (t.kind) {
    case 'list':
      return [t.elem];
    case 'map':
      return [t.key, t.value];
    case 'opaque':
      return t.of ? [t.of] : [];
    default:
      return [];
  }
}

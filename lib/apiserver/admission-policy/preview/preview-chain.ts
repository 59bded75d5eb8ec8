import {
  BindingForPreview,
  MutationPreview,
  MutationTarget,
  previewMutations,
  previewThroughBinding,
} from './preview-mutations';
import { KubernetesVersion } from '../../../apimachinery/kubernetes-versions';
import { MutatingAdmissionPolicyManifest } from '../mutating-policy-manifest';

/** One policy through one of its bindings (none: as bound once, with no matchResources and params unknown). */
export interface ChainLink {
  readonly policy: MutatingAdmissionPolicyManifest;
  readonly binding?: BindingForPreview;
}

/** What several policies and bindings matching one object do to it together on create. */
export type ChainPreview =
  | { readonly outcome: 'undecided'; readonly reason: string }
  /** A link refuses the create (`failurePolicy: Fail`): its own preview says why. */
  | { readonly outcome: 'refused'; readonly by: string }
  /**
   * The object the apiserver stores, for each order it may run the links in: `results` holds each distinct outcome
   * with one order that gives it (one result: the order does not matter).
   */
  | {
      readonly outcome: 'chained';
      readonly results: ReadonlyArray<{ readonly order: readonly string[]; readonly object: Record<string, unknown> }>;
    };

/** More orders than this are not all tried: the given order and its reverse are. */
const MAX_ORDERS = 120;

/** `policy p` or `policy p through binding b`. */
export function linkName(link: ChainLink): string {
  return `policy ${link.policy.metadata.name ?? ''}${link.binding ? ` through binding ${link.binding.name}` : ''}`;
}

/**
 * The links' mutations on `target` as kube-apiserver's mutating admission policy plugin runs them together
 * (k8s.io/apiserver v0.36.3, plugin/policy/mutating/dispatcher.go, reinvocationcontext.go, admission/reinvocation.go):
 * every link that matches runs once, in order, each on the object the one before left; a link that changed the
 * object marks for reinvocation the `reinvocationPolicy: IfNeeded` links that ran before it (since the last change),
 * and those, only those, run once more in a second round, in the same order (there is no third round).
 *
 * The order is not fixed by the apiserver: policies come from a Go map of policy names (generic/policy_source.go,
 * `calculatePolicyData`), so their order changes with each reload of the policies, and a policy's bindings come in
 * its informer's list order. So every order is tried (policies in any order, a policy's bindings together in any
 * order; above MAX_ORDERS orders, the given one and its reverse), and each distinct outcome is returned.
 */
export function previewChain(
  links: readonly ChainLink[],
  target: MutationTarget,
  version: KubernetesVersion,
  candidates: readonly Record<string, unknown>[],
): ChainPreview {
  const run = (link: ChainLink, object: Record<string, unknown>): MutationPreview =>
    runLink(link, { ...target, object }, version, candidates);
  const results: Array<{ order: string[]; object: Record<string, unknown> }> = [];
  for (const order of ordersOf(links)) {
    const chained = runInOrder(order, target.object, run);
    if (chained.outcome !== 'ran') return chained;
    if (!results.some((r) => sameObject(r.object, chained.object))) {
      results.push({ order: order.map(linkName), object: chained.object });
    }
  }
  return { outcome: 'chained', results };
}

function runInOrder(
  order: readonly ChainLink[],
  start: Record<string, unknown>,
  run: (link: ChainLink, object: Record<string, unknown>) => MutationPreview,
): ChainPreview | { outcome: 'ran'; object: Record<string, unknown> } {
  let object = start;
  // the IfNeeded links invoked since the last change, and those a later change marked for the second round
  let invokedSinceChange = new Set<ChainLink>();
  const reinvoke = new Set<ChainLink>();
  const round = (second: boolean): ChainPreview | undefined => {
    for (const link of order) {
      if (second && !reinvoke.has(link)) continue;
      const r = run(link, object);
      if (r.outcome === 'undecided') return { outcome: 'undecided', reason: `${linkName(link)}: ${r.reason}` };
      if (r.outcome === 'not-matched') continue;
      if (r.errors.length > 0 && (link.policy.spec.failurePolicy ?? 'Fail') === 'Fail') {
        return { outcome: 'refused', by: linkName(link) };
      }
      if (!sameObject(r.object, object)) {
        for (const l of invokedSinceChange) reinvoke.add(l);
        invokedSinceChange = new Set();
      }
      if (link.policy.spec.reinvocationPolicy === 'IfNeeded') invokedSinceChange.add(link);
      object = r.object;
    }
    return undefined;
  };
  const first = round(false);
  if (first) return first;
  if (reinvoke.size > 0) {
    const second = round(true);
    if (second) return second;
  }
  return { outcome: 'ran', object };
}

/** One link alone on `target` (its policy through its binding, or as bound once). */
export function runLink(
  link: ChainLink,
  target: MutationTarget,
  version: KubernetesVersion,
  candidates: readonly Record<string, unknown>[],
): MutationPreview {
  return link.binding
    ? previewThroughBinding(link.policy, target, version, link.binding, candidates)
    : previewMutations(link.policy, target, version);
}

/** The orders the apiserver may run `links` in: policies in any order, each policy's bindings together. */
function ordersOf(links: readonly ChainLink[]): ChainLink[][] {
  const groups = [...new Set(links.map((l) => l.policy.metadata.name ?? ''))].map((name) =>
    links.filter((l) => (l.policy.metadata.name ?? '') === name),
  );
  const count = groups.reduce((n, g) => n * factorial(g.length), factorial(groups.length));
  if (count > MAX_ORDERS) return [[...links], [...links].reverse()];
  const groupOrders = groups.map((g) => permutations(g));
  return permutations(groups.map((_, i) => i)).flatMap((policyOrder) =>
    policyOrder.reduce<ChainLink[][]>(
      (orders, i) => orders.flatMap((o) => groupOrders[i].map((g) => [...o, ...g])),
      [[]],
    ),
  );
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

function factorial(n: number): number {
  return n <= 1 ? 1 : n * factorial(n - 1);
}

/** Deep equality of two JSON objects (map keys in any order). */
function sameObject(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

import * as pluralize from 'pluralize';

/**
 * The resource name (`spec.names.plural`) for a kind: the English plural of its last word, all lowercase,
 * e.g. `NetworkPolicy` → `networkpolicies`, `Proxy` → `proxies`, `Status` → `statuses`, `SampleDB` → `sampledbs`.
 * Never a blind "+s" (`policys`); irregular or ambiguous kinds should set `plural` explicitly.
 *
 * @internal
 */
export function pluralOf(kind: string): string {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) {
    throw new Error(
      `'kind' must be alphanumeric and start with a letter to derive a plural, got ${JSON.stringify(kind)}`,
    );
  }
  const words = kind.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [kind];
  const last = words[words.length - 1];
  const head = kind.slice(0, kind.length - last.length);
  const lastPlural = /^[0-9]+$/.test(last) ? `${last}s` : pluralize.plural(last.toLowerCase());
  return `${head}${lastPlural}`.toLowerCase();
}

/** The singular resource name (`spec.names.singular`): the kind in lowercase. @internal */
export function singularOf(kind: string): string {
  return kind.toLowerCase();
}

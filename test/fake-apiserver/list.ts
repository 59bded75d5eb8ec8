/** LIST and DELETE-collection reads: selectors, paging with apiserver continue tokens, snapshots, Tables. */
import { Registry } from './registry';
import { ResourceInfo, apiVersionOf } from './resources';
import { allowedFieldLabels, parseFieldSelector, parseLabelSelector } from './selectors';
import { badRequest, expired } from './status';
import { Store, objectKey } from './store';
import { toTable, wantsTable } from './table';

export function fieldLabels(r: ResourceInfo): Set<string> {
  return allowedFieldLabels(r.storageKey, r.selectableFields);
}

/** Objects of a resource matching the request's label and field selectors. */
export function selectedObjects(registry: Registry, r: ResourceInfo, namespace: string | undefined, q: URLSearchParams): any[] {
  const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
  const fields = parseFieldSelector(q.get('fieldSelector') ?? undefined, fieldLabels(r));
  return registry.listViews(r, namespace).filter((o) => labels(o) && fields(o));
}

const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** GET on a collection: the List (or Table) body. */
export function listResource(registry: Registry, store: Store, r: ResourceInfo, namespace: string | undefined, q: URLSearchParams, accept: string | undefined): any {
  const ns = r.namespaced ? namespace : undefined;
  const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
  const fields = parseFieldSelector(q.get('fieldSelector') ?? undefined, fieldLabels(r));
  const selecting = !!(q.get('labelSelector') || q.get('fieldSelector'));
  const limit = Number(q.get('limit') ?? 0);
  const cont = q.get('continue');
  let listRv = store.currentRv;
  let snapshotRv: number | undefined;
  let start = '';
  if (cont) {
    const token = decodeContinue(cont);
    if (token.rv <= store.compactionRv) throw expired(CONTINUE_EXPIRED, { continue: encodeContinue(-1, token.start) });
    listRv = token.rv;
    snapshotRv = token.rv;
    start = token.start;
  } else {
    const rv = q.get('resourceVersion');
    if (rv && q.get('resourceVersionMatch') === 'Exact') {
      if (Number(rv) <= store.compactionRv) throw expired('The resourceVersion for the provided list is too old.');
      listRv = Number(rv);
      snapshotRv = Number(rv);
    }
  }
  // continue keys are relative to the list's etcd prefix: the name within a namespace, else namespace/name
  const relKey = (o: any) => (ns !== undefined ? o.metadata.name : objectKey(o.metadata.namespace, o.metadata.name));
  let entries = registry.listViews(r, ns, snapshotRv).filter((o) => labels(o) && fields(o));
  if (start) entries = entries.filter((o) => relKey(o) >= start);
  const metadata: Record<string, any> = { resourceVersion: String(listRv) };
  let items = entries;
  if (limit > 0 && entries.length > limit) {
    items = entries.slice(0, limit);
    metadata.continue = encodeContinue(listRv, `${relKey(items[items.length - 1])}\u0000`);
    if (!selecting) metadata.remainingItemCount = entries.length - limit;
  }
  if (wantsTable(accept)) return toTable(r, items, metadata, q.get('includeObject') ?? undefined);
  if (!r.custom) {
    // Typed (built-in) lists carry no kind/apiVersion on their items; unstructured (CR) lists do.
    for (const i of items) {
      delete i.kind;
      delete i.apiVersion;
    }
    return { kind: r.listKind, apiVersion: apiVersionOf(r), metadata, items };
  }
  return { apiVersion: apiVersionOf(r), items, kind: r.listKind, metadata };
}

/** Continue tokens exactly like the apiserver's: base64url(JSON{v, rv, start}) without padding. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw new Error('bad token');
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    throw badRequest(`continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
}


import { CrdManifest, CrdVersionSpec } from '../apiserver/crd-manifest';
import { CrdChange, crdChange, CrdChangeKind as K } from './crd-change';
import { diffSchemas } from './_schema-diff';

/**
 * Every difference between a CRD and its baseline (the last released manifest) that matters to
 * clients or stored objects, each classified breaking or not. Descriptions are ignored.
 *
 * A version the baseline stored objects in (its storage version, or any in `status.storedVersions`)
 * is reported as `stored-version-removed` when it disappears: objects stored in it can no longer be
 * read until they are migrated and the version is removed from `status.storedVersions`.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/
 */
export function compareCrdManifests(baseline: CrdManifest, current: CrdManifest): CrdChange[] {
  const out: CrdChange[] = [];
  const b = baseline.spec;
  const c = current.spec;
  if (b.scope !== c.scope) out.push(crdChange(K.SCOPE_CHANGED, 'scope', `scope ${b.scope} → ${c.scope}`));
  for (const key of ['kind', 'plural', 'singular', 'listKind'] as const) {
    if (b.names?.[key] !== c.names?.[key]) out.push(crdChange(K.NAMES_CHANGED, `names.${key}`, `${key} ${b.names?.[key]} → ${c.names?.[key]}`));
  }
  for (const key of ['shortNames', 'categories'] as const) {
    const removed = (b.names?.[key] ?? []).filter(n => !(c.names?.[key] ?? []).includes(n));
    if (removed.length > 0) out.push(crdChange(K.NAMES_CHANGED, `names.${key}`, `removed ${JSON.stringify(removed)}`));
  }
  const bConversion = b.conversion?.strategy ?? 'None';
  const cConversion = c.conversion?.strategy ?? 'None';
  if (bConversion !== cConversion) out.push(crdChange(K.CONVERSION_CHANGED, 'conversion.strategy', `${bConversion} → ${cConversion}`));

  const bStorage = (b.versions ?? []).find(v => v.storage)?.name;
  const cStorage = (c.versions ?? []).find(v => v.storage)?.name;
  if (bStorage !== cStorage) {
    out.push(crdChange(K.STORAGE_VERSION_CHANGED, 'storage', `storage version ${bStorage} → ${cStorage}: objects stay stored as ${bStorage} `
      + 'until rewritten (run a storage migration before removing it from status.storedVersions)'));
  }

  const stored = new Set([...(baseline.status?.storedVersions ?? []), ...(bStorage ? [bStorage] : [])]);
  const currentVersions = new Map((c.versions ?? []).map(v => [v.name, v]));
  for (const bv of b.versions ?? []) {
    const cv = currentVersions.get(bv.name);
    if (!cv) {
      out.push(stored.has(bv.name)
        ? crdChange(K.STORED_VERSION_REMOVED, 'versions', `version ${bv.name} removed while objects may still be stored in it `
          + '(the apiserver refuses while it is in status.storedVersions; migrate storage first)', bv.name)
        : crdChange(K.VERSION_REMOVED, 'versions', `version ${bv.name} removed`, bv.name));
      continue;
    }
    out.push(...compareVersions(bv, cv));
  }
  for (const cv of c.versions ?? []) {
    if (!(b.versions ?? []).some(v => v.name === cv.name)) out.push(crdChange(K.VERSION_ADDED, 'versions', `version ${cv.name} added`, cv.name));
  }
  return out;
}

function compareVersions(b: CrdVersionSpec, c: CrdVersionSpec): CrdChange[] {
  const v = b.name;
  const out: CrdChange[] = [];
  if (b.served && !c.served) out.push(crdChange(K.VERSION_UNSERVED, 'served', 'no longer served', v));
  if (!b.deprecated && c.deprecated) out.push(crdChange(K.VERSION_DEPRECATED, 'deprecated', 'now deprecated', v));

  for (const sub of ['status', 'scale'] as const) {
    const had = b.subresources?.[sub] !== undefined;
    const has = c.subresources?.[sub] !== undefined;
    if (had && !has) out.push(crdChange(K.SUBRESOURCE_CHANGED, `subresources.${sub}`, `/${sub} subresource removed`, v));
    if (!had && has && sub === 'status') {
      out.push(crdChange(K.SUBRESOURCE_CHANGED, 'subresources.status', '/status subresource added: updates through the main endpoint now ignore status', v));
    }
    if (!had && has && sub === 'scale') out.push(crdChange(K.PRESENTATION_CHANGED, 'subresources.scale', '/scale subresource added', v));
    if (had && has && JSON.stringify(b.subresources?.[sub]) !== JSON.stringify(c.subresources?.[sub])) {
      out.push(crdChange(K.SUBRESOURCE_CHANGED, `subresources.${sub}`, `${JSON.stringify(b.subresources?.[sub])} → ${JSON.stringify(c.subresources?.[sub])}`, v));
    }
  }

  const bFields = (b.selectableFields ?? []).map(f => f.jsonPath);
  const cFields = (c.selectableFields ?? []).map(f => f.jsonPath);
  for (const f of bFields.filter(x => !cFields.includes(x))) out.push(crdChange(K.SELECTABLE_FIELD_REMOVED, f, 'selectable field removed', v));
  const addedFields = cFields.filter(x => !bFields.includes(x));
  if (addedFields.length > 0) out.push(crdChange(K.PRESENTATION_CHANGED, 'selectableFields', `selectable fields added: ${addedFields.join(', ')}`, v));
  const columns = (x: CrdVersionSpec) => JSON.stringify((x.additionalPrinterColumns ?? []).map(({ description: _d, ...rest }) => rest));
  if (columns(b) !== columns(c)) {
    const names = (x: CrdVersionSpec) => (x.additionalPrinterColumns ?? []).map(p => p.name).join(', ') || '(none)';
    out.push(crdChange(K.PRESENTATION_CHANGED, 'additionalPrinterColumns', `printer columns ${names(b)} → ${names(c)}`, v));
  }

  const bSchema = b.schema?.openAPIV3Schema;
  const cSchema = c.schema?.openAPIV3Schema;
  if (bSchema && cSchema) out.push(...diffSchemas(bSchema, cSchema, v));
  else if (bSchema && !cSchema) out.push(crdChange(K.VALIDATION_TIGHTENED, '.', 'schema removed', v));
  return out;
}

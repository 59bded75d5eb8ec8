import { diffSchemas } from './_schema-diff';
import { CrdChange, crdChange, CrdChangeKind as K } from './crd-change';
import { CrdManifest, CrdVersionSpec } from '../apiserver/crd-manifest';

/**
 * Every difference between a CRD and its baseline (the last released manifest) that matters to
 * clients or stored objects, each classified breaking or not. Descriptions are ignored.
 *
 * A version the baseline may have stored objects in (its storage version, any in its recorded
 * `status.storedVersions`, or any version at all when it records none) is reported as `stored-version-removed` when it disappears: objects stored in it can no longer be
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
    if (b.names?.[key] !== c.names?.[key]) {
      out.push(crdChange(K.NAMES_CHANGED, `names.${key}`, `${key} ${b.names?.[key]} → ${c.names?.[key]}`));
    }
  }
  for (const key of ['shortNames', 'categories'] as const) {
    const removed = (b.names?.[key] ?? []).filter((n) => !(c.names?.[key] ?? []).includes(n));
    if (removed.length > 0) out.push(crdChange(K.NAMES_CHANGED, `names.${key}`, `removed ${JSON.stringify(removed)}`));
  }
  const bConversion = b.conversion?.strategy ?? 'None';
  const cConversion = c.conversion?.strategy ?? 'None';
  if (bConversion !== cConversion) {
    out.push(
      cConversion === 'Webhook'
        ? crdChange(
            K.CONVERSION_ADDED,
            'conversion.strategy',
            `${bConversion} → ${cConversion}: the webhook must be running for reads and writes of a version other than the stored one`,
          )
        : crdChange(K.CONVERSION_CHANGED, 'conversion.strategy', `${bConversion} → ${cConversion}`),
    );
  }

  const bStorage = (b.versions ?? []).find((v) => v.storage)?.name;
  const cStorage = (c.versions ?? []).find((v) => v.storage)?.name;
  if (bStorage !== cStorage) {
    out.push(
      crdChange(
        K.STORAGE_VERSION_CHANGED,
        'storage',
        `storage version ${bStorage} → ${cStorage}: objects stay stored as ${bStorage} ` +
          `until a storage migration rewrites them; ${bStorage} stays in spec.versions until the migration removed it from status.storedVersions`,
      ),
    );
  }

  // Recorded in the baseline (status.storedVersions) once a storage migration finished everywhere; without a
  // record any version of the baseline may still hold objects (it may have been the storage version before).
  const recorded = baseline.status?.storedVersions;
  const stored = new Set([...(recorded ?? (b.versions ?? []).map((v) => v.name)), ...(bStorage ? [bStorage] : [])]);
  const retirable = (version: string) => recorded !== undefined && !stored.has(version);
  const currentVersions = new Map((c.versions ?? []).map((v) => [v.name, v]));
  for (const bv of b.versions ?? []) {
    const cv = currentVersions.get(bv.name);
    if (!cv) {
      if (stored.has(bv.name)) {
        out.push(
          crdChange(
            K.STORED_VERSION_REMOVED,
            'versions',
            `version ${bv.name} removed while objects may still be stored in it ` +
              `(the apiserver refuses while it is in status.storedVersions): keep it until a storage migration removed it and the baseline records that (${recordedHint(recorded)})`,
            bv.name,
          ),
        );
      } else if (retirable(bv.name) && !bv.served) {
        out.push(
          crdChange(
            K.VERSION_RETIRED,
            'versions',
            `version ${bv.name} removed (unserved, and not in the baseline's status.storedVersions ${JSON.stringify(recorded)})`,
            bv.name,
          ),
        );
      } else {
        out.push(crdChange(K.VERSION_REMOVED, 'versions', `version ${bv.name} removed`, bv.name));
      }
      continue;
    }
    out.push(...compareVersions(bv, cv, retirable(bv.name), recorded));
  }
  const bStorageSchema = (b.versions ?? []).find((v) => v.storage)?.schema?.openAPIV3Schema;
  for (const cv of c.versions ?? []) {
    if ((b.versions ?? []).some((v) => v.name === cv.name)) continue;
    out.push(crdChange(K.VERSION_ADDED, 'versions', `version ${cv.name} added`, cv.name));
    const cSchema = cv.schema?.openAPIV3Schema;
    if (!bStorage || !bStorageSchema || !cSchema) continue;
    // Across versions, objects written at the old storage version are read at the new one: with strategy None the
    // apiserver only rewrites apiVersion, so a field renamed or re-typed between them is lost.
    for (const d of diffSchemas(bStorageSchema, cSchema, cv.name).filter((x) => x.breaking)) {
      out.push(
        cConversion === 'Webhook'
          ? crdChange(
              K.CONVERTED_CHANGE,
              d.path,
              `${bStorage} → ${cv.name}: ${d.message} (converted by the webhook)`,
              cv.name,
            )
          : crdChange(
              K.CONVERSION_MISSING,
              d.path,
              `${bStorage} → ${cv.name}: ${d.message}, and conversion strategy is None (the apiserver only rewrites ` +
                `apiVersion, so ${bStorage} objects lose this field at ${cv.name}): declare a conversion webhook`,
              cv.name,
            ),
      );
    }
  }
  return out;
}

function recordedHint(recorded: readonly string[] | undefined): string {
  return recorded === undefined
    ? 'the baseline records no status.storedVersions'
    : `the baseline records status.storedVersions ${JSON.stringify(recorded)}`;
}

function compareVersions(
  b: CrdVersionSpec,
  c: CrdVersionSpec,
  retirable: boolean,
  recorded: readonly string[] | undefined,
): CrdChange[] {
  const v = b.name;
  const out: CrdChange[] = [];
  if (b.served && !c.served) {
    out.push(
      retirable
        ? crdChange(
            K.VERSION_RETIRED,
            'served',
            `no longer served (not in the baseline's status.storedVersions ${JSON.stringify(recorded)})`,
            v,
          )
        : crdChange(
            K.VERSION_UNSERVED,
            'served',
            `no longer served while objects may still be stored in it: stop serving it only after a storage migration ` +
              `removed it from status.storedVersions and the baseline records that (${recordedHint(recorded)})`,
            v,
          ),
    );
  }
  if (!b.deprecated && c.deprecated) out.push(crdChange(K.VERSION_DEPRECATED, 'deprecated', 'now deprecated', v));

  for (const sub of ['status', 'scale'] as const) {
    const had = b.subresources?.[sub] !== undefined;
    const has = c.subresources?.[sub] !== undefined;
    if (had && !has) {
      out.push(crdChange(K.SUBRESOURCE_CHANGED, `subresources.${sub}`, `/${sub} subresource removed`, v));
    }
    if (!had && has && sub === 'status') {
      out.push(
        crdChange(
          K.SUBRESOURCE_CHANGED,
          'subresources.status',
          '/status subresource added: updates through the main endpoint now ignore status',
          v,
        ),
      );
    }
    if (!had && has && sub === 'scale') {
      out.push(crdChange(K.PRESENTATION_CHANGED, 'subresources.scale', '/scale subresource added', v));
    }
    if (had && has && JSON.stringify(b.subresources?.[sub]) !== JSON.stringify(c.subresources?.[sub])) {
      out.push(
        crdChange(
          K.SUBRESOURCE_CHANGED,
          `subresources.${sub}`,
          `${JSON.stringify(b.subresources?.[sub])} → ${JSON.stringify(c.subresources?.[sub])}`,
          v,
        ),
      );
    }
  }

  const bFields = (b.selectableFields ?? []).map((f) => f.jsonPath);
  const cFields = (c.selectableFields ?? []).map((f) => f.jsonPath);
  for (const f of bFields.filter((x) => !cFields.includes(x))) {
    out.push(crdChange(K.SELECTABLE_FIELD_REMOVED, f, 'selectable field removed', v));
  }
  const addedFields = cFields.filter((x) => !bFields.includes(x));
  if (addedFields.length > 0) {
    out.push(
      crdChange(K.PRESENTATION_CHANGED, 'selectableFields', `selectable fields added: ${addedFields.join(', ')}`, v),
    );
  }
  const columns = (x: CrdVersionSpec) =>
    JSON.stringify((x.additionalPrinterColumns ?? []).map(({ description: _d, ...rest }) => rest));
  if (columns(b) !== columns(c)) {
    const names = (x: CrdVersionSpec) => (x.additionalPrinterColumns ?? []).map((p) => p.name).join(', ') || '(none)';
    out.push(
      crdChange(K.PRESENTATION_CHANGED, 'additionalPrinterColumns', `printer columns ${names(b)} → ${names(c)}`, v),
    );
  }

  const bSchema = b.schema?.openAPIV3Schema;
  const cSchema = c.schema?.openAPIV3Schema;
  if (bSchema && cSchema) out.push(...diffSchemas(bSchema, cSchema, v));
  else if (bSchema && !cSchema) out.push(crdChange(K.VALIDATION_TIGHTENED, '.', 'schema removed', v));
  return out;
}

/**
 * PostgreSQL versions (`spec.version`: `16`, `16.4`): parsing, ordering, and the data directory of
 * a major. Which image runs a version is images.ts.
 */

/** Thrown for a version the operator cannot run. */
export class UnsupportedVersionError extends Error {}

/** The major version of `16.4` → 16. Throws on a malformed version. */
export function majorOf(version: string): number {
  if (!/^[0-9]+(\.[0-9]+){0,2}$/.test(version)) {
    throw new UnsupportedVersionError(`version must look like '16' or '16.4', got '${version}'`);
  }
  return Number(version.split('.')[0]);
}

/** The data directory of a major version: a major upgrade starts a fresh one and loads the pre-upgrade dump. */
export function dataDirFor(version: string): string {
  return `/var/lib/postgresql/data/pg${majorOf(version)}`;
}

/** Compares two versions numerically component by component (missing components count as 0). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** A DNS-label-safe form of a version: `16.4` → `16-4`. */
export function versionSlug(version: string): string {
  return version.replace(/\./g, '-');
}

/**
 * PostgreSQL versions: `spec.version` (`16`, `16.4`) → the official `postgres` image, pinned.
 *
 * A bare major version maps to the pinned minor of {@link POSTGRES_IMAGES}; a version with a minor
 * (`16.2`) is pinned by itself. Majors outside the table are refused (`UnsupportedVersion`).
 */

/** Pinned official images per supported major version (never `latest`). */
export const POSTGRES_IMAGES: Readonly<Record<number, string>> = {
  13: 'postgres:13.16',
  14: 'postgres:14.13',
  15: 'postgres:15.8',
  16: 'postgres:16.4',
  17: 'postgres:17.2',
};

/** Thrown for a version the operator cannot run. */
export class UnsupportedVersionError extends Error {}

/** The major version of `16.4` → 16. Throws on a malformed version. */
export function majorOf(version: string): number {
  if (!/^[0-9]+(\.[0-9]+){0,2}$/.test(version)) throw new UnsupportedVersionError(`version must look like '16' or '16.4', got '${version}'`);
  return Number(version.split('.')[0]);
}

/** The pinned image for `version`. Throws {@link UnsupportedVersionError} for unknown majors. */
export function imageFor(version: string): string {
  const major = majorOf(version);
  const pinned = POSTGRES_IMAGES[major];
  if (!pinned) {
    throw new UnsupportedVersionError(`PostgreSQL major version ${major} is not supported (supported: ${Object.keys(POSTGRES_IMAGES).join(', ')})`);
  }
  return version.includes('.') ? `postgres:${version}` : pinned;
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

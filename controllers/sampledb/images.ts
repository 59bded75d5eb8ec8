/**
 * Which container image runs each PostgreSQL version, and the operator-wide overrides for clusters
 * that mirror registries (or pin their own builds).
 *
 * Every pod of a database runs the image of the version its StatefulSet runs: the instances, and
 * the Jobs (init, backups, restores), whose `pg_dump`/`pg_restore` must match the server's major.
 *
 * - A bare major (`spec.version: "16"`) runs the pinned image of that major: {@link POSTGRES_IMAGES},
 *   or the operator's override for that major (`SAMPLEDB_POSTGRES_IMAGES="16=mirror.example.com/pg:16.4"`).
 * - A version with a minor (`"16.2"`) runs `<repository>:16.2`, where the repository is the
 *   override's for that major (`mirror.example.com/pg`), else `SAMPLEDB_POSTGRES_REPOSITORY`, else `postgres`.
 *
 * The overrides are read once at start-up from the operator's environment (the chart sets them, see
 * apps/sampledb); a malformed one stops the operator with every problem named.
 */
import { majorOf, UnsupportedVersionError } from './versions';

/** Pinned official images per supported major version (never `latest`). */
export const POSTGRES_IMAGES: Readonly<Record<number, string>> = {
  13: 'postgres:13.16',
  14: 'postgres:14.13',
  15: 'postgres:15.8',
  16: 'postgres:16.4',
  17: 'postgres:17.2',
};

/** Environment variable: repository of every postgres image (`mirror.example.com/library/postgres`). */
export const ENV_POSTGRES_REPOSITORY = 'SAMPLEDB_POSTGRES_REPOSITORY';
/** Environment variable: image per major, `16=mirror.example.com/pg:16.4,17=mirror.example.com/pg:17.2`. */
export const ENV_POSTGRES_IMAGES = 'SAMPLEDB_POSTGRES_IMAGES';

/** Operator-wide image overrides. */
export interface PostgresImageOverrides {
  /**
   * Repository of every postgres image (tags stay those of {@link POSTGRES_IMAGES} or the version).
   * @default 'postgres'
   */
  readonly repository?: string;
  /**
   * The image of a bare major version, per supported major; its repository also serves that major's
   * minor versions.
   * @default {} (the pinned images of {@link POSTGRES_IMAGES} in `repository`)
   */
  readonly byMajor?: Readonly<Record<number, string>>;
}

/**
 * The operator environment that carries `overrides` (what {@link PostgresImages.fromEnv} reads back).
 * Throws {@link ImageOverrideError} naming each bad value.
 */
export function postgresImageEnv(overrides: PostgresImageOverrides): Record<string, string> {
  new PostgresImages(overrides); // validates
  const env: Record<string, string> = {};
  if (overrides.repository) env[ENV_POSTGRES_REPOSITORY] = overrides.repository;
  const byMajor = Object.entries(overrides.byMajor ?? {});
  if (byMajor.length) env[ENV_POSTGRES_IMAGES] = byMajor.map(([major, image]) => `${major}=${image}`).join(',');
  return env;
}

/** A malformed override (every problem, one per line). */
export class ImageOverrideError extends Error {}

/** Resolves versions to images. See module docs. */
export class PostgresImages {
  /** Reads {@link ENV_POSTGRES_REPOSITORY} and {@link ENV_POSTGRES_IMAGES}; throws {@link ImageOverrideError} naming each bad value. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): PostgresImages {
    const problems: string[] = [];
    const repository = env[ENV_POSTGRES_REPOSITORY]?.trim() || undefined;
    const byMajor: Record<number, string> = {};
    for (const entry of (env[ENV_POSTGRES_IMAGES] ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const m = /^(\d+)=(.+)$/.exec(entry);
      if (!m) {
        problems.push(
          `${ENV_POSTGRES_IMAGES}: '${entry}' must look like <major>=<image>, e.g. 16=mirror.example.com/postgres:16.4`,
        );
        continue;
      }
      byMajor[Number(m[1])] = m[2].trim();
    }
    let images: PostgresImages | undefined;
    try {
      images = new PostgresImages({ repository, byMajor });
    } catch (err) {
      if (!(err instanceof ImageOverrideError)) throw err;
      problems.push(...err.message.split('\n'));
    }
    if (!images || problems.length) throw new ImageOverrideError(problems.join('\n'));
    return images;
  }

  private readonly repository: string;
  private readonly byMajor: Readonly<Record<number, string>>;

  constructor(overrides: PostgresImageOverrides = {}) {
    const problems: string[] = [];
    this.repository = overrides.repository ?? 'postgres';
    if (!isRepository(this.repository)) {
      problems.push(
        `postgres repository '${this.repository}' must be an image name without tag or digest, e.g. mirror.example.com/library/postgres`,
      );
    }
    const byMajor: Record<number, string> = {};
    for (const [key, image] of Object.entries(overrides.byMajor ?? {})) {
      const major = Number(key);
      if (!POSTGRES_IMAGES[major]) {
        problems.push(
          `postgres image for major ${key}: the operator supports only majors ${Object.keys(POSTGRES_IMAGES).join(', ')}`,
        );
      } else if (!tagOf(image)) {
        problems.push(
          `postgres image for major ${key}: '${image}' must be pinned to a tag other than latest (repository:tag), e.g. mirror.example.com/postgres:${POSTGRES_IMAGES[major].split(':')[1]}`,
        );
      } else {
        byMajor[major] = image;
      }
    }
    if (problems.length) throw new ImageOverrideError(problems.join('\n'));
    this.byMajor = byMajor;
  }

  /** The image running `version`. Throws {@link UnsupportedVersionError} for unknown majors or malformed versions. */
  imageFor(version: string): string {
    const major = majorOf(version);
    const pinned = POSTGRES_IMAGES[major];
    if (!pinned) {
      throw new UnsupportedVersionError(
        `PostgreSQL major version ${major} is not supported (supported: ${Object.keys(POSTGRES_IMAGES).join(', ')})`,
      );
    }
    const override = this.byMajor[major];
    if (!version.includes('.')) return override ?? `${this.repository}:${tagOf(pinned)}`;
    return `${override ? repositoryOf(override) : this.repository}:${version}`;
  }
}

/** The tag of `repository:tag` (a colon before the last slash is a registry port), unless missing or `latest`. */
function tagOf(image: string): string | undefined {
  const colon = image.indexOf(':', image.lastIndexOf('/') + 1);
  const tag = colon < 0 ? '' : image.slice(colon + 1);
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag) && tag !== 'latest' && !image.includes('@') ? tag : undefined;
}

function repositoryOf(image: string): string {
  return image.slice(0, image.indexOf(':', image.lastIndexOf('/') + 1));
}

/** An image name without tag or digest (a `host:port/` prefix allowed). */
function isRepository(name: string): boolean {
  return (
    /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(\/[a-z0-9]+([._-]{1,2}[a-z0-9]+)*)*$/.test(name) &&
    !name.slice(name.lastIndexOf('/') + 1).includes(':')
  );
}

import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/**
 * How the CEL libraries of one Kubernetes version evaluate, where versions differ: what the functions of
 * kubernetes-library.ts are built with. `evaluate.ts` reads each flag from `APISERVER_CHANGES` for the version.
 */
export interface CelRuntime {
  /** The version itself, for the checks the libraries share with schema validation (names and formats, `format.*()`). */
  readonly version: KubernetesVersion;
  /**
   * The strings extension's `%e` (golang.org/x/text's message printer) writes narrow no-break spaces around the `×` of
   * `1.000000 × 10⁰⁰`: x/text before v0.23.0.
   */
  readonly spacedScientific: boolean;
  /**
   * `url()` and `isURL()` parse hosts as Go 1.25's net/url: a bracketed host must be an IPv6 address, the port starts
   * at the first colon.
   */
  readonly strictUrlHosts: boolean;
  /** `indexOf`/`lastIndexOf` with an offset at or past the end: -1 (else `index out of range`). */
  readonly offsetPastEndNotFound: boolean;
  /** `lastIndexOf(s)` on a string shorter than `s`: -1 (else `''.lastIndexOf('a')` is `index out of range: -1`). */
  readonly lastIndexOfShorterNotFound: boolean;
}

/** A name of the runtime (a cache key). */
export function celRuntimeKey(runtime: CelRuntime): string {
  return JSON.stringify(runtime);
}

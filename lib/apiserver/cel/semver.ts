/**
 * A semantic version for the Kubernetes CEL `semver()` library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`),
 * compared by precedence (major, minor, patch, then pre-release; build metadata ignored).
 */
export class Semver {
  /**
   * Parses `1.2.3`, `1.2.3-rc.1+build`. With `normalize`, also `v1.2`, `1` and leading zeros
   * (`v` prefix dropped, missing minor/patch filled with 0), as `semver(x, true)` does.
   */
  public static parse(text: string, normalize = false): Semver {
    let t = text;
    if (normalize) {
      t = t.replace(/^v/, '');
      const m = /^([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(.*)$/.exec(t);
      if (m) t = `${BigInt(m[1])}.${BigInt(m[2] ?? '0')}.${BigInt(m[3] ?? '0')}${m[4]}`;
    }
    const m =
      /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.exec(
        t,
      );
    if (!m) throw new Error(`could not parse '${text}' as a semantic version`);
    return new Semver(BigInt(m[1]), BigInt(m[2]), BigInt(m[3]), m[4] ? m[4].split('.') : []);
  }

  public static isValid(text: string, normalize = false): boolean {
    try {
      Semver.parse(text, normalize);
      return true;
    } catch {
      return false;
    }
  }

  constructor(
    public readonly major: bigint,
    public readonly minor: bigint,
    public readonly patch: bigint,
    public readonly pre: readonly string[],
  ) {}

  public compareTo(o: Semver): bigint {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ]) {
      if (a !== b) return a < b ? -1n : 1n;
    }
    // a version without pre-release has higher precedence
    if (this.pre.length === 0 || o.pre.length === 0) {
      return this.pre.length === o.pre.length ? 0n : this.pre.length === 0 ? 1n : -1n;
    }
    for (let i = 0; i < Math.max(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i];
      const b = o.pre[i];
      if (a === undefined || b === undefined) return a === undefined ? -1n : 1n;
      if (a === b) continue;
      const na = /^[0-9]+$/.test(a);
      const nb = /^[0-9]+$/.test(b);
      if (na && nb) return BigInt(a) < BigInt(b) ? -1n : 1n;
      if (na !== nb) return na ? -1n : 1n;
      return a < b ? -1n : 1n;
    }
    return 0n;
  }

  public toString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre.length ? `-${this.pre.join('.')}` : ''}`;
  }
}

import { UPSTREAM_CEL_ENVIRONMENT } from './upstream-base-env';
import {
  DEFAULT_KUBERNETES_VERSION,
  KUBERNETES_VERSIONS,
  KubernetesVersion,
  minorOf,
} from '../../apimachinery/kubernetes-versions';

/**
 * The CEL environment each Kubernetes version compiles new expressions with, as data: which libraries, functions and
 * syntax a version's apiserver offers. One type checker reads it (`checkExpression(…, { version })`), for CRD rules
 * and for admission policies alike.
 *
 * Kubernetes 1.N compiles new expressions with the environment of its compatibility version 1.(N-1)
 * (`environment.DefaultCompatibilityVersion`): a library that upstream's `staging/src/k8s.io/apiserver/pkg/cel/
 * environment/base.go` introduces at 1.N is accepted in new expressions from 1.(N+1). Measured on the real apiservers
 * (test/apiserver/cel/environment-by-version.test.ts, CRD rules and ValidatingAdmissionPolicy expressions): 1.28.15,
 * 1.32.13 and 1.36.3 offer the same libraries to both; 1.28 lacks the quantity, sets, format and optional libraries,
 * the optional syntax, `format()`/`strings.quote` and cross-type numeric comparisons (`1 < 1.5`), but has `ip()` and
 * `cidr()`; 1.32 lacks two-variable comprehensions, semver and the lists extension, which 1.36 has. No version has
 * `strings.reverse`/`'abc'.reverse()`, cel-go's math, encoders, bindings (`cel.bind`) or regex extensions.
 * Versions 1.29 to 1.31 and 1.33 to 1.35 have no apiserver in the suites: their entries follow base.go. 1.37 has no
 * apiserver here either: its environment is read from upstream's base.go at v0.37.0-beta.0 (`upstream-base-env.ts`,
 * written by tools/upstream-cel/main.ts, tag and commit inside), each library by its `upstream` option there. For
 * 1.37 that is 1.36's environment: the one option base.go introduces at 1.37 (the Kubernetes lists library's
 * `includes()`) is for compatibility version 1.37, so for new expressions from 1.38. The libraries of cel-go itself
 * (`upstream` absent) count from `since`: 1.37 vendors cel-go v0.27.0, newer than 1.36's v0.26.0.
 */
export const CEL_LIBRARIES = {
  /** Measured on 1.28, before base.go's IntroducedVersion of 1.30 (which upstream set later, retroactively). */
  ipCidr: {
    since: 28,
    upstream: 'UnversionedLib(library.IP)',
    what: 'the IP and CIDR libraries (ip(), cidr(), isIP(), isCIDR())',
  },
  quantity: {
    since: 29,
    upstream: 'UnversionedLib(library.Quantity)',
    what: 'the quantity library (quantity(), isQuantity())',
  },
  optionalTypes: {
    since: 29,
    upstream: 'cel.OptionalTypes()',
    what: 'optional values and syntax (x.?f, x[?k], optional.of(), optional.none(), hasValue(), orValue())',
  },
  crossTypeNumericComparisons: {
    since: 29,
    upstream: 'cel.CrossTypeNumericComparisons(true)',
    what: 'comparisons across int, uint and double (1 < 1.5)',
  },
  /** cel-go's ValidateDurationLiterals/TimestampLiterals/RegexLiterals: before, a bad literal failed at program instantiation. */
  literalValidators: {
    since: 30,
    upstream: 'cel.ASTValidators(cel.ValidateDurationLiterals()',
    what: 'compile-time checks of duration(), timestamp() and matches() literals',
  },
  sets: {
    since: 30,
    upstream: 'ext.Sets()',
    what: 'the sets extension (sets.contains(), sets.equivalent(), sets.intersects())',
  },
  stringsV2: {
    since: 30,
    upstream: 'ext.Strings(ext.StringsVersion(2))',
    what: 'the strings extension v2 (format(), strings.quote())',
  },
  format: {
    since: 32,
    upstream: 'UnversionedLib(library.Format)',
    what: 'the format library (format.named(), format.dns1123Label(), …)',
  },
  twoVariableComprehensions: {
    since: 33,
    upstream: 'ext.TwoVarComprehensions()',
    what: 'two-variable comprehensions (all(k, v, …), exists(k, v, …), existsOne, transformList, transformMap, transformMapEntry)',
  },
  semver: {
    since: 34,
    upstream: 'library.SemverLib(library.SemverVersion(1))',
    what: 'the semver library (semver(), isSemver())',
  },
  lists: {
    since: 35,
    upstream: 'ext.Lists(ext.ListsVersion(3))',
    what: 'the lists extension (lists.range(), slice(), flatten(), distinct(), reverse(), sort(), sortBy())',
  },
  /**
   * cel-go's optional library as 1.36 vendors it (`optional.unwrap()`, `first()`, `last()`): absent on 1.32, present
   * on 1.36; the cel-go of 1.33 to 1.35 is not measured, so it counts from the first version measured with it.
   */
  /** `string(ip)`, `string(cidr)`: absent on 1.28, present on 1.32 (not measured between: counted from 1.32). */
  ipCidrStrings: { since: 32, what: 'string() of IP and CIDR values' },
  optionalTypesV2: { since: 36, what: "optional.unwrap(), first() and last() of cel-go's newer optional library" },
} as const;

/**
 * How the type checker itself behaves, by the cel-go a version vendors (1.28: cel-go v0.16; 1.29 moved to v0.17).
 * Not libraries: nothing to name in a message, only wording to imitate.
 */
export const CEL_CHECKER_CHANGES = {
  /**
   * A call of an undeclared member function (`x.f()`) has an error type that later overloads accept silently; before,
   * it had no type (`<nil>`), which no overload accepts (measured on 1.28: `string(self.v.format([1]))` reports both
   * `undeclared reference to 'format'` and `found no matching overload for 'string' applied to '(<nil>)'`).
   */
  undeclaredMembersTyped: 29,
  /** `unexpected failed resolution` of a library object's field without cel-go v0.16's `[internal] ` prefix (1.28 has it). */
  resolutionErrorsUnprefixed: 29,
  /** Undeclared names are shown as `!error!` in the errors around them up to cel-go v0.16 (1.28); later as dyn. */
  errorTypeUnnamed: 29,
  /**
   * A reserved word selects its escaped field (`object.metadata.namespace`): the DeclTypeProvider's
   * `SetRecognizeKeywordAsFieldName` for compatibility version 1.31 and newer (environment.go), so from 1.32; 1.28's
   * type checking says `undefined field 'namespace'` (measured).
   */
  keywordFieldNames: 32,
  /** IP and CIDR values are shown as `kubernetes.IP`/`kubernetes.CIDR` in errors; before, `net.IP`/`net.CIDR()` (measured on 1.28). */
  kubernetesTypeNames: 29,
  /**
   * A `\u`/`\U` escape of a surrogate code point in a string literal is refused by the parser (`invalid unicode code
   * point`, beyond U+10FFFF too); before, a surrogate was kept (as U+FFFD) and a code point beyond Unicode refused as
   * `unable to unescape string`. Measured: 1.28 and 1.32 the old way, 1.36 the new; the cel-go of 1.33 to 1.35 is not
   * measured, so it counts from the first version measured with it.
   */
  surrogateEscapesRefused: 36,
  /**
   * Homogeneous list and map literals are checked by cel-go's AST validator (every element of the first one's exact
   * type); cel-go v0.16 (1.28) joined the element types instead, so a dyn element mixes with an int (measured on 1.28:
   * `[object.metadata.name, 2]` passes, `[1.5, 2]` fails). Counted from cel-go v0.17 (1.29).
   */
  homogeneousLiteralsValidated: 29,
} as const;

/** A library, syntax or checker option of `CEL_LIBRARIES`. */
export type CelLibrary = keyof typeof CEL_LIBRARIES;

/** The newest version whose CEL environment is measured on its apiserver; newer ones are read from upstream's base.go. */
export const NEWEST_MEASURED_CEL_MINOR = 36;

/**
 * Whether upstream's base.go (`upstream-base-env.ts`) offers `option` (an option's Go text, or its start) to new
 * expressions on Kubernetes 1.`minor`: an apiserver compiles new expressions at its compatibility version, one minor
 * below its own (k8s.io/component-base's `NewEffectiveVersion`), with the options introduced by then and not removed.
 *
 * @internal
 */
export function upstreamOffers(option: string, minor: number): boolean {
  const compatibility = minor - 1;
  const minorOfTag = (v: string) => Number(v.split('.')[1]);
  return UPSTREAM_CEL_ENVIRONMENT.baseOpts.some(
    (entry) =>
      entry.options.some((o) => o.startsWith(option)) &&
      minorOfTag(entry.introduced) <= compatibility &&
      (!('removed' in entry) || compatibility < minorOfTag(entry.removed)),
  );
}

/** Whether Kubernetes 1.`minor` offers `library` to new expressions: measured up to 1.36, upstream's base.go after. */
function offers(library: CelLibrary, minor: number): boolean {
  const entry: { since: number; upstream?: string } = CEL_LIBRARIES[library];
  if (minor > NEWEST_MEASURED_CEL_MINOR && entry.upstream !== undefined) return upstreamOffers(entry.upstream, minor);
  return minor >= entry.since;
}

/** The CEL environment of one Kubernetes version. */
export interface CelEnvironment {
  readonly version: KubernetesVersion;
  /** Whether the version offers `library` to new expressions. */
  has(library: CelLibrary): boolean;
  /** The libraries the version lacks. */
  readonly missing: readonly CelLibrary[];
  /** A name shared by versions with the same environment (a cache key). */
  readonly key: string;
  /** Whether the version's type checker has a change of `CEL_CHECKER_CHANGES`. */
  checks(change: keyof typeof CEL_CHECKER_CHANGES): boolean;
}

const environments = new Map<KubernetesVersion, CelEnvironment>();

/** The CEL environment of new CRD rules and admission expressions on Kubernetes `version`. */
export function celEnvironment(version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): CelEnvironment {
  let env = environments.get(version);
  if (!env) {
    const minor = minorOf(version);
    const libraries = Object.keys(CEL_LIBRARIES) as CelLibrary[];
    const missing = libraries.filter((l) => !offers(l, minor));
    const offered = new Set(libraries.filter((l) => !missing.includes(l)));
    const changes = (Object.keys(CEL_CHECKER_CHANGES) as Array<keyof typeof CEL_CHECKER_CHANGES>).filter(
      (c) => minor >= CEL_CHECKER_CHANGES[c],
    );
    env = {
      version,
      has: (l) => offered.has(l),
      missing,
      key: `${missing.join(',')}/${changes.join(',')}`,
      checks: (c) => changes.includes(c),
    };
    environments.set(version, env);
  }
  return env;
}

/** The first version whose CEL environment has `library`. */
export function firstVersionWithCel(library: CelLibrary): KubernetesVersion {
  return (
    KUBERNETES_VERSIONS.find((v) => offers(library, minorOf(v))) ?? KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]
  );
}

/** The environment with every library: what the newest supported version offers. */
export function newestCelEnvironment(): CelEnvironment {
  return celEnvironment(KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]);
}

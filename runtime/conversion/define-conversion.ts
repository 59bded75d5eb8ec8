/**
 * Conversion between the versions of one custom resource kind, hub and spoke (Kubebuilder's model):
 * one version is the hub, every other version (a spoke) converts to and from it; spoke → spoke goes
 * through the hub. Conversion functions are typed by the generated types of each version
 * (`imports/<group>.ts`: `SampleDBV1Object`, `SampleDBV2Object`, ...).
 *
 * Expected flow:
 * ```ts
 * export const SAMPLEDB_CONVERSION = defineConversion<SampleDBV2Object, { v1: SampleDBV1Object }>({
 *   group: 'database.example.com', kind: 'SampleDB', hub: 'v2',
 *   spokes: { v1: { toHub: v1 => ({ ...v1, spec: ... }), fromHub: v2 => ({ ...v2, spec: ... }) } },
 * });
 * SAMPLEDB_CONVERSION.convert(obj, 'database.example.com/v1');   // what the conversion webhook does per object
 * ```
 *
 * Guarantees:
 * - Functions get deep copies (they may mutate them) and are called only for their own versions.
 * - The result has the desired apiVersion, the input's kind, and the input's metadata except labels and
 *   annotations (the only metadata the apiserver lets a conversion change).
 * - Lossless: what a spoke cannot express is kept in the annotation `<group>/conversion-data` of the
 *   spoke object and restored when it comes back to the hub (see `_lossless.ts`); the hub never holds
 *   that annotation. So hub → spoke → hub is the identity for every hub object, and spoke → hub → spoke
 *   is the identity whenever the spoke's own conversion loses nothing.
 * - A conversion that throws, returns a non-object or is asked for an unknown version fails with a
 *   {@link ConversionError} naming the object, the versions and the cause.
 *
 * Caveats: the functions must be pure and fast: the apiserver calls the webhook on every read and write
 * of a version other than the one stored, with a 30 s timeout for a whole list.
 */
import { isObject } from '../../lib/apimachinery/json';
import { KubeObject, ObjectMeta, parseApiVersion } from '../resource';
import { formatLostFields, lostFields, parseLostFields, restoreLostFields } from './_lossless';

/** Conversion to and from the hub for one spoke version. */
export interface SpokeConversion<Spoke extends KubeObject, Hub extends KubeObject> {
  /** Spoke → hub. Gets a deep copy. */
  toHub(spoke: Spoke): Hub;
  /** Hub → spoke. Gets a deep copy. */
  fromHub(hub: Hub): Spoke;
}

/** Props of {@link defineConversion}. */
export interface ConversionProps<Hub extends KubeObject, Spokes extends { [version: string]: KubeObject }> {
  /** API group, e.g. `database.example.com`. */
  readonly group: string;
  /** Kind, e.g. `SampleDB`. */
  readonly kind: string;
  /** The hub version, e.g. `v2`: usually the storage version. */
  readonly hub: string;
  /** Every other served version, with its conversion to and from the hub. */
  readonly spokes: { readonly [V in keyof Spokes]: SpokeConversion<Spokes[V], Hub> };
  /**
   * Annotation that keeps, on a spoke object, the hub fields the spoke cannot express.
   * @default `<group>/conversion-data`
   */
  readonly annotation?: string;
}

/** A conversion that failed: the object, the versions and why. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** The conversions of one kind, as declared by {@link defineConversion}. */
export interface KindConversion {
  readonly group: string;
  readonly kind: string;
  readonly hub: string;
  /** Every version it converts: the hub first, then the spokes. */
  readonly versions: readonly string[];
  /** The annotation holding what a spoke cannot express. */
  readonly annotation: string;
  /** `obj` (of this kind, any known version) at `apiVersion` (`<group>/<version>`). */
  convert(obj: KubeObject, apiVersion: string): KubeObject;
}

/** Declares the conversions of one kind (checked at once: the hub must not also be a spoke). */
export function defineConversion<Hub extends KubeObject, Spokes extends { [version: string]: KubeObject }>(
  props: ConversionProps<Hub, Spokes>,
): KindConversion {
  const problems: string[] = [];
  if (!props.group || !props.group.includes('.')) {
    problems.push(`group: must be an API group with a dot, got ${JSON.stringify(props.group)}`);
  }
  if (!props.kind) problems.push(`kind: must be set, got ${JSON.stringify(props.kind)}`);
  if (!props.hub) problems.push(`hub: must name a version, got ${JSON.stringify(props.hub)}`);
  const spokes = props.spokes as Record<string, SpokeConversion<KubeObject, KubeObject>>;
  if (props.hub in spokes) problems.push(`spokes.${props.hub}: the hub converts to nothing, remove it from spokes`);
  for (const [version, c] of Object.entries(spokes)) {
    if (typeof c?.toHub !== 'function' || typeof c?.fromHub !== 'function') {
      problems.push(`spokes.${version}: needs toHub and fromHub functions`);
    }
  }
  if (problems.length) {
    throw new Error(
      `invalid conversion of ${props.kind}.${props.group}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  return new HubAndSpokes(
    props.group,
    props.kind,
    props.hub,
    spokes,
    props.annotation ?? `${props.group}/conversion-data`,
  );
}

class HubAndSpokes implements KindConversion {
  public readonly versions: readonly string[];

  constructor(
    public readonly group: string,
    public readonly kind: string,
    public readonly hub: string,
    private readonly spokes: Record<string, SpokeConversion<KubeObject, KubeObject>>,
    public readonly annotation: string,
  ) {
    this.versions = [hub, ...Object.keys(spokes)];
  }

  public convert(obj: KubeObject, apiVersion: string): KubeObject {
    const name = `${this.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? '(no name)'}`;
    const from = this.versionOf(obj.apiVersion, `${name}: apiVersion`);
    const to = this.versionOf(apiVersion, `${name}: desired apiVersion`);
    if (obj.kind !== this.kind) {
      throw new ConversionError(`${name}: kind ${JSON.stringify(obj.kind)} is not ${this.kind}`);
    }
    if (from === to) return obj;
    const hub = from === this.hub ? obj : this.toHub(obj, from, name);
    return to === this.hub ? hub : this.fromHub(hub, to, name);
  }

  private versionOf(apiVersion: string | undefined, what: string): string {
    const { group, version } = parseApiVersion(apiVersion ?? '');
    if (group !== this.group || !this.versions.includes(version)) {
      throw new ConversionError(
        `${what} ${JSON.stringify(apiVersion)} is not one of ${this.versions.map((v) => `${this.group}/${v}`).join(', ')}`,
      );
    }
    return version;
  }

  private toHub(spoke: KubeObject, version: string, name: string): KubeObject {
    const input = structuredClone(spoke);
    const saved = input.metadata?.annotations?.[this.annotation];
    if (saved !== undefined) removeAnnotation(input.metadata!, this.annotation);
    let lost;
    try {
      lost = saved === undefined ? [] : parseLostFields(saved);
    } catch (e) {
      throw new ConversionError(
        `${name}: annotation ${this.annotation} is not what a conversion wrote: ${(e as Error).message}`,
      );
    }
    const hub = this.call(() => this.spokes[version].toHub(structuredClone(input)), `${version} → ${this.hub}`, name);
    const out = finish(input, hub, `${this.group}/${this.hub}`);
    restoreLostFields(out as Record<string, unknown>, lost);
    return out;
  }

  private fromHub(hub: KubeObject, version: string, name: string): KubeObject {
    const conversion = this.spokes[version];
    const spoke = finish(
      hub,
      this.call(() => conversion.fromHub(structuredClone(hub)), `${this.hub} → ${version}`, name),
      `${this.group}/${version}`,
    );
    // a hub object never holds the annotation; one copied there by a client is stale
    if (spoke.metadata?.annotations?.[this.annotation] !== undefined) removeAnnotation(spoke.metadata, this.annotation);
    const back = this.call(() => conversion.toHub(structuredClone(spoke)), `${version} → ${this.hub}`, name);
    const lost = lostFields(hub as Record<string, unknown>, back as Record<string, unknown>);
    if (lost.length === 0) return spoke;
    const metadata: ObjectMeta = spoke.metadata ?? {};
    spoke.metadata = {
      ...metadata,
      annotations: { ...metadata.annotations, [this.annotation]: formatLostFields(lost) },
    };
    return spoke;
  }

  private call(fn: () => KubeObject, direction: string, name: string): KubeObject {
    let out: unknown;
    try {
      out = fn();
    } catch (e) {
      throw new ConversionError(`${name}: conversion ${direction} failed: ${(e as Error)?.message ?? String(e)}`);
    }
    if (!isObject(out)) {
      throw new ConversionError(`${name}: conversion ${direction} returned ${JSON.stringify(out)}, not an object`);
    }
    return out as KubeObject;
  }
}

/** The converted object with the desired apiVersion, the input's kind, and its metadata but labels and annotations. */
function finish(input: KubeObject, output: KubeObject, apiVersion: string): KubeObject {
  const { apiVersion: _a, kind: _k, metadata: outMeta, ...rest } = output;
  const metadata: ObjectMeta = { ...input.metadata };
  const changed = outMeta ?? input.metadata ?? {};
  for (const key of ['labels', 'annotations'] as const) {
    const value = changed[key];
    if (value === undefined || Object.keys(value).length === 0) delete metadata[key];
    else metadata[key] = { ...value };
  }
  return { apiVersion, kind: input.kind, metadata, ...rest };
}

function removeAnnotation(metadata: ObjectMeta, key: string): void {
  const { [key]: _removed, ...rest } = metadata.annotations ?? {};
  if (Object.keys(rest).length === 0) delete metadata.annotations;
  else metadata.annotations = rest;
}

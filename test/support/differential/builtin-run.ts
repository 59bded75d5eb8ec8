import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { ControlPlane } from '../../envtest';
import { seededRandom } from '../seeded-random';
import { builtinAdditionsOf, donorsOf } from './builtin-additions';
import { dryRunCreate, ourVerdict, OurVerdict, ServerVerdict } from './builtin-dry-run';
import { applyBuiltinMutation, builtinMutationsOf, builtinSweepOf } from './builtin-mutations';
import { versionSchemas } from '../../../lib/apiserver/builtin-validation/decoding-schemas';

/** A valid built-in object to mutate, named for reports. */
export interface BuiltinSeed {
  readonly name: string;
  readonly object: any;
}

/** Random mutations that change the values a seed has (builtin-mutations.ts) or add fields it lacks (builtin-additions.ts). */
export type BuiltinMutate = 'values' | 'additions';

/** A mutated object the apiserver and synth judged differently. */
export interface BuiltinDisagreement {
  readonly seed: string;
  readonly kind: string;
  readonly mutation: string;
  /** The apiserver's message, or `accepted`. */
  readonly apiserver: string;
  /** Synth's errors, or `accepted`. */
  readonly ours: readonly string[] | 'accepted';
}

export interface BuiltinDifferentialResult {
  readonly kubernetesVersion: KubernetesVersion;
  readonly seed: number;
  /** Random mutations of each seed, or `sweep`: every place removed, emptied, made -1 and 0 (builtinSweepOf). */
  readonly perObject: number | 'sweep';
  /** What the random mutations do: change a value the seed has (`values`) or add a field it lacks (`additions`). */
  readonly mutate: BuiltinMutate;
  /** Seeds mutated: those the apiserver serves and accepts as they are. */
  readonly seeds: number;
  /** Seeds left out, with why (a kind this version does not serve, or refused unmutated). */
  readonly seedsLeftOut: { readonly seed: string; readonly why: string }[];
  readonly cases: number;
  /** Cases the apiserver refused. */
  readonly refused: number;
  /** Per kind: cases, refused by the apiserver, agreed. */
  readonly byKind: Record<string, { cases: number; refused: number; agree: number }>;
  /** Accepted by one side, refused by the other. */
  readonly disagreements: BuiltinDisagreement[];
  /**
   * Refused by the apiserver for what this cluster is configured with, not for the object: a Service's IP family
   * (this control plane is IPv4 only) or an IP outside its service range. Synth, which cannot know the cluster it
   * is applied to, accepts them (docs/built-in-objects.md, "What synth does not check").
   */
  readonly clusterDependent: BuiltinDisagreement[];
  /** Refused by both, but at different fields (the verdict agrees; the report names other places). */
  readonly fieldDisagreements: BuiltinDisagreement[];
  /** Mutated objects synth's checks threw on instead of reporting. */
  readonly crashes: { readonly seed: string; readonly mutation: string; readonly error: string }[];
}

/**
 * `perObject` single random mutations of each seed (values changed, builtin-mutations.ts, or fields added,
 * builtin-additions.ts), or its sweep, each created on `plane` with a dry run and
 * strict field validation (as `kubectl apply` sends it) and checked as synth checks a built-in object for `version`: a
 * case agrees when both refuse or both accept. Namespaced objects are created in `default`. A seed replays a run.
 */
export async function runBuiltinDifferential(
  plane: ControlPlane,
  version: KubernetesVersion,
  seeds: readonly BuiltinSeed[],
  opts: { readonly seed: number; readonly perObject: number | 'sweep'; readonly mutate?: BuiltinMutate },
): Promise<BuiltinDifferentialResult> {
  const rand = seededRandom(opts.seed);
  const mutate = opts.mutate ?? 'values';
  const schemas = versionSchemas(version);
  const donors = donorsOf(
    seeds.map((s) => s.object),
    schemas,
  );
  const result: BuiltinDifferentialResult = {
    kubernetesVersion: version,
    seed: opts.seed,
    perObject: opts.perObject,
    mutate,
    seeds: 0,
    seedsLeftOut: [],
    cases: 0,
    refused: 0,
    byKind: {},
    disagreements: [],
    clusterDependent: [],
    fieldDisagreements: [],
    crashes: [],
  };
  const counts = result as { seeds: number; cases: number; refused: number };
  for (const { name, object } of seeds) {
    const base = inDefaultNamespace(object);
    const served = await dryRunCreate(plane, base).catch((e: Error) => e);
    if (served instanceof Error || !served.accepted) {
      // the workload and batch suites' invalid cases are most of them: their reason shortened for the reports
      const why = served instanceof Error ? served.message : `refused as it is: ${served.message.slice(0, 160)}`;
      result.seedsLeftOut.push({ seed: name, why });
      continue;
    }
    counts.seeds++;
    const mutations =
      opts.perObject === 'sweep'
        ? builtinSweepOf(base)
        : mutate === 'additions'
          ? builtinAdditionsOf(base, schemas, donors, rand, opts.perObject)
          : builtinMutationsOf(base, rand, opts.perObject);
    for (const m of mutations) {
      const mutated = applyBuiltinMutation(base, m);
      const server = await dryRunCreate(plane, mutated);
      let ours: OurVerdict;
      try {
        ours = ourVerdict(mutated, version);
      } catch (e) {
        const error = (e as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? String(e);
        result.crashes.push({ seed: name, mutation: m.note, error });
        continue;
      }
      counts.cases++;
      if (!server.accepted) counts.refused++;
      const k = (result.byKind[base.kind] ??= { cases: 0, refused: 0, agree: 0 });
      k.cases++;
      if (!server.accepted) k.refused++;
      const row = (): BuiltinDisagreement => ({
        seed: name,
        kind: base.kind,
        mutation: m.note,
        apiserver: server.accepted ? 'accepted' : `${server.code} ${server.message}`,
        ours: ours.accepted ? 'accepted' : ours.lines,
      });
      if (server.accepted !== ours.accepted) {
        const byCluster = !server.accepted && CLUSTER_CONFIGURATION.some((words) => server.message.includes(words));
        (byCluster ? result.clusterDependent : result.disagreements).push(row());
        continue;
      }
      k.agree++;
      if (!server.accepted && !sameFields(server, ours)) result.fieldDisagreements.push(row());
    }
  }
  return result;
}

/** The apiserver's words for a refusal that depends on the cluster's configuration (see `clusterDependent`). */
const CLUSTER_CONFIGURATION: readonly string[] = [
  'not configured on this cluster',
  'this cluster is not configured for dual-stack services',
  'is not in the valid range',
];

/** Strict decoding (400) names no cause fields: there only the verdict counts. */
function sameFields(server: ServerVerdict, ours: OurVerdict): boolean {
  if (server.code === 400) return true;
  const a = [...new Set(server.fields)].sort();
  const b = [...new Set(ours.fields)].sort();
  return a.length === b.length && a.every((f, i) => f === b[i]);
}

/** A copy of `object` in the namespace `dryRunCreate` creates it in (cluster-scoped kinds ignore it). */
function inDefaultNamespace(object: any): any {
  const copy = structuredClone(object);
  if (copy.metadata?.namespace) copy.metadata.namespace = 'default';
  return copy;
}

/**
 * What the kube-apiserver does with the shard selector of KEP-5866 (`?shardSelector=shardRange(field, start, end)`,
 * Kubernetes 1.36 alpha, feature gate `ShardedListAndWatch`), asked of the real binaries: v1.32.13, v1.36.3 with the
 * gate off and v1.36.3 with the gate on. The runtime's `assignment: 'server'` (runtime/shard-ranges.ts) and
 * docs/sharding.md rely on these answers; each run writes one text file per configuration:
 *
 *   npx tsx tools/probe/shard-selector.ts [--only=v1.32|v1.36-gate-off|v1.36-gate-on] [--out-dir=bench/latest]
 *   → bench/latest/shard-selector-probe-<gitVersion>[-gate-off|-gate-on].txt
 *
 * Each control plane is a bare kube-apiserver and etcd (no controllers), started and stopped by the probe. The probe
 * creates 40 ConfigMaps and reports, from the server's answers only:
 * 1. the echo (`metadata.shardInfo.selector`) of a list with a selector, and how many objects came back;
 * 2. the hash: which ConfigMaps each half of the 64-bit space returned, against 64-bit FNV-1a of each UID
 *    (runtime `fnv1a64`) and, as a control, 64-bit FNV-1 (multiply before xor);
 * 3. the end bound `0x10000000000000000` (2^64) of the last range;
 * 4. malformed selectors and bounds that are not 16 hex digits: the HTTP status and message;
 * 5. a metadata-only list (PartialObjectMetadataList): filtered, and echoed or not;
 * 6. `object.metadata.namespace` as the field;
 * 7. whether the OpenAPI v3 document of `api/v1` lists the parameter.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { kubernetesAssetsDir } from '../../bench/real-control-plane';
import { ControlPlane } from '../../runtime/envtest';
import { fnv1a64 } from '../../runtime/shard-ranges';

const ROOT = path.join(__dirname, '..', '..');
const NS = 'probe';
const N = 40;
const HALF = BigInt(1) << BigInt(63);
const MASK64 = (BigInt(1) << BigInt(64)) - BigInt(1);

interface Configuration {
  readonly id: string;
  readonly version: '1.32' | '1.36';
  /** Suffix of the output file. */
  readonly suffix: string;
  readonly apiServerFlags: readonly string[];
}

const CONFIGURATIONS: readonly Configuration[] = [
  { id: 'v1.32', version: '1.32', suffix: '', apiServerFlags: [] },
  {
    id: 'v1.36-gate-off',
    version: '1.36',
    suffix: '-gate-off',
    apiServerFlags: ['--feature-gates=ShardedListAndWatch=false'],
  },
  {
    id: 'v1.36-gate-on',
    version: '1.36',
    suffix: '-gate-on',
    apiServerFlags: ['--feature-gates=ShardedListAndWatch=true'],
  },
];

/** 64-bit FNV-1 (multiply, then xor): the control hash, to show the server's is FNV-1a and not its sibling. */
function fnv1_64(s: string): bigint {
  let h = BigInt('0xcbf29ce484222325');
  for (const byte of Buffer.from(s, 'utf8')) {
    // eslint-disable-next-line no-bitwise -- a hash is bit arithmetic
    h = ((h * BigInt('0x100000001b3')) & MASK64) ^ BigInt(byte);
  }
  return h;
}

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const q = (selector: string) => encodeURIComponent(selector);
const range = (field: string, start: string, end: string) => `shardRange(${field}, '${start}', '${end}')`;
const hex16 = (n: bigint) => `0x${n.toString(16).padStart(16, '0')}`;

async function probe(config: Configuration, outDir: string): Promise<string> {
  const load = os.loadavg()[0].toFixed(2);
  const plane = await ControlPlane.start({
    assetsDir: kubernetesAssetsDir(config.version),
    apiServerFlags: [...config.apiServerFlags],
    controllerManager: false,
    startTimeoutMs: 120_000,
  });
  try {
    const version = (await plane.request('GET', '/version')).body.gitVersion as string;
    const lines: string[] = [
      `# kube-apiserver ${version}${config.apiServerFlags.length ? ` (${config.apiServerFlags.join(' ')})` : ''}: the shard selector of KEP-5866`,
      '',
      `command: npx tsx tools/probe/shard-selector.ts --only=${config.id}`,
      `date: ${new Date().toISOString()}; machine: ${os.cpus().length} cores, Node ${process.version}; 1-minute load average at start: ${load}`,
      `objects: ${N} ConfigMaps in namespace '${NS}', created by the probe on a bare apiserver`,
      '',
    ];
    await plane.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const uids = new Map<string, string>();
    for (let i = 0; i < N; i++) {
      const created = await plane.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}` },
      });
      uids.set(created.body.metadata.name, created.body.metadata.uid);
    }
    const list = async (selector: string, headers: Record<string, string> = {}) => {
      const reply = await plane.request(
        'GET',
        `/api/v1/namespaces/${NS}/configmaps?shardSelector=${q(selector)}`,
        undefined,
        { headers },
      );
      const names =
        reply.code === 200
          ? new Set<string>(
              (reply.body.items ?? []).map((o: any) => o.metadata.name).filter((n: string) => uids.has(n)),
            )
          : undefined;
      return { reply, names, echo: reply.body?.metadata?.shardInfo?.selector as string | undefined };
    };
    const status = (r: { reply: { code: number; body: any } }) =>
      r.reply.code === 200
        ? 'HTTP 200'
        : `HTTP ${r.reply.code} ${JSON.stringify(r.reply.body?.message ?? r.reply.body)}`;

    // 1. The echo.
    const lowerSelector = range('object.metadata.uid', hex16(BigInt(0)), hex16(HALF));
    const lower = await list(lowerSelector);
    lines.push(
      `1. echo: GET configmaps?shardSelector=${lowerSelector}: ${status(lower)}, ${lower.names?.size ?? 0} of ${N} ConfigMaps returned; ` +
        `metadata.shardInfo.selector: ${lower.echo === undefined ? 'absent' : JSON.stringify(lower.echo)}` +
        `${lower.echo === lowerSelector ? ' (the selector, echoed)' : ''}`,
    );

    // 2. The hash, object by object.
    const upperSelector = range('object.metadata.uid', hex16(HALF), '0x10000000000000000');
    const upper = await list(upperSelector);
    const mismatches = (hash: (s: string) => bigint) =>
      [...uids].filter(
        ([name, uid]) =>
          hash(uid) < HALF !== !!lower.names?.has(name) || hash(uid) >= HALF !== !!upper.names?.has(name),
      ).length;
    const predictedLower = [...uids.values()].filter((uid) => fnv1a64(uid) < HALF).length;
    const ignored = lower.names?.size === N && upper.names?.size === N;
    lines.push(
      `2. hash: lower half [0, 2^63) returned ${lower.names?.size ?? 0}, upper half [2^63, 2^64) returned ${upper.names?.size ?? 0} ` +
        `(${status(upper)}); 64-bit FNV-1a of the UID puts ${predictedLower} in the lower half; ` +
        (ignored
          ? 'each half returned every ConfigMap: the selector was ignored'
          : `ConfigMaps whose halves disagree with FNV-1a of the UID: ${mismatches(fnv1a64)} of ${N}; ` +
            `with FNV-1 (the control): ${mismatches(fnv1_64)} of ${N}`),
    );

    // 3. The end bound 2^64.
    const whole = await list(range('object.metadata.uid', hex16(BigInt(0)), '0x10000000000000000'));
    lines.push(
      `3. end bound: shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000'): ${status(whole)}, ` +
        `${whole.names?.size ?? 0} of ${N} returned`,
    );

    // 4. Malformed selectors and bounds.
    const malformed: Array<[string, string]> = [
      ['an unclosed call', "shardRange(object.metadata.uid, '0x0000000000000000'"],
      ['an unknown function', "hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"],
      ['a bound of 1 hex digit', "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"],
      ['a bound without quotes', 'shardRange(object.metadata.uid, 0x0000000000000000, 0x8000000000000000)'],
    ];
    for (const [what, selector] of malformed) {
      const r = await list(selector);
      lines.push(
        `4. malformed (${what}): ${selector}: ${status(r)}${r.names ? `, ${r.names.size} of ${N} returned` : ''}`,
      );
    }

    // 5. A metadata-only list.
    const meta = await list(lowerSelector, {
      Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    });
    lines.push(
      `5. metadata-only list (${meta.reply.body?.kind ?? '?'}) of the lower half: ${status(meta)}, ${meta.names?.size ?? 0} of ${N} returned ` +
        `(the full list returned ${lower.names?.size ?? 0}); metadata.shardInfo.selector: ${meta.echo === undefined ? 'absent' : JSON.stringify(meta.echo)}`,
    );

    // 6. The namespace as the field.
    const nsLower = fnv1a64(NS) < HALF;
    const nsHalves = [];
    for (const [start, end] of [
      [hex16(BigInt(0)), hex16(HALF)],
      [hex16(HALF), '0x10000000000000000'],
    ]) {
      nsHalves.push(await list(range('object.metadata.namespace', start, end)));
    }
    lines.push(
      `6. namespace field: shardRange(object.metadata.namespace, …) of the lower half: ${status(nsHalves[0])}, ` +
        `${nsHalves[0].names?.size ?? 0} of ${N} returned; of the upper half: ${status(nsHalves[1])}, ` +
        `${nsHalves[1].names?.size ?? 0} of ${N} returned; FNV-1a of '${NS}' is ${hex16(fnv1a64(NS))}, in the ` +
        `${nsLower ? 'lower' : 'upper'} half; echo: ${nsHalves[0].echo === undefined ? 'absent' : 'present'}`,
    );

    // 7. The OpenAPI document.
    const openapi = await plane.request('GET', '/openapi/v3/api/v1');
    const listOp = openapi.body?.paths?.['/api/v1/namespaces/{namespace}/configmaps']?.get;
    const params = [
      ...(listOp?.parameters ?? []),
      ...(openapi.body?.paths?.['/api/v1/namespaces/{namespace}/configmaps']?.parameters ?? []),
    ];
    const named = (p: any) =>
      p.name ??
      openapi.body?.components?.parameters?.[
        String(p.$ref ?? '')
          .split('/')
          .pop() ?? ''
      ]?.name;
    lines.push(
      `7. OpenAPI v3 (/openapi/v3/api/v1), GET /api/v1/namespaces/{namespace}/configmaps: HTTP ${openapi.code}; ` +
        `a parameter named shardSelector: ${params.some((p) => named(p) === 'shardSelector') ? 'listed' : 'not listed'}`,
    );

    const file = path.join(outDir, `shard-selector-probe-${version}${config.suffix}.txt`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    return file;
  } finally {
    await plane.stop();
  }
}

async function main(): Promise<void> {
  const only = option('only');
  const outDir = path.resolve(option('out-dir') ?? path.join(ROOT, 'bench', 'latest'));
  const configs = CONFIGURATIONS.filter((c) => !only || c.id === only);
  if (configs.length === 0) {
    throw new Error(`--only: must be one of ${CONFIGURATIONS.map((c) => c.id).join(', ')}, got '${only}'`);
  }
  for (const config of configs) console.log(await probe(config, outDir));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

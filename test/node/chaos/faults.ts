/**
 * The faults of the chaos suite, each injected from the host (host.ts) or through the API:
 *
 * - `primary-delete`: the primary's pod deleted (default grace period).
 * - `postmaster-kill`: the primary's postmaster SIGKILLed, found through the pod's cgroup.
 * - `standby-delete`: a standby's pod deleted.
 * - `operator-kill-mid-failover`: the primary's pod deleted; once the operator has started the
 *   failover (status.primaryUnavailableSince or targetPrimary set), the operator's process is
 *   SIGKILLed from the host and its pod force-deleted: no graceful shutdown, no released Lease.
 * - `partition`: iptables rules in the primary's network namespace cut it off from every other pod
 *   (standbys, operator) and from the apiserver; the writers and the node keep reaching it (clients
 *   on its side of the partition). Healed once another instance was promoted, the old pod is gone,
 *   or after 60 s. The isolated-primary fault of issue 34: the old primary reaches neither the apiserver
 *   nor a standby, so its self-fencing stops it unless its pod's deletion comes first; the fault's note
 *   says which did.
 * - `apiserver-restart-mid-failover`: the primary's pod deleted; once the failover started,
 *   kube-apiserver is stopped and started again with the same command line. Measured: when it answers
 *   `/readyz` again, and when it does through the `kubernetes` Service (10.96.0.1:443), the address the
 *   operator uses: a stopping apiserver removes its endpoint from that Service, and kube-proxy routes to
 *   the new one only once its own watches, backed off during the outage, see it re-added. Its recovery
 *   bound counts from then (`boundStartsAtS`): before, no operator in a pod can reach the apiserver.
 * - `node-agent-restart`: the kubelet and the node-agent (the harness's DNS and volume
 *   provisioner) restarted; pods keep running.
 */
import { Resolver } from 'dns/promises';
import { comm, containerInit, healPod, partitioned, partitionPod, restartClusterProcess } from './host';
import { kube, KubeAccess, readyz } from './kube';
import { FaultKind } from './schedule';

export interface FaultContext {
  readonly k: KubeAccess;
  readonly clusterDir: string;
  readonly namespace: string;
  readonly db: string;
  readonly sdb: () => Promise<any>;
  readonly dbPods: () => Promise<any[]>;
  readonly writerIps: readonly string[];
  readonly log: (line: string) => void;
}

export interface InjectedFault {
  /** When the fault took effect (ms since epoch). */
  readonly injectedAt: number;
  /** What the injection saw (e.g. when the operator was killed, whether the old primary still ran). */
  readonly notes: string[];
  /** Undoes what is left of the fault (a partition not yet healed); awaited before the next fault. */
  readonly cleanup?: () => Promise<void>;
  /** Whether restarted components are back (checked before the database's own checks). */
  readonly settled?: () => Promise<boolean>;
  /**
   * A partition: when the old primary's postmaster stopped (seconds after the injection) and what stopped it, itself
   * (self-fencing: before anything deleted its pod) or its pod's deletion; filled in by the time `cleanup` resolves.
   */
  readonly oldPrimaryStop?: { stoppedAfterS?: number; by?: 'self-fencing' | 'pod deletion' };
  /** Seconds after the injection from which the recovery bound counts, once known (default 0: the injection). */
  readonly boundStartsAtS?: () => number | undefined;
  /** Timings measured by the injection (seconds after it), e.g. when a restarted apiserver was reachable again. */
  readonly measured?: Record<string, number>;
}

const OPERATOR_NS = 'sampledb-operator-system';
const OPERATOR_SELECTOR = 'app.kubernetes.io/name=sampledb-operator';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pod(ctx: FaultContext, name: string): Promise<any> {
  return kube(ctx.k, 'GET', `/api/v1/namespaces/${ctx.namespace}/pods/${name}`);
}
async function deletePod(
  ctx: FaultContext,
  namespace: string,
  name: string,
  gracePeriodSeconds?: number,
): Promise<void> {
  await kube(
    ctx.k,
    'DELETE',
    `/api/v1/namespaces/${namespace}/pods/${name}`,
    gracePeriodSeconds === undefined ? undefined : { gracePeriodSeconds },
  );
}
const containerId = (p: any, name: string): string => {
  const id = (p.status?.containerStatuses ?? []).find((c: any) => c.name === name)?.containerID;
  if (!id) throw new Error(`pod ${p.metadata.name} has no running container ${name}`);
  return id;
};

/** Waits (up to `timeoutS`) until the operator has started a failover away from `primary`; returns what it saw. */
async function failoverStarted(ctx: FaultContext, primary: string, timeoutS = 30): Promise<string> {
  const end = Date.now() + timeoutS * 1000;
  while (Date.now() < end) {
    try {
      const s = (await ctx.sdb()).status ?? {};
      if (s.currentPrimary && s.currentPrimary !== primary) return `failover already finished (${s.currentPrimary})`;
      if (s.targetPrimary) return `target ${s.targetPrimary} chosen`;
      if (s.primaryUnavailableSince) return 'primary unavailable recorded';
    } catch {
      /* retry */
    }
    await sleep(200);
  }
  return `no failover seen within ${timeoutS} s`;
}

/** Injects one fault; `jitter` in [0, 1) varies its timing; `primary` is the current primary. */
export async function injectFault(
  ctx: FaultContext,
  kind: FaultKind,
  jitter: number,
  primary: string,
): Promise<InjectedFault> {
  const notes: string[] = [];
  switch (kind) {
    case 'primary-delete': {
      const injectedAt = Date.now();
      await deletePod(ctx, ctx.namespace, primary);
      return { injectedAt, notes };
    }
    case 'postmaster-kill': {
      const p = await pod(ctx, primary);
      const pid = containerInit(p.metadata.uid, containerId(p, 'postgres'));
      if (!pid || comm(pid) !== 'postgres') {
        throw new Error(`no postmaster found in ${primary}'s cgroup (pid ${pid}, ${pid ? comm(pid) : '-'})`);
      }
      const injectedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      notes.push(`SIGKILL to postmaster pid ${pid} (host)`);
      return { injectedAt, notes };
    }
    case 'standby-delete': {
      const standbys = (await ctx.dbPods())
        .map((p) => p.metadata.name)
        .filter((n) => n !== primary)
        .sort();
      const victim = standbys[Math.floor(jitter * standbys.length)];
      const injectedAt = Date.now();
      await deletePod(ctx, ctx.namespace, victim);
      notes.push(`deleted standby ${victim}`);
      return { injectedAt, notes };
    }
    case 'operator-kill-mid-failover': {
      const injectedAt = Date.now();
      await deletePod(ctx, ctx.namespace, primary);
      const seen = await failoverStarted(ctx, primary);
      await sleep(Math.round(jitter * 2000));
      const ops = (
        await kube(
          ctx.k,
          'GET',
          `/api/v1/namespaces/${OPERATOR_NS}/pods?labelSelector=${encodeURIComponent(OPERATOR_SELECTOR)}`,
        )
      ).items as any[];
      for (const op of ops.filter((x) => !x.metadata.deletionTimestamp)) {
        const pid = containerInit(op.metadata.uid, containerId(op, (op.spec.containers[0] as any).name));
        if (pid) process.kill(pid, 'SIGKILL');
        await deletePod(ctx, OPERATOR_NS, op.metadata.name, 0);
        notes.push(
          `operator ${op.metadata.name} SIGKILLed (pid ${pid ?? '-'}) and force-deleted ${((Date.now() - injectedAt) / 1000).toFixed(1)} s after the primary's pod was deleted (${seen})`,
        );
      }
      return { injectedAt, notes };
    }
    case 'partition': {
      const p = await pod(ctx, primary);
      const uid = p.metadata.uid as string;
      const injectedAt = Date.now();
      partitionPod(uid, {
        keep: ctx.writerIps,
        podCidr: '10.244.0.0/24',
        nodeIp: '10.244.0.1',
        apiserver: [
          { ip: '10.244.0.1', port: 16443 },
          { ip: '10.96.0.1', port: 443 },
        ],
      });
      notes.push(`partitioned ${primary} from the other pods and the apiserver (writers and node kept)`);
      // Heal once another instance is the primary, once the old pod is gone, or after 60 s. The fault is
      // not over before: from the host (kept by the partition) the cut-off primary still answers, and
      // without synchronous replication it even commits, so the database's checks alone would pass.
      let healed = false;
      const oldPrimaryStop: NonNullable<InjectedFault['oldPrimaryStop']> = {};
      const healer = (async () => {
        const end = injectedAt + 60_000;
        let promotedAt: number | undefined;
        // Which mechanism stopped the old postmaster: itself (self-fencing, controllers/sampledb/fencing.ts) before
        // anything deleted its pod, or the kubelet acting on the operator's deletion.
        let stoppedAt: number | undefined;
        let deletedAt: number | undefined;
        const running = () => {
          try {
            return !!containerInit(uid, containerId(p, 'postgres'));
          } catch {
            return false;
          }
        };
        // every 100 ms (a read of /proc), apart from the loop below and its apiserver calls: the stop is timed against
        // its bound
        const watchStop = setInterval(() => {
          if (!stoppedAt && !running()) stoppedAt = Date.now();
        }, 100);
        while (Date.now() < end) {
          try {
            if (!deletedAt) {
              const now = await pod(ctx, primary).catch((err) => (/404/.test(String(err)) ? undefined : p));
              if (!now || now.metadata.uid !== uid || now.metadata.deletionTimestamp) deletedAt = Date.now();
            }
            const s = (await ctx.sdb()).status ?? {};
            if (s.currentPrimary && s.currentPrimary !== primary) {
              promotedAt = Date.now();
              break;
            }
          } catch {
            /* apiserver */
          }
          await sleep(250);
        }
        clearInterval(watchStop);
        const stillRuns = running();
        const t = (x: number | undefined) => (x === undefined ? '-' : ((x - injectedAt) / 1000).toFixed(1));
        if (stoppedAt !== undefined) {
          oldPrimaryStop.stoppedAfterS = (stoppedAt - injectedAt) / 1000;
          oldPrimaryStop.by = deletedAt === undefined || stoppedAt < deletedAt ? 'self-fencing' : 'pod deletion';
        }
        notes.push(
          `old postmaster stopped at ${t(stoppedAt)} s, its pod deleted at ${t(deletedAt)} s: ${stoppedAt === undefined ? 'not stopped before the promotion' : oldPrimaryStop.by === 'self-fencing' ? 'it fenced itself (self-fencing)' : 'stopped through its pod deletion'}`,
        );
        const rules = partitioned(uid);
        if (rules) healPod(uid);
        notes.push(
          promotedAt
            ? `another instance promoted ${((promotedAt - injectedAt) / 1000).toFixed(1)} s after the partition; the old primary's postmaster was ${stillRuns ? 'still running' : 'already stopped'}; partition ${rules ? 'healed then' : "gone with the old pod's network namespace"}`
            : `no promotion within 60 s; partition ${rules ? 'healed' : 'already gone'}`,
        );
        healed = true;
      })();
      return { injectedAt, notes, oldPrimaryStop, cleanup: () => healer, settled: async () => healed };
    }
    case 'apiserver-restart-mid-failover': {
      const injectedAt = Date.now();
      await deletePod(ctx, ctx.namespace, primary);
      const seen = await failoverStarted(ctx, primary);
      await sleep(Math.round(jitter * 2000));
      const at = Date.now();
      const r = await restartClusterProcess(ctx.clusterDir, 'apiserver', 'apiserver.log');
      const s = (t: number) => Math.round((t - injectedAt) / 100) / 10;
      notes.push(
        `kube-apiserver stopped ${s(at)} s after the primary's pod was deleted (${seen}), started again at ${s(Date.now())} s; pid ${r.oldPid} → ${r.newPid}`,
      );
      const measured: Record<string, number> = { apiserverStoppedAtS: s(at) };
      let routed: number | undefined;
      const monitor = (async () => {
        let direct: number | undefined;
        const end = Date.now() + 300_000;
        while (routed === undefined && Date.now() < end) {
          if (direct === undefined && (await readyz(ctx.k))) direct = Date.now();
          if (direct !== undefined && (await readyz(ctx.k, 'https://10.96.0.1:443'))) routed = Date.now();
          if (routed === undefined) await sleep(250);
        }
        if (direct !== undefined) measured.apiserverReadyAtS = s(direct);
        if (routed !== undefined) measured.serviceRoutedAtS = s(routed);
        notes.push(
          `apiserver ready again at ${direct === undefined ? 'never' : `${s(direct)} s`}, reachable through the kubernetes Service at ${routed === undefined ? 'never (5 min)' : `${s(routed)} s`}`,
        );
      })();
      return {
        injectedAt,
        notes,
        measured,
        settled: async () => routed !== undefined,
        boundStartsAtS: () => (routed === undefined ? undefined : s(routed)),
        cleanup: () => monitor,
      };
    }
    case 'node-agent-restart': {
      const injectedAt = Date.now();
      const kubelet = await restartClusterProcess(ctx.clusterDir, 'kubelet', 'kubelet.log');
      const agent = await restartClusterProcess(ctx.clusterDir, 'agent', 'agent.log');
      notes.push(`kubelet pid ${kubelet.oldPid} → ${kubelet.newPid}, node-agent pid ${agent.oldPid} → ${agent.newPid}`);
      // Back = the kubelet answers its health check and has reported the node Ready since its restart,
      // and the node-agent's DNS answers for the database's Service.
      const settled = async () => {
        try {
          if ((await fetch('http://127.0.0.1:10248/healthz')).status !== 200) return false;
          const node = (await kube(ctx.k, 'GET', '/api/v1/nodes')).items[0];
          const ready = node.status.conditions.find((c: any) => c.type === 'Ready');
          if (ready?.status !== 'True' || Date.parse(ready.lastHeartbeatTime) < injectedAt) return false;
          const resolver = new Resolver({ timeout: 1000, tries: 1 });
          resolver.setServers(['10.244.0.1']);
          return (await resolver.resolve4(`${ctx.db}-rw.${ctx.namespace}.svc.cluster.local`)).length > 0;
        } catch {
          return false;
        }
      };
      return { injectedAt, notes, settled };
    }
  }
}

/**
 * What a kubelet would write, and nothing else: pod status. There is no node and no container runtime, so
 * pods "run" because this stand-in says so: with kube-controller-manager, Deployments and StatefulSets then
 * become ready and Jobs complete through the real controllers. Pods of Jobs succeed (exit code 0) unless
 * `outcome` says otherwise; every other pod runs and is Ready.
 */
import type { ControlPlane } from '../../runtime/envtest';

export type PodOutcome = 'Running' | 'Succeeded' | 'Failed' | 'Pending';

export interface StandInKubeletOptions {
  /** The namespace whose pods this kubelet "runs". */
  readonly namespace: string;
  /** What happens to a pod. @default Succeeded for pods owned by a Job, Running (and Ready) for the rest */
  readonly outcome?: (pod: any) => PodOutcome;
  /** @default 100 */
  readonly pollMs?: number;
  /**
   * Confirm deletions as a kubelet does once a pod's containers stopped: a pod with a deletionTimestamp is
   * deleted with grace period 0 after `ms` (a StatefulSet then recreates it). @default - pods stay Terminating
   */
  readonly confirmDeletionsAfterMs?: number;
}

function defaultOutcome(pod: any): PodOutcome {
  return (pod.metadata.ownerReferences ?? []).some((r: any) => r.kind === 'Job') ? 'Succeeded' : 'Running';
}

function kubeletStatus(pod: any, outcome: Exclude<PodOutcome, 'Pending'>, now: string, podIP: string): object {
  const running = outcome === 'Running';
  const containerState = running
    ? { running: { startedAt: now } }
    : {
        terminated: {
          exitCode: outcome === 'Succeeded' ? 0 : 1,
          reason: outcome === 'Succeeded' ? 'Completed' : 'Error',
          startedAt: now,
          finishedAt: now,
        },
      };
  const cond = (type: string, status: boolean) => ({
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: now,
  });
  return {
    phase: outcome,
    hostIP: '10.0.0.10',
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: now,
    conditions: [
      cond('PodReadyToStartContainers', running),
      cond('Initialized', true),
      cond('Ready', running),
      cond('ContainersReady', running),
      cond('PodScheduled', true),
    ],
    containerStatuses: (pod.spec.containers ?? []).map((c: any) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      containerID: `containerd://${pod.metadata.uid}-${c.name}`,
      ready: running,
      started: running,
      restartCount: 0,
      state: containerState,
    })),
  };
}

export class StandInKubelet {
  private timer?: NodeJS.Timeout;
  private readonly done = new Set<string>();
  /** Pods given an address so far: each gets its own, as from a node's pod CIDR. */
  private addresses = 0;
  /** Status writes made (pod names). */
  readonly handled: string[] = [];

  constructor(
    private readonly plane: ControlPlane,
    private readonly opts: StandInKubeletOptions,
  ) {}

  start(): this {
    const tick = async () => {
      try {
        await this.sync();
      } catch {
        // the apiserver may be restarting: the next tick retries
      }
      if (this.timer) this.timer = setTimeout(tick, this.opts.pollMs ?? 100);
    };
    this.timer = setTimeout(tick, 0);
    return this;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private nextAddress(): string {
    const n = this.addresses++;
    return `10.1.${Math.floor(n / 200) % 250}.${(n % 200) + 10}`;
  }

  private async sync(): Promise<void> {
    const ns = this.opts.namespace;
    const list = await this.plane.request('GET', `/api/v1/namespaces/${ns}/pods`);
    for (const pod of list.body?.items ?? []) {
      const key = pod.metadata.uid;
      if (pod.metadata.deletionTimestamp) {
        const after = this.opts.confirmDeletionsAfterMs;
        if (
          after !== undefined &&
          Date.now() -
            Date.parse(pod.metadata.deletionTimestamp) +
            (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000 >=
            after
        ) {
          await this.plane.request('DELETE', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`, {
            kind: 'DeleteOptions',
            apiVersion: 'v1',
            gracePeriodSeconds: 0,
            preconditions: { uid: key },
          });
        }
        continue;
      }
      if (this.done.has(key)) continue;
      const outcome = (this.opts.outcome ?? defaultOutcome)(pod);
      if (outcome === 'Pending') continue;
      const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
      const r = await this.plane.request('PUT', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, {
        ...pod,
        status: kubeletStatus(pod, outcome, now, this.nextAddress()),
      });
      if (r.code === 200) {
        this.done.add(key);
        this.handled.push(pod.metadata.name);
      }
    }
  }
}

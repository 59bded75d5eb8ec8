/**
 * Fault primitives applied from the host of the single-node cluster (root, no exec into pods):
 * processes of a pod found through its cgroup, iptables rules in a pod's network namespace, and
 * restarts of the cluster's own processes (kube-apiserver, kubelet, node-agent) with the command
 * line, environment and working directory they run with, their pid file updated so that
 * `cluster.sh down` still stops them.
 */
import { spawn, spawnSync } from 'child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'fs';
import { join } from 'path';

const CGROUP_ROOT = '/sys/fs/cgroup/pids/kubepods';

/** The cgroup directory of a pod (`pod<uid>` under kubepods or one of its QoS classes). */
export function podCgroup(podUid: string): string {
  const name = `pod${podUid}`;
  for (const dir of [CGROUP_ROOT, join(CGROUP_ROOT, 'burstable'), join(CGROUP_ROOT, 'besteffort')]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`no cgroup for pod ${podUid} under ${CGROUP_ROOT}`);
}

/** PIDs (host namespace) in the cgroup of one container of a pod (`containerd://<id>` or the bare id). */
export function containerPids(podUid: string, containerId: string): number[] {
  const id = containerId.replace(/^[a-z]+:\/\//, '');
  const file = join(podCgroup(podUid), id, 'cgroup.procs');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** The container's init process (PID 1 in its PID namespace), from /proc/<pid>/status NSpid. */
export function containerInit(podUid: string, containerId: string): number | undefined {
  for (const pid of containerPids(podUid, containerId)) {
    try {
      const ns = /^NSpid:\s+(.*)$/m
        .exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
        .trim()
        .split(/\s+/);
      if (ns && ns[ns.length - 1] === '1') return pid;
    } catch {
      /* exited meanwhile */
    }
  }
  return undefined;
}

/** The process name (`comm`) of a PID, or undefined once it exited. */
export function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * A live PID of the pod whose network namespace is the pod's: its sandbox's `pause` process when there is one
 * (it lives as long as the pod), else any process of it. Not the first PID found: that can be a probe's
 * `pg_isready`, gone before nsenter opens its namespace (seen on the node: a whole long run lost to it).
 */
export function podNetnsPid(podUid: string): number {
  const root = podCgroup(podUid);
  const pids: number[] = [];
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    const procs = join(root, d.name, 'cgroup.procs');
    if (!existsSync(procs)) continue;
    pids.push(...readFileSync(procs, 'utf8').split('\n').filter(Boolean).map(Number));
  }
  const live = pids.filter((pid) => existsSync(`/proc/${pid}/ns/net`));
  const pid = live.find((x) => comm(x) === 'pause') ?? live[0];
  if (!pid) throw new Error(`pod ${podUid} has no running process`);
  return pid;
}

/** iptables inside the pod's network namespace (nsenter from the host); a process gone meanwhile is replaced by another. */
export function podIptables(podUid: string, args: string[], allowFail = false): boolean {
  let r = { status: 1 as number | null, stderr: '' };
  for (let attempt = 0; attempt < 3; attempt++) {
    const pid = podNetnsPid(podUid);
    r = spawnSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'iptables', '-w', ...args], { encoding: 'utf8' });
    if (r.status === 0 || !/cannot open \/proc\//.test(r.stderr)) break;
  }
  if (r.status !== 0 && !allowFail) throw new Error(`iptables ${args.join(' ')} in pod ${podUid}: ${r.stderr}`);
  return r.status === 0;
}

/** What a partition cuts the pod off from, and what it keeps. */
export interface PartitionSpec {
  /** Pod IPs that keep reaching the pod (the writers: clients on its side of the partition). */
  readonly keep: readonly string[];
  /** The pod network (everything else in it is cut off), e.g. 10.244.0.0/24. */
  readonly podCidr: string;
  /** The node's address on the pod network (kubelet, DNS, the host's own probes): kept, except the apiserver port. */
  readonly nodeIp: string;
  /** The apiserver as the pod sees it: node IP + secure port, and the `kubernetes` Service. */
  readonly apiserver: readonly { ip: string; port: number }[];
}

const CHAIN_IN = 'CHAOS-PARTITION-IN';
const CHAIN_OUT = 'CHAOS-PARTITION-OUT';

/**
 * Cuts the pod off from every other pod (standbys, the operator) and from the apiserver, in both
 * directions, keeping `keep` and the node. Established connections are cut too (DROP, not REJECT:
 * a partition loses packets, it does not answer).
 */
export function partitionPod(podUid: string, s: PartitionSpec): void {
  const ipt = (...a: string[]) => podIptables(podUid, a);
  healPod(podUid);
  ipt('-N', CHAIN_IN);
  ipt('-N', CHAIN_OUT);
  for (const ip of [...s.keep, s.nodeIp]) {
    ipt('-A', CHAIN_IN, '-s', ip, '-j', 'RETURN');
  }
  for (const a of s.apiserver) ipt('-A', CHAIN_OUT, '-d', a.ip, '-p', 'tcp', '--dport', String(a.port), '-j', 'DROP');
  for (const ip of [...s.keep, s.nodeIp]) {
    ipt('-A', CHAIN_OUT, '-d', ip, '-j', 'RETURN');
  }
  ipt('-A', CHAIN_IN, '-s', s.podCidr, '-j', 'DROP');
  ipt('-A', CHAIN_OUT, '-d', s.podCidr, '-j', 'DROP');
  ipt('-I', 'INPUT', '1', '-j', CHAIN_IN);
  ipt('-I', 'OUTPUT', '1', '-j', CHAIN_OUT);
}

/** Removes the partition rules (no-op when there are none, or when the pod is gone with its netns). */
export function healPod(podUid: string): boolean {
  try {
    podIptables(podUid, ['-D', 'INPUT', '-j', CHAIN_IN], true);
    podIptables(podUid, ['-D', 'OUTPUT', '-j', CHAIN_OUT], true);
    for (const c of [CHAIN_IN, CHAIN_OUT]) {
      podIptables(podUid, ['-F', c], true);
      podIptables(podUid, ['-X', c], true);
    }
    return true;
  } catch {
    return false;
  }
}

/** Whether the pod's netns still carries partition rules. */
export function partitioned(podUid: string): boolean {
  try {
    return podIptables(podUid, ['-S', CHAIN_IN], true);
  } catch {
    return false;
  }
}

/**
 * Whether a process still runs or still holds what it opened. A zombie counts as gone, unless it is a thread-group
 * leader whose other threads are still exiting: until the last one has, the process keeps its files, a listening
 * socket included. A kubelet restarted in that window (2026-12-01, rehearsal AR) failed with "bind: address already
 * in use" on its ports and never came back.
 */
export function processAlive(pid: number): boolean {
  try {
    if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z') return true;
    return readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Restarts one of the cluster's processes recorded in `<clusterDir>/<name>.pid` (apiserver, kubelet,
 * agent, ...): same argv, environment and working directory; SIGTERM, SIGKILL after `graceMs`;
 * output appended to `<clusterDir>/<log>`; the new PID written back. Resolves with the downtime start.
 */
export async function restartClusterProcess(
  clusterDir: string,
  name: string,
  log: string,
  graceMs = 20_000,
): Promise<{ oldPid: number; newPid: number }> {
  const pidFile = join(clusterDir, `${name}.pid`);
  const oldPid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!processAlive(oldPid)) throw new Error(`${name} (pid ${oldPid}) is not running`);
  const argv = readFileSync(`/proc/${oldPid}/cmdline`, 'utf8')
    .split('\0')
    .filter((x, i, a) => i < a.length - 1 || x);
  const env = Object.fromEntries(
    readFileSync(`/proc/${oldPid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const cwd = readlinkSync(`/proc/${oldPid}/cwd`);
  process.kill(oldPid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (processAlive(oldPid) && Date.now() < deadline) await sleep(100);
  if (processAlive(oldPid)) process.kill(oldPid, 'SIGKILL');
  while (processAlive(oldPid)) await sleep(50);
  const fd = openSync(join(clusterDir, log), 'a');
  // detached: a new session (setsid), as cluster.sh starts it; the suite does not wait for it.
  const child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  if (!child.pid) throw new Error(`${name}: restart failed`);
  writeFileSync(pidFile, `${child.pid}\n`);
  return { oldPid, newPid: child.pid };
}

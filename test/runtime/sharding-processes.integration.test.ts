/**
 * kill -9 of a shard ring member that is an OS process (sharding.integration.test.ts covers the same ring in one
 * process, where a kill can only be imitated by cutting a member off): three members of one ring run as child
 * processes (shard-member.fixture.ts, started with tsx as a Deployment's pods would run the binary), each marking
 * its share of 24 ConfigMaps on the real apiserver; the first member of the view (the one that also assigns new
 * objects) is SIGKILLed. The test reads every write each member announced (before the request and once accepted),
 * and checks, with bounds taken from the Lease:
 * - no survivor wrote an object of the dead member's share before the dead member, were it alive and cut off, would
 *   have stopped writing by its own guard (its last renewTime plus the renew deadline, 1 s before its Lease expires):
 *   a member that stops answering is not replaced while it could still write;
 * - its whole share was written by the survivors within the Lease duration plus 5 s after the kill;
 * - 0 objects written by two members at once over the whole run (a write cut short by the kill counts as running
 *   until the kill), and every object converges to its owner among the survivors.
 */
import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { createInterface } from 'readline';
import { CONFIGMAP, overlappingWrites, ShardWrite } from './shard-writes';
import { hostSlackMs, tsxCommand, until } from './support';
import { RestClient } from '../../runtime/client';
import { rendezvousOwner } from '../../runtime/sharding';
import { describeRealApiServer } from '../envtest';

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' };
const N = 24;
const LEASE_MS = 3000;
/** The fixture's renew deadline: a member that could not renew for this long refuses its own writes. */
const RENEW_DEADLINE_MS = 2000;
const RING = 'procs';

/** A member process and what it said. */
interface Member {
  readonly child: ChildProcess;
  name?: string;
  view: readonly string[];
  readonly exited: Promise<unknown>;
  /** Writes announced but not (yet) accepted, by key. */
  readonly open: Map<string, number>;
}

describeRealApiServer(
  'sharded member processes: kill -9',
  (plane) => {
    const ns = 'sharded-procs';
    let admin: RestClient;
    let dir: string;
    const members: Member[] = [];
    const writes: ShardWrite[] = [];
    const uids = new Map<string, string>();
    let version = 0;

    beforeAll(async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      for (let i = 0; i < N; i++) {
        const cm = await admin.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: ns },
          data: { v: '0' },
        });
        uids.set(cm.metadata!.name!, cm.metadata!.uid!);
      }
      dir = mkdtempSync(join(tmpdir(), 'shard-procs-'));
      plane().writeKubeconfig(join(dir, 'kubeconfig'));
    }, 60_000);
    afterAll(async () => {
      for (const m of members) {
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGTERM');
      }
      await Promise.race([
        Promise.all(members.map((m) => m.exited)),
        new Promise((r) => setTimeout(r, 10_000).unref()),
      ]);
      for (const m of members) {
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
        m.child.stdout?.destroy();
      }
      admin?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    function start(): Member {
      const member = tsxCommand(join(__dirname, 'shard-member.fixture.ts'), [ns, RING]);
      const child = spawn(member.command, member.args, {
        env: { ...member.env, KUBECONFIG: join(dir, 'kubeconfig') },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const m: Member = {
        child,
        view: [],
        open: new Map(),
        exited: new Promise((resolve) => child.once('exit', resolve)),
      };
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const said = JSON.parse(line) as Record<string, any>;
        if (said.member) m.name = said.member;
        if (said.view) m.view = said.view;
        if (said.start) m.open.set(said.start, said.at);
        if (said.end) {
          writes.push({ member: m.name!, key: said.end, start: m.open.get(said.end)!, end: said.at });
          m.open.delete(said.end);
        }
        if (said.refused) m.open.delete(said.refused);
      });
      members.push(m);
      return m;
    }

    /** Touches every ConfigMap (a new data.v) and waits until each is marked for it by `owners`' choice. */
    async function touchAndConverge(live: readonly string[]): Promise<void> {
      version++;
      for (let i = 0; i < N; i++) {
        await admin.patch(CONFIGMAP, `cm-${i}`, ns, { type: 'merge', body: { data: { v: String(version) } } });
      }
      await until(
        `all ${N} ConfigMaps marked for v${version} by their owners among ${live.length}`,
        async () =>
          (await admin.list(CONFIGMAP, { namespace: ns })).items
            .filter((o) => o.metadata!.name!.startsWith('cm-'))
            .every(
              (o) =>
                o.metadata?.annotations?.seen === `${version}/${o.metadata!.name}` &&
                o.metadata.annotations.by === rendezvousOwner(uids.get(o.metadata!.name!)!, live),
            ),
        30_000,
        200,
      );
      // The apiserver shows a write before its member has said so on stdout: wait until the owners' writes are logged.
      const writers = members.filter((m) => live.includes(m.name!));
      await until('the owners logged their writes', () => writers.every((m) => m.open.size === 0), 10_000, 50);
    }

    const overlaps = () => overlappingWrites(writes);

    test('the first member is SIGKILLed: its share is taken over once it could no longer write, within the Lease plus 5 s; no object written by two members at once', async () => {
      start();
      start();
      start();
      await until(
        'three member processes acting on one 3-member view',
        () =>
          members.every((m) => m.name && m.view.length === 3) &&
          new Set(members.map((m) => JSON.stringify(m.view))).size === 1,
        40_000,
        100,
      );
      const names = members.map((m) => m.name!);
      await touchAndConverge(names);

      const victim = members.find((m) => m.name === [...names].sort()[0])!;
      const share = [...uids].filter(([, uid]) => rendezvousOwner(uid, names) === victim.name).map(([n]) => n);
      expect(share.length).toBeGreaterThan(0);
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      await victim.exited;
      expect(victim.child.signalCode).toBe('SIGKILL');
      // A write announced and not confirmed may have reached the apiserver: it counts as running until the kill.
      for (const [key, at] of victim.open) writes.push({ member: victim.name!, key, start: at, end: killedAt });
      const lease = await admin.get(LEASE, victim.name!, ns);
      const expiresAt = Date.parse((lease.spec as { renewTime: string }).renewTime) + LEASE_MS;

      const survivors = names.filter((n) => n !== victim.name);
      await until(
        'the survivors acting on a 2-member view',
        () => members.filter((m) => m !== victim).every((m) => m.view.length === 2),
        LEASE_MS + 10_000,
        100,
      );
      await touchAndConverge(survivors);
      const firsts = share.map((name) => {
        const w = writes.find((x) => x.key === `${ns}/${name}` && x.member !== victim.name && x.end > killedAt);
        if (!w) throw new Error(`${name}, owned by the killed member, was not written by a survivor`);
        return w;
      });
      const first = Math.min(...firsts.map((w) => w.start));
      const whole = Math.max(...firsts.map((w) => w.end));
      console.log(
        `sharding processes: kill -9 of 1 of 3 members (${share.length} of ${N} objects): its Lease expired ` +
          `${expiresAt - killedAt} ms after the kill; first survivor write ${first - killedAt} ms, whole share ${whole - killedAt} ms after it ` +
          `(Lease ${LEASE_MS} ms); ${writes.length} writes audited`,
      );
      // A survivor may act once its own clock says the Lease expired; what the bound guards is that a member still
      // alive would have stopped writing by then (renew deadline < Lease duration).
      expect(first).toBeGreaterThanOrEqual(expiresAt - (LEASE_MS - RENEW_DEADLINE_MS));
      expect(whole - killedAt).toBeLessThan(LEASE_MS + hostSlackMs(5000));
      expect(overlaps()).toEqual([]);
      expect(new Set(writes.map((w) => w.member)).size).toBe(3);
    }, 90_000);
  },
  { shared: true },
);

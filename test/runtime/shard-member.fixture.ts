/**
 * One member of a shard ring as an OS process of its own, as a Deployment runs them (sharding-processes.integration.test.ts
 * starts three with `node tsx`, then SIGKILLs one). It marks each ConfigMap of namespace `argv[2]` with the data
 * version it saw and its own name, like the in-process members of sharding.integration.test.ts, and tells the test
 * what it does on stdout, one JSON object a line:
 * - `{"member":…}` once started (its member name, the name of its Lease);
 * - `{"view":[…]}` whenever the members it acts with change;
 * - `{"start":key,"at":ms}` before each write and `{"end":key,"at":ms}` once answered (`"failed"` added when the
 *   answer was an error: it may have landed all the same; a write the guard refused without sending it:
 *   `{"refused":key,"at":ms}`), so a write cut short by SIGKILL shows as a start without an end.
 * Kubeconfig: `KUBECONFIG`. Lease 3 s, renew deadline 2 s, retry 300 ms (as the in-process test).
 */
import { ControllerBuilder } from '../../runtime/controller';
import { isNotFound } from '../../runtime/errors';
import { NotLeaderError } from '../../runtime/leader-guard';
import { silentLogger } from '../../runtime/log';
import { Manager } from '../../runtime/manager';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const [ns, ring] = process.argv.slice(2);
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const manager = new Manager({
  namespace: ns,
  logger: silentLogger,
  informer: { backoff: { initialMs: 50, maxMs: 500 }, watchdogMs: 5000, resyncPeriodMs: 0 },
  gracefulShutdownTimeoutMs: 5000,
  sharding: { ring, key: 'uid', namespace: ns, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 },
});
const store = manager.getInformer(CONFIGMAP).cache;
new ControllerBuilder(manager, { name: 'marker' })
  .for(CONFIGMAP)
  .withConcurrency(4)
  .complete({
    reconcile: async ({ namespace, name }, ctx) => {
      const me = manager.shard!.member;
      const cm = store.get(`${namespace}/${name}`);
      if (!cm) return;
      const seen = `${(cm.data as Record<string, string> | undefined)?.v}/${name}`;
      if (cm.metadata?.annotations?.seen === seen && cm.metadata.annotations.by === me) return;
      const key = `${namespace}/${name}`;
      say({ start: key, at: Date.now() });
      try {
        await ctx!.client.patch(
          CONFIGMAP,
          name!,
          namespace,
          { type: 'merge', body: { metadata: { annotations: { seen, by: me } } } },
          { fieldManager: me },
        );
        say({ end: key, at: Date.now() });
      } catch (err) {
        if (err instanceof NotLeaderError) {
          say({ refused: key, at: Date.now() });
        } else {
          // Sent and not answered well: it may have reached the apiserver, so it is audited as a write.
          say({ end: key, at: Date.now(), failed: String(err) });
          if (!isNotFound(err)) throw err;
        }
      }
    },
  });

manager.installSignalHandlers();
void manager.start().then(() => {
  say({ member: manager.shard!.member });
  let last = '';
  setInterval(() => {
    const view = JSON.stringify(manager.shard!.members);
    if (view !== last) say({ view: manager.shard!.members });
    last = view;
  }, 100);
});

/**
 * The chaos suite's account of a fault that did not recover: what the operator last said about the database, for the
 * log of the failed run (a failover that never started names its reason in the status and the events).
 */
import { kube, KubeAccess } from './kube';

/**
 * The SampleDB's current and target primary, its instances and conditions, and the last 15 events about it or its
 * pods, oldest first, as log lines; a line saying so when they cannot be read (the apiserver may be down).
 */
export async function whyNotRecovered(k: KubeAccess, sdbPath: string, ns: string, db: string): Promise<string> {
  try {
    const s = (await kube(k, 'GET', sdbPath)).status ?? {};
    const conditions = ((s.conditions ?? []) as any[]).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
    // the operator records events.k8s.io events: a series' last time, else the event's own
    const at = (e: any) => String(e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime);
    const events = ((await kube(k, 'GET', `/api/v1/namespaces/${ns}/events`)).items as any[])
      .filter((e) => e.involvedObject?.name?.startsWith(db))
      .sort((a, b) => at(a).localeCompare(at(b)))
      .slice(-15)
      .map((e) => `${at(e)} ${e.involvedObject.name} ${e.reason} (x${e.series?.count ?? e.count ?? 1}): ${e.message}`);
    return [
      `chaos:   ${db}: primary ${s.currentPrimary}, target ${s.targetPrimary ?? 'none'}, instances ${JSON.stringify(s.instances ?? [])}`,
      ...conditions.map((c) => `chaos:   condition ${c}`),
      ...events.map((e) => `chaos:   event ${e}`),
    ].join('\n');
  } catch (err) {
    return `chaos:   could not read ${db}'s conditions and events: ${(err as Error).message}`;
  }
}

/**
 * The HTTPS side of rest-get.ts, on a worker thread (synckit): the suites' polling loops are synchronous, and a curl
 * process a GET cost 15 ms of CPU of its own (rehearsal AQ: 3,406 calls, 52.8 CPU-s; bench/latest/ci-time) besides
 * the runner's fork of it. One kept-alive connection, trusting only the cluster's CA.
 */
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:https';
import { runAsWorker } from 'synckit';

let agent: Agent | undefined;
let agentCa: string | undefined;

export interface WorkerReply {
  readonly code: number;
  readonly text: string;
}

runAsWorker(
  (url: string, caFile: string, token: string, timeoutMs: number): Promise<WorkerReply> =>
    new Promise((resolve, reject) => {
      if (agentCa !== caFile) {
        agent?.destroy();
        agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(caFile) });
        agentCa = caFile;
      }
      const request = get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
    }),
);

/**
 * A webhook receiver for Alertmanager (`webhook_configs`), for the demo and the node e2e suite: it keeps
 * the last 100 notifications in memory and logs each as a JSON line.
 *
 *   POST /alerts   an Alertmanager webhook payload (version 4)
 *   GET  /alerts   the notifications received, oldest first, as JSON
 *   GET  /healthz  200
 *   GET  /metrics  `alert_receiver_notifications_total` (Prometheus text format): the receiver is also a scrape target
 *
 *   node receiver.js [--port=8080]
 */
import { createServer, Server } from 'http';
import { parseArgs } from 'util';

/** One notification as Alertmanager sends it (the fields the receiver shows). */
export interface Notification {
  readonly receivedAt: string;
  readonly receiver?: string;
  readonly status?: string;
  readonly alerts?: readonly {
    status?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  }[];
}

/** Starts the receiver; resolves once listening. */
export function startReceiver(port: number, keep = 100): Promise<Server> {
  const received: Notification[] = [];
  let total = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      res.writeHead(200).end('ok');
    } else if (req.method === 'GET' && req.url === '/metrics') {
      res
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
        .end(
          '# HELP alert_receiver_notifications_total Alertmanager notifications received.\n' +
            '# TYPE alert_receiver_notifications_total counter\n' +
            `alert_receiver_notifications_total ${total}\n`,
        );
    } else if (req.method === 'GET' && req.url === '/alerts') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    } else if (req.method === 'POST' && req.url === '/alerts') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const payload = typeof body === 'object' && body !== null ? body : {};
          const note: Notification = { receivedAt: new Date().toISOString(), ...payload };
          received.push(note);
          total++;
          if (received.length > keep) received.shift();
          process.stdout.write(
            JSON.stringify({ ts: note.receivedAt, level: 'info', msg: 'notification', notification: note }) + '\n',
          );
          res.writeHead(200).end('ok');
        } catch (err) {
          res.writeHead(400).end(`bad payload: ${String(err)}`);
        }
      });
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}

if (require.main === module) {
  const { values } = parseArgs({ options: { port: { type: 'string' } } });
  const port = Number(values.port ?? '8080');
  void startReceiver(port).then(() =>
    process.stdout.write(
      JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg: 'listening', port }) + '\n',
    ),
  );
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
}

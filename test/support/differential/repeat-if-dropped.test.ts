import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { repeatIfDropped } from './repeat-if-dropped';
import { request } from '../../../runtime/envtest/http';

/** A server that closes the connection of its first `drops` requests without a reply, then answers 422. */
async function droppingServer(drops: number): Promise<{ server: Server; url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((req, res) => {
    seen++;
    if (seen <= drops) {
      req.socket.destroy();
      return;
    }
    res.writeHead(422, { 'Content-Type': 'application/json' }).end(JSON.stringify({ kind: 'Status', code: 422 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: () => seen };
}

describe('repeatIfDropped', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  test('a request whose connection was dropped twice is sent a third time and its reply returned', async () => {
    const { server, url, seen } = await droppingServer(2);
    servers.push(server);
    const warned: string[] = [];
    const reply = await repeatIfDropped('case-1', () => request({ url }, 'POST', '/x?dryRun=All', {}), {
      pauseMs: 10,
      warn: (line) => warned.push(line),
    });
    expect(reply.code).toBe(422);
    expect(seen()).toBe(3);
    expect(warned).toStrictEqual([
      expect.stringMatching(
        /^case-1: no reply \(socket hang up \(on a new connection, after \d+ ms\)\), sending it again \(attempt 2 of 3\)$/,
      ),
      expect.stringMatching(
        /^case-1: no reply \(socket hang up \(on a new connection, after \d+ ms\)\), sending it again \(attempt 3 of 3\)$/,
      ),
    ]);
  });

  test('after the last attempt the failure names the request and the cause', async () => {
    const { server, url, seen } = await droppingServer(5);
    servers.push(server);
    const warned: string[] = [];
    const sent = repeatIfDropped('case-2', () => request({ url }, 'POST', '/x', {}), {
      pauseMs: 10,
      warn: (line) => warned.push(line),
    });
    await expect(sent).rejects.toThrow('case-2: no reply in 3 attempts: socket hang up');
    expect(seen()).toBe(3);
    expect(warned).toHaveLength(2);
  });

  test('a reply, even an error code, is never repeated', async () => {
    const { server, url, seen } = await droppingServer(0);
    servers.push(server);
    expect((await repeatIfDropped('case-3', () => request({ url }, 'POST', '/x', {}))).code).toBe(422);
    expect(seen()).toBe(1);
  });
});

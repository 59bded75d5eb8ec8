import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { request } from '../../runtime/envtest/http';

/**
 * runtime/envtest/http.ts on a local server: a request whose kept-alive connection the server closed is sent again on
 * a new one (the race of a server closing an idle connection as the client reuses it); a request that fails on a new
 * connection is not, and its error says which it was.
 */
async function server(dropRequest: (ofConnection: number) => boolean): Promise<{
  server: Server;
  url: string;
  seen: () => { requests: number; connections: number };
}> {
  let requests = 0;
  const perConnection = new Map<Socket, number>();
  const s = createServer((req, res) => {
    requests++;
    const n = (perConnection.get(req.socket) ?? 0) + 1;
    perConnection.set(req.socket, n);
    if (dropRequest(n)) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ n }));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    server: s,
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen: () => ({ requests, connections: perConnection.size }),
  };
}

describe('envtest http request', () => {
  const servers: Server[] = [];
  afterEach(() =>
    servers.splice(0).forEach((s) => {
      s.closeAllConnections();
      s.close();
    }),
  );

  test('a kept-alive connection closed by the server: the request is sent once more, on a new connection', async () => {
    // the server drops the second request of every connection, as if it had closed the connection while idle
    const { server: s, url, seen } = await server((n) => n === 2);
    servers.push(s);
    expect((await request({ url }, 'POST', '/first', {})).body).toStrictEqual({ n: 1 });
    const second = await request({ url }, 'POST', '/second', {});
    expect(second).toMatchObject({ code: 200, body: { n: 1 } });
    expect(seen()).toStrictEqual({ requests: 3, connections: 2 });
  });

  test('a new connection dropped before any reply: not sent again, and the error says so', async () => {
    const { server: s, url, seen } = await server(() => true);
    servers.push(s);
    await expect(request({ url }, 'POST', '/x', {})).rejects.toThrow(
      /^socket hang up \(on a new connection, after \d+ ms\)$/,
    );
    expect(seen()).toStrictEqual({ requests: 1, connections: 1 });
  });
});

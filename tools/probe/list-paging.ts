/**
 * How the real kube-apiservers answer an informer's first list, asked of 1.28, 1.32 and 1.36 (bare apiserver and
 * etcd): does `limit` page a list served from the watch cache (`resourceVersion=0`, what client-go's reflector and
 * the runtime's unfiltered informers send), and is a streaming list (WatchList: `sendInitialEvents=true`) served?
 * The sharding memory model of docs/sharding.md relies on these answers (a member's filtered informers list without
 * `resourceVersion=0`, in pages).
 *
 *   npx tsx tools/probe/list-paging.ts [--out=bench/latest/list-paging-probe.txt]
 */
import * as fs from 'node:fs';
import { kubernetesAssetsDir } from '../../bench/real-control-plane';
import { ControlPlane } from '../../runtime/envtest';

const OBJECTS = 1200;
const LIMIT = 500;

async function probe(version: '1.28' | '1.32' | '1.36'): Promise<string[]> {
  const plane = await ControlPlane.start({ assetsDir: kubernetesAssetsDir(version), controllerManager: false });
  try {
    const lines = [`kube-apiserver ${version} (${kubernetesAssetsDir(version)}):`];
    const configMap = (i: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'default' },
      data: { a: 'x' },
    });
    for (let i = 0; i < OBJECTS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          plane.request('POST', '/api/v1/namespaces/default/configmaps', configMap(i + j)),
        ),
      );
    }
    for (const rv of ['0', undefined]) {
      const query = `limit=${LIMIT}${rv === undefined ? '' : `&resourceVersion=${rv}`}`;
      const r = await plane.request('GET', `/api/v1/namespaces/default/configmaps?${query}`);
      lines.push(
        `  list ?${query}: HTTP ${r.code}, ${r.body.items?.length} of ${OBJECTS} items, continue token: ${r.body.metadata?.continue ? 'yes' : 'no'}`,
      );
    }
    const watch = await plane.request(
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2',
    );
    const text = typeof watch.body === 'string' ? watch.body : JSON.stringify(watch.body);
    lines.push(
      `  watch with sendInitialEvents=true: HTTP ${watch.code}, first line: ${text.split('\n')[0].slice(0, 300)}`,
    );
    return lines;
  } finally {
    await plane.stop();
  }
}

async function main(): Promise<void> {
  const out = process.argv.find((a) => a.startsWith('--out='))?.slice('--out='.length);
  const lines = [`# tools/probe/list-paging.ts, ${new Date().toISOString()}`];
  for (const version of ['1.28', '1.32', '1.36'] as const) lines.push(...(await probe(version)));
  const text = `${lines.join('\n')}\n`;
  if (out) fs.writeFileSync(out, text);
  process.stdout.write(text);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

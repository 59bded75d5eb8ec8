import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetKubectlDiscovery } from '../../runtime/envtest/kubeconfig';

// What it removes is kubectl's own folder for a server: shared-planes.test.ts shows with a real kubectl that the
// next suite's kubectl then maps kinds as on a fresh cluster.
describe('forgetKubectlDiscovery', () => {
  let cache: string;
  const folder = (host: string) => join(cache, 'discovery', host);
  const cached = (host: string) => {
    mkdirSync(folder(host), { recursive: true });
    writeFileSync(join(folder(host), 'servergroups.json'), '{}');
  };
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'kubecache-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  test("removes the server's folder in $KUBECACHEDIR, named as kubectl names it, and no other", () => {
    cached('127.0.0.1_6443');
    cached('127.0.0.1_64430');
    forgetKubectlDiscovery('https://127.0.0.1:6443', { KUBECACHEDIR: cache });
    expect([existsSync(folder('127.0.0.1_6443')), existsSync(folder('127.0.0.1_64430'))]).toEqual([false, true]);
  });

  test('uses $HOME/.kube/cache without $KUBECACHEDIR, and does nothing when there is no cache', () => {
    const home = cache;
    cache = join(home, '.kube', 'cache');
    cached('localhost_8443');
    forgetKubectlDiscovery('https://localhost:8443', { HOME: home });
    forgetKubectlDiscovery('https://localhost:9443', { HOME: home });
    expect(existsSync(folder('localhost_8443'))).toBe(false);
    cache = home;
  });
});

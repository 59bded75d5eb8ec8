import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart } from 'cdk8s';
import { runCommand } from '../../cli/run-command';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, Schema } from '../../lib';
import { readManifests } from '../../runtime/envtest';
import { LeaderElectionForbiddenError } from '../../runtime/leader-election';
import { silentLogger } from '../../runtime/log';
import { Manager } from '../../runtime/manager';
import { describeRealApiServer } from '../envtest';

const OPERATOR_NS = 'gadget-operator-system';
const OPERATOR_USER = `system:serviceaccount:${OPERATOR_NS}:gadget-operator`;

/** The chart as a user's `npm run synth` writes it: CRD, operator (Role in `run-team`, Lease grant), an example. */
function synth(dir: string): string {
  const app = new OperatorApp({ outdir: path.join(dir, 'dist'), layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, 'gadgets');
  const crd = new CustomResourceDefinition(chart, 'Gadget', {
    group: 'run.example.com',
    kind: 'Gadget',
    versions: [{ name: 'v1', spec: Schema.object({ properties: { size: Schema.integer() } }) }],
  });
  new Operator(chart, 'gadget-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/gadget:0.1.0',
    watchNamespaces: ['run-team'],
    contract: { watches: [crd], leaderElection: true },
  });
  new CustomResource(chart, 'example', {
    crd,
    metadata: { name: 'example', namespace: 'run-team' },
    spec: { size: 1 },
  });
  app.synth();
  return path.join(dir, 'dist');
}

/**
 * A stand-in for the controller bundle: who its kubeconfig authenticates as (SelfSubjectReview, Node built-ins
 * only), its environment and args, written to RESULT_FILE.
 */
const PROBE = `
const fs = require('fs'); const https = require('https');
const kc = fs.readFileSync(process.env.KUBECONFIG, 'utf8');
const server = /server: (\\S+)/.exec(kc)[1]; const token = fs.readFileSync(/token-file: (\\S+)/.exec(kc)[1], 'utf8');
const ca = Buffer.from(/certificate-authority-data: (\\S+)/.exec(kc)[1], 'base64');
const req = https.request(new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server), { method: 'POST', ca, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' } }, (res) => {
  let body = ''; res.on('data', (c) => body += c); res.on('end', () => {
    fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ user: JSON.parse(body).status.userInfo.username, kubeconfig: process.env.KUBECONFIG,
      mode: (fs.statSync(process.env.KUBECONFIG).mode & 0o777).toString(8), podNamespace: process.env.POD_NAMESPACE, watchNamespace: process.env.WATCH_NAMESPACE, args: process.argv.slice(2) }));
    process.exit(7);
  });
});
req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
`;

jest.setTimeout(120_000);

describeRealApiServer(
  'out of cluster as the operator: `cdk8s-operator run`, envtest applyObjects/operatorIdentity, the Lease namespace',
  (plane) => {
    let tmp: string;
    let dist: string;
    const cwd = process.cwd();
    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'run-cmd-'));
      dist = synth(tmp);
      // the envtest helper applies the synth output in dist/APPLY.md's order
      await plane().applyObjects(readManifests([dist]));
    });
    afterAll(() => {
      process.chdir(cwd);
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    test('envtest: every object of the chart is applied (namespaces, CRD, RBAC, Deployment, the custom resource after its CRD); again changes nothing', async () => {
      const get = async (p: string) => (await plane().request('GET', p)).code;
      expect(await get('/apis/run.example.com/v1/namespaces/run-team/gadgets/example')).toBe(200);
      expect(await get(`/apis/apps/v1/namespaces/${OPERATOR_NS}/deployments/gadget-operator`)).toBe(200);
      const before = (
        await plane().request('GET', `/apis/apps/v1/namespaces/${OPERATOR_NS}/deployments/gadget-operator`)
      ).body.metadata.resourceVersion;
      await plane().applyObjects(readManifests([dist]));
      expect(
        (await plane().request('GET', `/apis/apps/v1/namespaces/${OPERATOR_NS}/deployments/gadget-operator`)).body
          .metadata.resourceVersion,
      ).toBe(before);
      expect((await plane().operatorIdentity(readManifests([dist]))).user).toBe(OPERATOR_USER);
    });

    test("runs the bundle with a minted 0600 kubeconfig of the chart's ServiceAccount (SelfSubjectReview), POD_NAMESPACE, WATCH_NAMESPACE and the chart's args, then removes it", async () => {
      process.chdir(tmp);
      fs.mkdirSync('bundle', { recursive: true });
      fs.writeFileSync('bundle/controller.js', PROBE);
      const admin = path.join(tmp, 'admin.kubeconfig');
      plane().writeKubeconfig(admin);
      const result = path.join(tmp, 'result.json');
      const lines: string[] = [];
      const code = await runCommand(
        {
          extraArgs: ['--metrics-bind-address=0'],
          env: { ...process.env, KUBECONFIG: admin, RESULT_FILE: result, WATCH_NAMESPACE: undefined },
        },
        (l) => lines.push(l),
      );
      expect(code).toBe(7); // the controller's own exit code
      const seen = JSON.parse(fs.readFileSync(result, 'utf8'));
      expect(seen).toMatchObject({
        user: OPERATOR_USER,
        mode: '600',
        podNamespace: OPERATOR_NS,
        watchNamespace: 'run-team',
      });
      expect(seen.args).toStrictEqual([
        '--health-probe-bind-address=:8081',
        '--metrics-bind-address=:8080',
        '--leader-elect',
        '--metrics-bind-address=0',
      ]);
      expect(fs.existsSync(seen.kubeconfig)).toBe(false);
      expect(lines[0]).toMatch(
        new RegExp(
          `^running bundle/controller\\.js as ${OPERATOR_USER} \\(token valid 3600 s; namespace ${OPERATOR_NS}; WATCH_NAMESPACE=run-team\\)`,
        ),
      );
    });

    test('the token is refreshed on disk before it expires; the new one authenticates as the ServiceAccount too', async () => {
      // A stand-in controller that waits for its token file to change, then asks who each token is.
      const refreshProbe = `
const fs = require('fs'); const https = require('https');
const kc = fs.readFileSync(process.env.KUBECONFIG, 'utf8');
const server = /server: (\\S+)/.exec(kc)[1]; const file = /token-file: (\\S+)/.exec(kc)[1];
const ca = Buffer.from(/certificate-authority-data: (\\S+)/.exec(kc)[1], 'base64');
const who = (token) => new Promise((resolve) => {
  const req = https.request(new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server), { method: 'POST', ca, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' } }, (res) => {
    let body = ''; res.on('data', (c) => body += c); res.on('end', () => resolve(JSON.parse(body).status.userInfo.username));
  });
  req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
});
const first = fs.readFileSync(file, 'utf8');
const started = Date.now();
const poll = setInterval(async () => {
  const now = fs.readFileSync(file, 'utf8');
  if (now === first && Date.now() - started < 20000) return;
  clearInterval(poll);
  fs.writeFileSync(process.env.RESULT_FILE, JSON.stringify({ changed: now !== first, users: [await who(first), await who(now)], mode: (fs.statSync(file).mode & 0o777).toString(8) }));
  process.exit(0);
}, 200);
`;
      process.chdir(tmp);
      fs.mkdirSync('bundle', { recursive: true });
      fs.writeFileSync('bundle/refresh.js', refreshProbe);
      const admin = path.join(tmp, 'admin.kubeconfig');
      plane().writeKubeconfig(admin);
      const result = path.join(tmp, 'refresh.json');
      const lines: string[] = [];
      const code = await runCommand(
        {
          bundle: 'bundle/refresh.js',
          refreshAfterMs: 1_000,
          env: { ...process.env, KUBECONFIG: admin, RESULT_FILE: result },
        },
        (l) => lines.push(l),
      );
      expect(code).toBe(0);
      expect(JSON.parse(fs.readFileSync(result, 'utf8'))).toStrictEqual({
        changed: true,
        users: [OPERATOR_USER, OPERATOR_USER],
        mode: '600',
      });
      expect(lines).toContain(`token of ${OPERATOR_NS}/gadget-operator refreshed`);
    });

    test('a ServiceAccount the cluster does not have: the TokenRequest failure says to apply the chart first', async () => {
      const admin = path.join(tmp, 'admin.kubeconfig');
      await expect(
        runCommand({ serviceAccount: 'nowhere/nobody', env: { ...process.env, KUBECONFIG: admin } }, () => undefined),
      ).rejects.toThrow(/TokenRequest for ServiceAccount nowhere\/nobody failed \(404\).*apply the chart first/);
    });

    test("--leader-elect in a namespace the chart grants no Lease in fails fast, naming the fix; in the operator's namespace it leads", async () => {
      const identity = await plane().operatorIdentity(readManifests([dist]));
      const fatal = new Promise<unknown>((resolve) => {
        const wrong = new Manager({
          kubeConfig: plane().kubeConfig(identity),
          logger: silentLogger,
          namespaces: ['run-team'],
          leaderElection: { leaseName: 'gadget-leader', namespace: 'default' },
          onFatalError: resolve,
        });
        void wrong.start();
        setTimeout(() => resolve('still retrying after 10 s'), 10_000).unref();
      });
      const err = await fatal;
      expect(err).toBeInstanceOf(LeaderElectionForbiddenError);
      expect(String((err as Error).message)).toMatch(
        /forbids this identity the Lease default\/gadget-leader .*--leader-election-namespace=<the operator's namespace>/,
      );

      let leading!: () => void;
      const led = new Promise<void>((resolve) => {
        leading = resolve;
      });
      const right = new Manager({
        kubeConfig: plane().kubeConfig(identity),
        logger: silentLogger,
        namespaces: ['run-team'],
        leaderElection: { leaseName: 'gadget-leader', namespace: OPERATOR_NS },
        onFatalError: (e) => {
          throw e;
        },
      });
      try {
        await right.start();
        void right.elected.then(leading);
        await led;
        expect(
          (await plane().request('GET', `/apis/coordination.k8s.io/v1/namespaces/${OPERATOR_NS}/leases/gadget-leader`))
            .code,
        ).toBe(200);
      } finally {
        await right.stop();
      }
    });
  },
  { shared: true },
);

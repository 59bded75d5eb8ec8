/**
 * Admission webhooks on the real node (issue 20), with `dist/` applied as APPLY.md says and no cert-manager:
 * the SampleDB operator's CA bundles are injected by the operator itself; a SampleDB restoring from one that does
 * not exist is denied with the webhook's message; a valid one is admitted and defaulted; the operator scaled to 0
 * and back comes up (its webhooks exclude its own namespace, so they never block its own pods or leases); a forced
 * certificate rotation with short validities under continuous admission traffic fails 0 requests (counted).
 *
 * Uses the namespace the demo's operator watches (`default`): objects are prefixed `adm-` or created with a
 * server-side dry run, and the operator's environment is restored at the end.
 */
import { X509Certificate } from 'crypto';
import { writeFileSync } from 'fs';
import { loadavg } from 'os';
import { join } from 'path';
import { connect } from 'tls';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../../runtime/client';
import { NodeHarness, ROOT, assert, distObjects, sleep, until } from '../harness';

const NS = 'default';
const OPERATOR_NS = 'sampledb-operator-system';
const OPERATOR = 'sampledb-operator';
const SECRET = `${OPERATOR}-webhook-certs`;
/**
 * The rotation under traffic: CI runs the short form (two CA and four serving-certificate generations within 45 s);
 * `npm run e2e:rotation-long` (NODE_E2E_LONG=1) the long form, with its summary in bench/latest/admission-rotation-long.json.
 */
const LONG = process.env.NODE_E2E_LONG === '1';
const ROTATION = LONG ? { caS: 60, certS: 30, trafficS: 100 } : { caS: 40, certS: 20, trafficS: 45 };
const ROTATION_ENV = [
  `WEBHOOK_CA_VALIDITY=${ROTATION.caS}s`,
  `WEBHOOK_CERT_VALIDITY=${ROTATION.certS}s`,
  'WEBHOOK_CERT_CHECK_INTERVAL=2s',
  'WEBHOOK_CA_PROPAGATION=5s',
  'WEBHOOK_CERT_RELOAD_INTERVAL=1s',
];
const TRAFFIC_S = ROTATION.trafficS;

export default async function admission(h: NodeHarness): Promise<void> {
  const kubectl = h.kubectl.bind(h);
  const json = h.json.bind(h);
  const sh = h.sh.bind(h);
  const step = h.step.bind(h);
  const secretData = () => json('get', 'secret', SECRET, '-n', OPERATOR_NS).data as Record<string, string>;
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const certs = (bundle: string) =>
    (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
      (c) => new X509Certificate(c),
    );
  const sampleDb = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name, namespace: NS },
    spec: { version: '16.4', replicas: 1, ...spec },
  });
  /**
   * The operator's Deployment rolled out: its status is of the current spec (right after `kubectl set env` it still
   * describes the previous one, whose pods are all ready: seen on a quiet machine, where the rotation then ran on the
   * old pods with the chart's validities) and every replica is updated and ready.
   */
  const operatorReady = () => {
    const d = json('get', 'deployment', OPERATOR, '-n', OPERATOR_NS);
    return (
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.readyReplicas === d.spec.replicas &&
      d.status?.updatedReplicas === d.spec.replicas &&
      (d.status?.replicas ?? 0) === d.spec.replicas
    );
  };

  await step(
    'dist/ applied as APPLY.md says (operators Ready before the custom resources their webhooks intercept)',
    () => h.ensureDistApplied(),
  );

  await step('no cert-manager; the CA bundles are injected by the operator itself', () => {
    assert(!h.exists('crd', 'certificates.cert-manager.io'), 'cert-manager is not installed');
    const data = secretData();
    const bundle = pem(data['ca-bundle.crt']);
    const serving = certs(pem(data['tls.crt']))[0];
    assert(
      certs(bundle).some((ca) => serving.checkIssued(ca) && serving.verify(ca.publicKey)),
      'the serving certificate is signed by a CA of the bundle',
    );
    assert(
      /DNS:sampledb-operator-webhook\.sampledb-operator-system\.svc\b/.test(serving.subjectAltName ?? ''),
      `names the Service: ${serving.subjectAltName}`,
    );
    const injected: string[] = [];
    for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
      const config = json('get', kind, OPERATOR);
      for (const w of config.webhooks) {
        assert(w.clientConfig.caBundle === data['ca-bundle.crt'], `${kind} ${w.name}: caBundle is the Secret's bundle`);
        injected.push(w.name);
      }
    }
    assert(!JSON.stringify(distObjects()).includes('caBundle'), 'dist/ renders no caBundle (the operator owns it)');
    return `${injected.join(', ')} carry the operator's bundle (${certs(bundle).length} CA); serving certificate valid to ${serving.validTo}`;
  });

  await step("a SampleDB restoring from one that does not exist is denied with the webhook's message", () => {
    const out = sh('kubectl', ['apply', '-f', '-'], {
      allowFail: true,
      input: JSON.stringify(
        sampleDb('adm-missing', { restoreFrom: { sampleDB: 'adm-no-such-db', backup: 'nothing' } }),
      ),
    });
    const expected =
      "admission webhook \"validate.sampledbs.database.example.com\" denied the request: spec.restoreFrom.sampleDB: SampleDB 'adm-no-such-db' does not exist in namespace 'default', and no backup volume adm-no-such-db-backups of a deleted one remains";
    assert(out.includes(expected), `kubectl apply printed the webhook's message: ${out}`);
    assert(!h.exists('sampledb', 'adm-missing', '-n', NS), 'nothing was stored');
    return out.trim();
  });

  await step("a valid SampleDB is admitted and defaulted (storage and class from the namespace's annotations)", () => {
    // my-db of dist/ was created without spec.storage; the CRD has no schema default for it any more: the webhook set it.
    const myDb = json('get', 'sampledb', 'my-db', '-n', NS);
    assert(myDb.spec.storage === '1Gi', `my-db was defaulted at create: spec.storage ${myDb.spec.storage}`);
    const storageClass = json('get', 'storageclass').items[0]?.metadata?.name ?? 'adm-class';
    kubectl(
      'annotate',
      'namespace',
      NS,
      '--overwrite',
      'database.example.com/default-storage=3Gi',
      `database.example.com/default-storage-class=${storageClass}`,
    );
    try {
      const out = sh('kubectl', ['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
        input: JSON.stringify(sampleDb('adm-valid', {})),
      });
      const created = JSON.parse(out.slice(out.indexOf('{')));
      assert(
        created.spec.storage === '3Gi' && created.spec.storageClassName === storageClass,
        `defaulted: ${JSON.stringify(created.spec)}`,
      );
      const explicit = JSON.parse(
        sh('kubectl', ['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
          input: JSON.stringify(sampleDb('adm-explicit', { storage: '7Gi' })),
        }),
      );
      assert(
        explicit.spec.storage === '7Gi' && explicit.spec.storageClassName === storageClass,
        `explicit storage kept: ${JSON.stringify(explicit.spec)}`,
      );
      return `my-db stored with storage ${myDb.spec.storage}; adm-valid admitted as ${JSON.stringify({ storage: created.spec.storage, storageClassName: created.spec.storageClassName })}`;
    } finally {
      kubectl(
        'annotate',
        'namespace',
        NS,
        'database.example.com/default-storage-',
        'database.example.com/default-storage-class-',
      );
    }
  });

  await step(
    'the operator scaled to 0 and back comes up: its webhooks do not block its own pods or leases',
    async () => {
      kubectl('scale', 'deployment', OPERATOR, '-n', OPERATOR_NS, '--replicas=0');
      await until(
        'no operator pod',
        () => json('get', 'pods', '-n', OPERATOR_NS, '-l', `app.kubernetes.io/name=${OPERATOR}`).items.length === 0,
        120,
        1000,
      );
      // With no webhook server a SampleDB write fails (failurePolicy Fail): the webhooks are really in the path.
      const blocked = sh('kubectl', ['create', '--dry-run=server', '-f', '-'], {
        allowFail: true,
        input: JSON.stringify(sampleDb('adm-while-down', {})),
      });
      assert(/failed calling webhook/.test(blocked), `a SampleDB write fails while the operator is down: ${blocked}`);
      const started = Date.now();
      kubectl('scale', 'deployment', OPERATOR, '-n', OPERATOR_NS, '--replicas=2');
      await until('both operator pods Ready', operatorReady, 180, 1000);
      const took = (Date.now() - started) / 1000;
      const ok = sh('kubectl', ['create', '--dry-run=server', '-f', '-'], {
        input: JSON.stringify(sampleDb('adm-after', {})),
      });
      return `down: '${blocked.trim().slice(0, 140)}…'; back Ready in ${took.toFixed(1)} s; then ${ok.trim()}`;
    },
  );

  await step(
    `forced certificate rotation (CA ${ROTATION.caS} s, certificate ${ROTATION.certS} s) under ${TRAFFIC_S} s of continuous admission traffic: 0 failed requests`,
    async () => {
      kubectl('set', 'env', `deployment/${OPERATOR}`, '-n', OPERATOR_NS, ...ROTATION_ENV);
      try {
        // The old pods gone too, not only the new ones Ready (the Deployment stops counting a pod once it is
        // terminating): the traffic below measures the rotation. A rollout's tail is another matter: a terminating
        // pod keeps accepting for IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS (5 s), and at a load average of 21 the Service
        // still routed to one after that (1 request of 811 refused 5.2 s after the pod's deletion, 2026-11-29 16:11).
        await until(
          'the operator rolled out with short validities, its old pods gone',
          () =>
            operatorReady() &&
            !json('get', 'pods', '-n', OPERATOR_NS, '-l', `app.kubernetes.io/name=${OPERATOR}`).items.some(
              (p: any) => p.metadata.deletionTimestamp,
            ),
          240,
          1000,
        );
        const kc = new KubeConfig();
        kc.loadFromFile(h.kubeconfig);
        // No retries: a request the webhook fails (HTTP 500 "failed calling webhook") must count, not be retried away.
        const client = RestClient.fromKubeConfig(kc, { maxRetries: 0, maxThrottleRetries: 0 });
        let ok = 0;
        const failures: string[] = [];
        const cas = new Set<string>();
        const servings = new Set<string>();
        let maxBundle = 0;
        const deadline = Date.now() + TRAFFIC_S * 1000;
        const sampler = (async () => {
          while (Date.now() < deadline) {
            try {
              const d = secretData();
              cas.add(d['ca.crt']);
              servings.add(d['tls.crt']);
              maxBundle = Math.max(maxBundle, certs(pem(d['ca-bundle.crt'])).length);
            } catch {
              /* a read error of the test's own sampler is not an admission failure */
            }
            await sleep(1000);
          }
        })();
        // Each client sends a request every PACE_MS at most: 20 a second in all, so any window in which the
        // apiserver cannot verify the served certificate is hit (the operator re-reads the Secret every second:
        // WEBHOOK_CERT_RELOAD_INTERVAL). Unpaced, the four clients sent about 86 a second, each through two webhooks
        // and a Namespace read, and kept the node's apiserver and the operator busy for the whole 45 s.
        const PACE_MS = 200;
        const traffic = [0, 1, 2, 3].map(async (w) => {
          await sleep((w * PACE_MS) / 4);
          for (let i = 0; Date.now() < deadline; i++) {
            const sent = Date.now();
            try {
              await client.create(sampleDb(`adm-traffic-${w}-${i}`, {}), { dryRun: true });
              ok++;
            } catch (err) {
              failures.push(`${new Date().toISOString()} ${(err as Error).message}`);
            }
            await sleep(Math.max(0, sent + PACE_MS - Date.now()));
          }
        });
        await sleep(5000);
        kubectl('annotate', 'secret', SECRET, '-n', OPERATOR_NS, '--overwrite', 'webhook.cdk8s-operator.io/rotate=now');
        await Promise.all([...traffic, sampler]);
        client.close();
        const summary = `${ok + failures.length} admission requests, ${failures.length} failed; ${cas.size} CAs and ${servings.size} serving certificates seen, up to ${maxBundle} CAs in the bundle`;
        process.stdout.write(`admission rotation under traffic: ${summary}\n`);
        if (LONG) {
          const record = {
            at: new Date().toISOString(),
            command: 'npm run e2e:rotation-long',
            rotation: ROTATION,
            requests: ok + failures.length,
            failed: failures.length,
            firstFailures: failures.slice(0, 3),
            casSeen: cas.size,
            servingCertificatesSeen: servings.size,
            maxCasInBundle: maxBundle,
            loadavg1: loadavg()[0],
          };
          writeFileSync(
            join(ROOT, 'bench', 'latest', 'admission-rotation-long.json'),
            `${JSON.stringify(record, null, 2)}\n`,
          );
        }
        assert(failures.length === 0, `${summary}; first failures: ${failures.slice(0, 3).join(' | ')}`);
        assert(cas.size >= 2 && servings.size >= 3 && maxBundle >= 2, `the CA rotated with overlap: ${summary}`);
        assert(ok > 100, `enough traffic: ${summary}`);
        return summary;
      } finally {
        // Back to the chart's validities (the next CA the operator makes is a 365-day one again).
        kubectl(
          'set',
          'env',
          `deployment/${OPERATOR}`,
          '-n',
          OPERATOR_NS,
          ...ROTATION_ENV.map((e) => `${e.split('=')[0]}-`),
        );
        await until("the operator rolled out with the chart's settings", operatorReady, 240, 1000).catch(
          () => undefined,
        );
      }
    },
  );

  await step(
    'after the rotation test: a long-lived CA and serving certificate again, and admission works (the next suites rely on it)',
    async () => {
      // The CA and certificate issued under the short validities expire within a minute: the operator, back on the
      // chart's settings, must replace them before they lapse (its rounds come as early as a certificate is due).
      const DAY = 86_400_000;
      const lifetime = (c: X509Certificate) => Date.parse(c.validTo) - Date.parse(c.validFrom);
      await until(
        "a CA and a serving certificate of the chart's validities in the Secret",
        () => {
          const d = secretData();
          return lifetime(certs(pem(d['ca.crt']))[0]) > 300 * DAY && lifetime(certs(pem(d['tls.crt']))[0]) > 80 * DAY;
        },
        180,
        1000,
      );
      // Every replica reloads the Secret within 10 s (WEBHOOK_CERT_RELOAD_INTERVAL): asked directly (TLS to each
      // pod's webhook port from the host), each must serve the Secret's certificate before admission is tried.
      const served = await until(
        "every operator replica serving the Secret's certificate",
        async () => {
          const want = certs(pem(secretData()['tls.crt']))[0].fingerprint256;
          const pods = (
            json('get', 'pods', '-n', OPERATOR_NS, '-l', `app.kubernetes.io/name=${OPERATOR}`).items as any[]
          ).filter((p) => !p.metadata.deletionTimestamp && p.status?.podIP);
          const port = pods[0]?.spec.containers[0].ports.find((p: any) => p.name === 'webhook')?.containerPort;
          const got = await Promise.all(pods.map((p) => servedCertificate(p.status.podIP, port)));
          const replicas = json('get', 'deployment', OPERATOR, '-n', OPERATOR_NS).spec.replicas;
          return pods.length === replicas && got.every((f) => f === want) ? pods.length : undefined;
        },
        60,
        1000,
      );
      const out = sh('kubectl', ['create', '--dry-run=server', '-o', 'name', '-f', '-'], {
        input: JSON.stringify(sampleDb('adm-after-rotation', {})),
      });
      const d = secretData();
      return `${served} replicas serve the new certificate; ${out.trim()} admitted; serving certificate valid to ${certs(pem(d['tls.crt']))[0].validTo}, ${certs(pem(d['ca-bundle.crt'])).length} CA(s) in the bundle`;
    },
  );
}

/** The SHA-256 fingerprint of the certificate a TLS server at `host:port` presents (not verified: only read). */
function servedCertificate(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port,
      servername: `${OPERATOR}-webhook.${OPERATOR_NS}.svc`,
      rejectUnauthorized: false,
    });
    socket.setTimeout(5000, () => socket.destroy(new Error(`no TLS answer from ${host}:${port} within 5 s`)));
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw).fingerprint256);
    });
  });
}

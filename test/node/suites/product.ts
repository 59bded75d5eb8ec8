/**
 * From `npm init` to a controller running in the cluster, on the real node, with only the packed tarball and what
 * the docs say (docs/tutorial.md, the scaffolded README and the project's dist/APPLY.md): scaffold, types, build,
 * bundle, synth, the image built by `cdk8s-operator image` without Docker (on the harness's distroless Node base
 * tarball), `cluster.sh import` (ctr), the same image pushed with `image --push` to the node's registry and run from
 * there, the commands of APPLY.md, and a custom resource reconciled by the pod.
 *
 * Own API group (`product.example.com`), own namespaces (`product-a`, `gadget-operator-system`); everything it
 * created is deleted at the end, so the suites after it find the cluster as before.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { npmPack } from '../../support/npm-pack';
import { BASE_IMAGE, NodeHarness, assert, until } from '../harness';

const GROUP = 'product.example.com';
const NS = 'product-a';
const OPERATOR_NS = 'gadget-operator-system';
const IMAGE = 'ghcr.io/example/gadget-operator:0.1.0';
/** The node's registry (cluster.sh up starts it: Debian's docker-registry, plain HTTP). */
const REGISTRY = `localhost:${process.env.REGISTRY_PORT ?? 5000}`;

export default async function product(h: NodeHarness): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'product-e2e-'));
  const project = join(tmp, 'gadget-operator');
  mkdirSync(project);
  // as in CI: the npm cache first, no audit/fund noise, no settings of this repository's test runner
  const env = {
    ...process.env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    NODE_OPTIONS: '',
    CDK8S_OPERATOR_QUIET: '1',
    BASE_IMAGE_TAR: BASE_IMAGE,
  };
  const run = (cmd: string, args: string[]) => h.sh(cmd, args, { cwd: project, env });
  const step = h.step.bind(h);
  let tarball = '';
  try {
    await step('npm pack: the package as published', () => {
      const packed = npmPack(tmp, env);
      tarball = join(tmp, packed.filename);
      return `${packed.filename} (${packed.entryCount} files)`;
    });
    await step(
      'npm init, install the tarball, scaffold (Gadget, watching product-a), npm install (the pinned TypeScript)',
      () => {
        run('npm', ['init', '-y']);
        run('npm', ['install', tarball, 'cdk8s', 'constructs']);
        run('npx', ['cdk8s-operator', 'scaffold', '--kind', 'Gadget', '--group', GROUP, '--namespaces', NS]);
        run('npm', ['install']);
      },
    );
    await step('npm run types, build, bundle, synth: dist/ in apply order, the bundle outside it', () => {
      for (const script of ['types', 'build', 'bundle', 'synth']) run('npm', ['run', script]);
      assert(existsSync(join(project, 'bundle', 'controller.js')), 'bundle/controller.js survived synth');
      assert(existsSync(join(project, 'dist', 'APPLY.md')), 'dist/APPLY.md written');
    });
    let digest = '';
    await step('npm run image (cdk8s-operator image, no Docker) on the distroless Node base; cluster.sh import', () => {
      const out = run('npm', ['run', '--silent', 'image']);
      const m = new RegExp(`^${IMAGE.replace(/[.:/]/g, '\\$&')} (sha256:[0-9a-f]{64}) `, 'm').exec(out);
      assert(m, `the image is tagged as the chart says (${IMAGE}): ${out}`);
      digest = m[1];
      h.cluster('import', join(project, 'images', 'gadget-operator.tar'));
      return `${IMAGE} ${digest}`;
    });
    await step(
      "image --push to the node's registry (localhost:5000): skopeo reads back the digest; containerd pulls it from there and runs it",
      async () => {
        const pushedTag = `${REGISTRY}/gadget-operator:0.1.0`;
        const out = run('npx', [
          'cdk8s-operator',
          'image',
          '--bundle',
          'bundle/controller.js',
          '--tag',
          pushedTag,
          '--push',
          '--out',
          'images/pushed.tar',
        ]);
        const m = new RegExp(`^pushed ${pushedTag.replace(/[.:/]/g, '\\$&')}@(sha256:[0-9a-f]{64}) `, 'm').exec(out);
        assert(m, `image --push printed the pushed digest: ${out}`);
        const inspected = JSON.parse(h.sh('skopeo', ['inspect', '--tls-verify=false', `docker://${pushedTag}`]));
        assert(inspected.Digest === m[1], `skopeo reads back ${m[1]} (got ${inspected.Digest})`);
        // a pod of the pushed image by digest, pulled by the node's containerd (Always: never the imported copy)
        h.apply({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'pulled-from-registry', namespace: 'default' },
          spec: {
            restartPolicy: 'Never',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'node',
                image: `${REGISTRY}/gadget-operator@${m[1]}`,
                imagePullPolicy: 'Always',
                command: [
                  '/nodejs/bin/node',
                  '-e',
                  'console.log("ran " + require("fs").statSync("/app/controller.js").size + " bytes of bundle")',
                ],
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        });
        await until(
          'the pod from the registry Succeeded',
          () => h.json('get', 'pod', 'pulled-from-registry', '-n', 'default').status?.phase === 'Succeeded',
          120,
          1000,
        );
        const logs = h.sh('kubectl', ['logs', 'pulled-from-registry', '-n', 'default']).trim();
        assert(/^ran \d+ bytes of bundle$/.test(logs), `the pod ran the bundle's image: ${logs}`);
        const imageID = h.json('get', 'pod', 'pulled-from-registry', '-n', 'default').status.containerStatuses[0]
          .imageID as string;
        assert(imageID.endsWith(m[1]), `containerd ran the pushed digest (${imageID})`);
        h.sh('kubectl', ['delete', 'pod', 'pulled-from-registry', '-n', 'default', '--wait=true', '--timeout=60s']);
        return `${pushedTag}@${m[1]}; ${logs}`;
      },
    );
    await step(
      "apply exactly as the project's dist/APPLY.md says (0 warnings); the operator pod runs the image",
      async () => {
        const apply = /```sh\n([\s\S]*?)```/
          .exec(readFileSync(join(project, 'dist', 'APPLY.md'), 'utf8'))![1]
          .trim()
          .split('\n')
          .filter((l) => l.trim() && !l.trim().startsWith('#'));
        let output = '';
        for (const line of apply) output += h.sh('sh', ['-c', line], { cwd: project });
        const warnings = output.split('\n').filter((l) => /warning/i.test(l));
        assert(warnings.length === 0, `apply printed warnings: ${warnings.join(' | ')}`);
        await until(
          'the gadget-operator Deployment Available',
          () => (h.json('get', 'deployment', 'gadget-operator', '-n', OPERATOR_NS).status?.availableReplicas ?? 0) >= 1,
          180,
          1000,
        );
        const pod = h.json('get', 'pods', '-n', OPERATOR_NS, '-l', 'app.kubernetes.io/name=gadget-operator').items[0];
        assert(pod.spec.containers[0].image === IMAGE, `pod image ${pod.spec.containers[0].image}`);
        assert(pod.spec.serviceAccountName === 'gadget-operator', `pod ServiceAccount ${pod.spec.serviceAccountName}`);
        return `${apply.length} commands; pod ${pod.metadata.name} (${pod.status.containerStatuses?.[0]?.imageID ?? ''})`;
      },
    );
    await step(
      "the in-cluster pod reconciles: the chart's example Gadget and a new one get their ConfigMap and status; it holds the leader Lease",
      async () => {
        await until(
          'example Gadget status.configMap',
          () => h.json('get', 'gadget', 'example', '-n', NS).status?.configMap === 'example-content',
          120,
          1000,
        );
        assert(
          h.json('get', 'configmap', 'example-content', '-n', NS).data.message === 'Hello from gadget-operator',
          "the example's message",
        );
        h.apply({
          apiVersion: `${GROUP}/v1`,
          kind: 'Gadget',
          metadata: { name: 'made-by-hand', namespace: NS },
          spec: { message: 'reconciled in the cluster' },
        });
        await until(
          'made-by-hand reconciled',
          () =>
            h.json('get', 'configmap', 'made-by-hand-content', '-n', NS, '--ignore-not-found').data?.message ===
            'reconciled in the cluster',
          120,
          1000,
        );
        const pod = h.json('get', 'pods', '-n', OPERATOR_NS, '-l', 'app.kubernetes.io/name=gadget-operator').items[0]
          .metadata.name;
        const holder = h.json('get', 'lease', 'gadget-operator-leader', '-n', OPERATOR_NS).spec
          .holderIdentity as string;
        assert(holder.startsWith(`${pod}_`), `Lease held by the pod (${holder})`);
        return `Lease holder ${holder}`;
      },
    );
  } finally {
    await step("clean up: the project's namespaces and CRD are gone", () => {
      h.sh('kubectl', ['delete', 'namespace', NS, OPERATOR_NS, '--ignore-not-found', '--wait=true', '--timeout=120s'], {
        allowFail: true,
      });
      h.sh('kubectl', ['delete', 'crd', `gadgets.${GROUP}`, '--ignore-not-found', '--wait=true', '--timeout=60s'], {
        allowFail: true,
      });
      assert(!h.exists('namespace', NS) && !h.exists('crd', `gadgets.${GROUP}`), 'namespace and CRD deleted');
    });
    rmSync(tmp, { recursive: true, force: true });
  }
}

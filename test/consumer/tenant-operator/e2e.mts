// The whole scenario, from the installed package only: synth, a control plane with role aggregation and garbage
// collection, the operator under its chart's ServiceAccount, a tenant deleted with --cascade=foreground while a pod runs.
import * as fs from 'fs';
import * as path from 'path';
import { ControlPlane, readManifests } from 'cdk8s-operator/envtest';
import { Manager } from 'cdk8s-operator/runtime';
import { synthTenantChart } from './chart';
import { TENANT_CONTRACT } from './contract';
import { FINALIZER, setupTenantController } from './controller';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => Promise<T>, ms = 30_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function main(): Promise<void> {
  const dist = path.join(__dirname, '..', 'tenant-dist');
  synthTenantChart(dist);
  const out: Record<string, unknown> = {};
  const plane = await ControlPlane.start();
  try {
    const minor = Number(String((await plane.request('GET', '/version')).body.minor).replace(/\D/g, ''));
    out.version = `1.${minor}`;
    // as dist/APPLY.md says: N-requires-1.M.yaml only on a cluster of 1.M or later
    const files = fs.readdirSync(dist).filter((f) => /\.yaml$/.test(f)).filter((f) => {
      const m = /-requires-1\.(\d+)\.yaml$/.exec(f);
      return !m || Number(m[1]) <= minor;
    });
    out.files = files;
    const objects = readManifests(files.map((f) => path.join(dist, f)));
    out.controllers = plane.controllers;
    await plane.applyObjects(objects);
    const id = await plane.operatorIdentity(objects);
    out.identity = id.user;
    const stats = { held: 0 };
    const manager = new Manager({ kubeConfig: plane.kubeConfig(id), contract: TENANT_CONTRACT });
    setupTenantController(manager, stats);
    const running = manager.start();
    try {
      const T = '/apis/tenancy.example.com/v1/tenants';
      const bad = await plane.request('POST', T, { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', metadata: { name: 'a.b' }, spec: { owners: ['x'] } });
      out.badName = [bad.code, bad.body.message];
      // a namespace of the tenant's name that someone else made: not adopted; the error is Ready=False and one Warning event
      await plane.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-beta' } });
      await plane.request('POST', T, { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', metadata: { name: 'beta' }, spec: { owners: ['bob'] } });
      const failed = await until('beta Ready=False', async () => {
        const t = (await plane.request('GET', `${T}/beta`)).body;
        return t.status?.conditions?.find((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'False');
      });
      const betaEvents = async () => (await plane.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).body.items
        .filter((e: { regarding?: { name?: string } }) => e.regarding?.name === 'beta')
        .map((e: { type: string; reason: string; note: string; regarding: { kind: string } }) => [e.type, e.reason, e.note, e.regarding.kind]);
      await until('the Warning event', async () => (await betaEvents()).length > 0);
      await plane.request('DELETE', `${T}/beta`);
      await until('beta gone', async () => (await plane.request('GET', `${T}/beta`)).code === 404);
      const untouched = (await plane.request('GET', '/api/v1/namespaces/tenant-beta')).body;
      out.takenNamespace = {
        condition: { reason: failed.reason, message: failed.message, observedGeneration: failed.observedGeneration },
        // one Warning event (recordReconcileError sends one per change of the condition, not per retry)
        events: await betaEvents(),
        namespaceAfterTenantDeleted: { exists: untouched.metadata?.name === 'tenant-beta', deleting: !!untouched.metadata?.deletionTimestamp, ownerLabel: untouched.metadata?.labels?.['owner.cdk8s-operator.io/uid'] ?? null },
      };
      const created = await plane.request('POST', T, { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', metadata: { name: 'acme' }, spec: { owners: ['alice'], pods: 5 } });
      out.created = created.code;
      const ns = 'tenant-acme';
      const ready = await until('tenant Ready', async () => { const t = (await plane.request('GET', `${T}/acme`)).body; return t.status?.phase === 'Ready' && t; });
      out.ready = { finalizers: ready.metadata.finalizers, status: ready.status };
      const namespace = (await plane.request('GET', `/api/v1/namespaces/${ns}`)).body;
      out.namespaceOwnerReferences = namespace.metadata.ownerReferences ?? null;
      out.namespaceOwnerLabel = namespace.metadata.labels['owner.cdk8s-operator.io/uid'] === created.body.metadata.uid;
      out.quota = (await plane.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/tenant-quota`)).body.spec;
      out.roleRef = (await plane.request('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/owners-admin`)).body.roleRef;
      out.networkPolicy = (await plane.request('GET', `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies/default-deny`)).body.spec;
      const sar = await plane.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes: { namespace: ns, verb: 'create', resource: 'deployments', group: 'apps' } } });
      out.aliceMayCreateDeployments = sar.body.status.allowed;

      // the policy (1.30+): acme's prefix is the operator's (even the cluster admin is refused), other names are anyone's
      if (minor >= 30) {
        const NS = '/api/v1/namespaces';
        const nsNamed = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        await until('the policy to see tenant acme', async () => (await plane.request('POST', `${NS}?dryRun=All`, nsNamed('acme-x'))).code !== 201);
        const refused = await plane.request('POST', NS, nsNamed('acme-x'));
        out.adminCreatesAcmeX = [refused.code, refused.body.reason, refused.body.message];
        out.adminCreatesOtherX = (await plane.request('POST', `${NS}?dryRun=All`, nsNamed('other-x'))).code;
        out.operatorCreatesAcmeX = (await plane.request('POST', NS, nsNamed('acme-x'), { identity: id })).code;
      }

      // a pod runs in the namespace (its ServiceAccount as kube-controller-manager's serviceaccount-controller would make it; status as a kubelet would)
      await plane.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'default' } });
      const pod = await until('pod admitted (quota computed)', async () => {
        const r = await plane.request('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'web' }, spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }] } });
        return r.code === 201 || r.code === 409 ? r : undefined;
      });
      out.podCreated = pod.code;
      const live = (await plane.request('GET', `/api/v1/namespaces/${ns}/pods/web`)).body;
      await plane.request('PUT', `/api/v1/namespaces/${ns}/pods/web/status`, { ...live, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });

      // kubectl delete tenant acme --cascade=foreground
      const deleting = await plane.request('DELETE', `${T}/acme`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
      out.deletingFinalizers = deleting.body.metadata.finalizers;
      await until('the finalizer to hold', async () => stats.held >= 3);
      await sleep(2000);
      const heldNs = (await plane.request('GET', `/api/v1/namespaces/${ns}`)).body;
      const heldTenant = (await plane.request('GET', `${T}/acme`)).body;
      out.whileHeld = {
        namespaceDeleting: !!heldNs.metadata.deletionTimestamp,
        podPhase: (await plane.request('GET', `/api/v1/namespaces/${ns}/pods/web`)).body.status?.phase,
        rolebinding: (await plane.request('GET', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/owners-admin`)).code,
        tenantFinalizers: heldTenant.metadata.finalizers,
        tenantStatus: heldTenant.status,
      };
      // the pod ends
      await plane.request('DELETE', `/api/v1/namespaces/${ns}/pods/web`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
      await until('the tenant gone', async () => (await plane.request('GET', `${T}/acme`)).code === 404);
      await until('the namespace gone', async () => (await plane.request('GET', `/api/v1/namespaces/${ns}`)).code === 404, 60_000);
      out.finished = true;
      out.finalizer = FINALIZER;
    } finally {
      await manager.stop();
      await running.catch(() => undefined);
    }
  } finally {
    await plane.stop();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});

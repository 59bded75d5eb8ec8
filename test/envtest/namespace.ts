/**
 * One test's namespace on a shared control plane: plain reads and writes as the admin (what a user or
 * another controller would do), and a stand-in kubelet whose pods run when `outcome` says so.
 */
import { PodOutcome, StandInKubelet } from './stand-in-kubelet';
import { ControlPlane } from '../../runtime/envtest';

/** Plural resource names of the kinds tests touch (the apiserver's own discovery has them; no guessing). */
const PLURALS: Record<string, string> = {
  'v1/Secret': 'secrets',
  'v1/Service': 'services',
  'v1/ConfigMap': 'configmaps',
  'v1/Pod': 'pods',
  'v1/PersistentVolumeClaim': 'persistentvolumeclaims',
  'v1/ServiceAccount': 'serviceaccounts',
  'v1/Event': 'events',
  'apps/v1/Deployment': 'deployments',
  'apps/v1/ReplicaSet': 'replicasets',
  'apps/v1/StatefulSet': 'statefulsets',
  'batch/v1/Job': 'jobs',
  'batch/v1/CronJob': 'cronjobs',
  'events.k8s.io/v1/Event': 'events',
  'coordination.k8s.io/v1/Lease': 'leases',
  'samplecontroller.k8s.io/v1alpha1/Foo': 'foos',
  'database.example.com/v1/SampleDB': 'sampledbs',
  'database.example.com/v2/SampleDB': 'sampledbs',
};

export class TestNamespace {
  readonly kubelet: StandInKubelet;

  constructor(
    readonly plane: ControlPlane,
    readonly ns: string,
    outcome: (pod: any) => PodOutcome,
  ) {
    this.kubelet = new StandInKubelet(plane, { namespace: ns, outcome }).start();
  }

  stop(): void {
    this.kubelet.stop();
  }

  path(apiVersion: string, kind: string, name?: string): string {
    const plural = PLURALS[`${apiVersion}/${kind}`];
    if (!plural) throw new Error(`TestNamespace: no plural known for ${apiVersion} ${kind}`);
    const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return `${prefix}/namespaces/${this.ns}/${plural}${name ? `/${name}` : ''}`;
  }

  async get(apiVersion: string, kind: string, name: string): Promise<any> {
    const r = await this.plane.request('GET', this.path(apiVersion, kind, name));
    if (r.code === 404) return undefined;
    if (r.code !== 200) throw new Error(`GET ${kind} ${name}: ${r.code} ${r.body?.message}`);
    return r.body;
  }

  async list(apiVersion: string, kind: string): Promise<any[]> {
    return (await this.plane.request('GET', this.path(apiVersion, kind))).body.items;
  }

  /** Creates the object, or replaces it (with its resourceVersion, else the current one). */
  async put(obj: any): Promise<any> {
    const body = { ...obj, metadata: { ...obj.metadata, namespace: this.ns } };
    if (!body.metadata.resourceVersion) {
      const created = await this.plane.request('POST', this.path(obj.apiVersion, obj.kind), body);
      if (created.code === 201) return created.body;
      if (created.code !== 409) {
        throw new Error(`create ${obj.kind} ${obj.metadata.name}: ${created.code} ${created.body?.message}`);
      }
      body.metadata.resourceVersion = (
        await this.get(obj.apiVersion, obj.kind, obj.metadata.name)
      ).metadata.resourceVersion;
    }
    const r = await this.plane.request('PUT', this.path(obj.apiVersion, obj.kind, obj.metadata.name), body);
    if (r.code !== 200) throw new Error(`replace ${obj.kind} ${obj.metadata.name}: ${r.code} ${r.body?.message}`);
    return r.body;
  }

  mergePatch(
    apiVersion: string,
    kind: string,
    name: string,
    patch: object,
    subresource = '',
  ): Promise<{ code: number; body: any }> {
    return this.plane.request(
      'PATCH',
      `${this.path(apiVersion, kind, name)}${subresource ? `/${subresource}` : ''}`,
      patch,
      { contentType: 'application/merge-patch+json' },
    );
  }

  async remove(apiVersion: string, kind: string, name: string): Promise<number> {
    return (await this.plane.request('DELETE', this.path(apiVersion, kind, name), { propagationPolicy: 'Background' }))
      .code;
  }
}

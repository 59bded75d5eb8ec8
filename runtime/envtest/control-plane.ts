/**
 * A real control plane for tests, in the spirit of controller-runtime's envtest: etcd (data on tmpfs when
 * the machine has /dev/shm), kube-apiserver configured like a cluster's (RBAC, its own CA and ServiceAccount
 * signing key, the default admission chain) and kube-controller-manager with the controllers that change what RBAC,
 * garbage collection and namespaces do (role aggregation, the garbage collector, namespace lifecycle; unlike
 * controller-runtime's envtest, which runs no controller at all), or more on request. One control plane is meant
 * to be shared by a test file; namespaces isolate tests.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { ControlPlaneBinaries, findControlPlaneBinaries } from './assets';
import { installCrds, readCrds } from './crds';
import { copyTemplate, copyTemplateKeys, saveTemplate, TemplateKeys, templatePath } from './etcd-template';
import {
  CLUSTER_CONTROLLERS,
  ControlPlaneLayout,
  DEFAULT_CONTROLLERS,
  apiServerArgs,
  controllerManagerArgs,
  etcdArgs,
  files,
} from './flags';
import { HttpReply, HttpTarget, RequestOptions, request } from './http';
import { ClusterAccess, forgetKubectlDiscovery, kubeConfigFor, writeKubeconfig } from './kubeconfig';
import { Manifest } from './manifest-files';
import { applyObjects, operatorServiceAccount } from './objects';
import { ManagedProcess, freePort, supportsFlag } from './process';
import { InstalledWebhooks, WebhookInstallOptions, installWebhooks } from './webhooks';

export interface ControlPlaneOptions {
  /** Folder with kube-apiserver (and kube-controller-manager, etcd). @default process.env.KUBEBUILDER_ASSETS */
  readonly assetsDir?: string;
  /**
   * Which kube-controller-manager controllers run: by default {@link CLUSTER_CONTROLLERS} (ClusterRole aggregation,
   * so the built-in `admin`/`edit`/`view` roles have their rules; the garbage collector; namespace deletion; quota
   * usage); `true`
   * for {@link DEFAULT_CONTROLLERS} (those, plus Deployment, ReplicaSet, StatefulSet, Job, CronJob, ServiceAccount
   * ...); a list for exactly those controllers; `false` for no kube-controller-manager at all (a bare apiserver, as
   * controller-runtime's envtest: RBAC tests may then pass that a cluster refuses).
   * @default CLUSTER_CONTROLLERS
   */
  readonly controllerManager?: boolean | readonly string[];
  /** CRD manifests to install before start() resolves (waits for Established). */
  readonly crds?: readonly object[];
  /** YAML files or folders (e.g. an app's `dist/`) whose CustomResourceDefinitions are installed. */
  readonly crdPaths?: readonly string[];
  /** Extra kube-apiserver flags (`--name=value`), appended after the defaults. */
  readonly apiServerFlags?: readonly string[];
  /** Extra kube-controller-manager flags. */
  readonly controllerManagerFlags?: readonly string[];
  /** How long each process may take to become ready. @default 60000 */
  readonly startTimeoutMs?: number;
  /** Parent folder of the control plane's files. @default '/dev/shm' when it exists, else the OS temp folder */
  readonly baseDir?: string;
  /**
   * Folder of etcd templates (etcd-template.ts): the second control plane of a configuration (binaries,
   * `apiServerFlags`) leaves a copy of its etcd data there right after kube-apiserver's bootstrap, and later ones
   * start from a copy, as an apiserver restarted on a cluster finds its bootstrap objects in place: about a sixth less
   * CPU per start (bench/latest/envtest-start.json), and about half a second more wall time. The template keeps the
   * serving certificate and the ServiceAccount signing key too, so those planes share them (no RSA key made at their
   * start); tokens stay each plane's own. `stop()` does not remove the folder.
   * @default process.env.ENVTEST_TEMPLATE_DIR, else none (`''` for none whatever the environment says): every plane
   * bootstraps its own etcd
   */
  readonly templateDir?: string;
}

/** The identity a kubeconfig authenticates as. */
export interface Identity {
  readonly user: string;
  readonly token: string;
  /** The kubeconfig context's namespace. @default 'default' */
  readonly namespace?: string;
}

const ADMIN_USER = 'envtest-admin';

function controllersOf(opts: ControlPlaneOptions): readonly string[] {
  const c = opts.controllerManager;
  return c === undefined ? CLUSTER_CONTROLLERS : c === true ? DEFAULT_CONTROLLERS : c === false ? [] : c;
}

export class ControlPlane {
  /** Starts etcd, kube-apiserver and (optionally) kube-controller-manager; throws when a binary is missing. */
  static async start(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const lookup = findControlPlaneBinaries(
      opts.assetsDir ? { ...process.env, KUBEBUILDER_ASSETS: opts.assetsDir } : process.env,
    );
    if ('missing' in lookup) throw new Error(`envtest: ${lookup.missing}`);
    const wantsKcm = controllersOf(opts).length > 0;
    if (wantsKcm && !lookup.binaries.kubeControllerManager) {
      throw new Error(`envtest: kube-controller-manager not found beside ${lookup.binaries.kubeApiServer}`);
    }
    const base = opts.baseDir ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
    // a port the OS gave as free may be taken by another process before etcd or the apiserver binds it: start again
    // on new ports (as controller-runtime's envtest does), a few times
    for (let attempt = 1; ; attempt++) {
      const layout: ControlPlaneLayout = {
        dir: mkdtempSync(join(base, 'envtest-')),
        etcdPort: await freePort(),
        etcdPeerPort: await freePort(),
        apiServerPort: await freePort(),
      };
      const plane = new ControlPlane(lookup.binaries, layout, opts);
      try {
        await plane.boot();
        // a kubectl run against this port before (another plane's) would map this one with that one's kinds
        forgetKubectlDiscovery(plane.url);
        return plane;
      } catch (e) {
        await plane.stop();
        if (attempt >= 3 || !/address already in use/.test((e as Error).message)) throw e;
      }
    }
  }

  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The system:masters identity (a static token). */
  readonly admin: Identity;
  private readonly timeoutMs: number;
  private etcd?: ManagedProcess;
  private apiServer?: ManagedProcess;
  private controllerManager?: ManagedProcess;
  private caPem?: string;
  private namespaceCounter = 0;
  /** Whether its processes keep this Node.js process alive (unref() and ref()). */
  private held = true;

  private constructor(
    private readonly binaries: ControlPlaneBinaries,
    private readonly layout: ControlPlaneLayout,
    private readonly opts: ControlPlaneOptions,
  ) {
    this.url = `https://127.0.0.1:${layout.apiServerPort}`;
    this.admin = { user: ADMIN_USER, token: randomBytes(24).toString('hex') };
    this.timeoutMs = opts.startTimeoutMs ?? 60_000;
  }

  /** Folder holding the certificates, keys and etcd data (removed by stop()). */
  get dir(): string {
    return this.layout.dir;
  }

  /** PEM of the CA that signed the apiserver's serving certificate (what a kubeconfig's certificate-authority holds). */
  get ca(): string {
    if (!this.caPem) throw new Error('envtest: the control plane is not started');
    return this.caPem;
  }

  /** Whether kube-controller-manager runs. */
  get hasControllerManager(): boolean {
    return !!this.controllerManager;
  }

  /** The kube-controller-manager controllers that run (empty without kube-controller-manager). */
  get controllers(): readonly string[] {
    return controllersOf(this.opts);
  }

  private async boot(): Promise<void> {
    const l = this.layout;
    mkdirSync(files.certDir(l), { recursive: true });
    // token,user,uid,"groups"
    writeFileSync(files.tokens(l), `${this.admin.token},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, {
      mode: 0o600,
    });
    const templateDir = this.opts.templateDir ?? process.env.ENVTEST_TEMPLATE_DIR;
    const template = templateDir && templatePath(templateDir, this.binaries, this.opts.apiServerFlags ?? []);
    const fromTemplate = template ? copyTemplate(template, files.etcdData(l)) : 'none';
    // the serving certificate, its key and the ServiceAccount key pair: kube-apiserver makes the first two when they
    // are missing
    const keys: TemplateKeys = {
      'apiserver.crt': files.servingCert(l),
      'apiserver.key': files.servingKey(l),
      'sa.key': files.serviceAccountKey(l),
      'sa.pub': files.serviceAccountPub(l),
    };
    const keysFromTemplate = template && fromTemplate === 'copied' && copyTemplateKeys(template, keys);
    this.spawnEtcd();
    if (!keysFromTemplate) {
      // the ServiceAccount signing key is made while etcd starts
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      writeFileSync(files.serviceAccountKey(l), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
      writeFileSync(files.serviceAccountPub(l), publicKey.export({ type: 'spki', format: 'pem' }));
    }
    await this.etcdThenApiServer();
    if (template && fromTemplate === 'make one') {
      // the bootstrap is done (readyz waits for its post-start hooks): save etcd's data while both are stopped
      await this.apiServer!.stop();
      await this.etcd!.stop();
      saveTemplate(files.etcdData(l), template, keys);
      this.spawnEtcd();
      await this.etcdThenApiServer();
    }

    // CRDs first: the garbage collector discovers the APIs when it starts (then only every 30 s)
    const crds = [...(this.opts.crds ?? []), ...readCrds(this.opts.crdPaths ?? [])];
    if (crds.length) await installCrds(this.target(this.admin), crds, this.timeoutMs);
    if (this.controllers.length) await this.startControllerManager();
  }

  private async startControllerManager(): Promise<void> {
    const l = this.layout;
    const controllers = this.controllers;
    writeKubeconfig(files.controllerManagerKubeconfig(l), this.access(this.admin));
    const kcm = this.spawn(
      'kube-controller-manager',
      this.binaries.kubeControllerManager!,
      controllerManagerArgs(l, controllers, this.opts.controllerManagerFlags),
    );
    this.controllerManager = kcm;
    const alive = () => {
      if (!kcm.running) throw new Error(`envtest: kube-controller-manager exited:\n${kcm.log}`);
    };
    // no health endpoint (--secure-port=0): ready once each controller that changes what a test sees has done its part
    await this.waitFor(
      'kube-controller-manager to create serviceaccount default/default',
      async () => {
        alive();
        return (await this.request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).code === 200;
      },
      this.timeoutMs,
      controllers.includes('serviceaccount-controller'),
    );
    await this.waitFor(
      'kube-controller-manager to aggregate the ClusterRoles (admin, edit, view …)',
      async () => {
        alive();
        return this.clusterRolesAggregated();
      },
      this.timeoutMs,
      controllers.includes('clusterrole-aggregation-controller'),
    );
    // the garbage collector is not waited for: it discovers the API now and lists every object, so whatever is
    // deleted before its caches sync is collected once they have
  }

  /** Whether every ClusterRole with an aggregationRule holds the rules of every ClusterRole it selects. */
  private async clusterRolesAggregated(): Promise<boolean> {
    const list = await this.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles');
    if (list.code !== 200) return false;
    const roles: Array<{
      metadata: { labels?: Record<string, string> };
      rules?: object[];
      aggregationRule?: { clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string> }> };
    }> = list.body.items;
    return roles
      .filter((r) => r.aggregationRule)
      .every((aggregate) => {
        const held = new Set((aggregate.rules ?? []).map((rule) => JSON.stringify(rule)));
        const selected = roles.filter(
          (r) =>
            r !== aggregate &&
            (aggregate.aggregationRule!.clusterRoleSelectors ?? []).some((sel) =>
              Object.entries(sel.matchLabels ?? {}).every(([k, v]) => r.metadata.labels?.[k] === v),
            ),
        );
        return selected.every((r) => (r.rules ?? []).every((rule) => held.has(JSON.stringify(rule))));
      });
  }

  /**
   * Stops and starts kube-controller-manager. The garbage collector discovers the API when it starts and then only
   * every 30 seconds: until then it neither deletes the dependents of a kind installed since nor finishes that
   * kind's foreground deletions. {@link installCrds} and {@link applyObjects} restart it when they install CRDs, once
   * the apiserver's discovery serves them.
   */
  async restartControllerManager(): Promise<void> {
    if (!this.controllerManager) {
      throw new Error('envtest: kube-controller-manager does not run (controllerManager: false)');
    }
    await this.controllerManager.stop(2000);
    await this.startControllerManager();
  }

  /** After CRDs were installed: the garbage collector must know them, as it would within 30 s on a cluster. */
  private async rediscover(crds: readonly object[]): Promise<void> {
    if (!this.hasControllerManager || !this.controllers.includes('garbage-collector-controller')) return;
    // the garbage collector reads discovery when it starts: wait until discovery serves every new resource
    for (const crd of crds as Array<{
      spec: { group: string; names: { plural: string }; versions: Array<{ name: string; served?: boolean }> };
    }>) {
      for (const v of crd.spec.versions.filter((x) => x.served !== false)) {
        await this.waitFor(
          `discovery to serve ${crd.spec.names.plural}.${crd.spec.group}/${v.name}`,
          async () => {
            const r = await this.request('GET', `/apis/${crd.spec.group}/${v.name}`);
            return (
              r.code === 200 &&
              (r.body.resources ?? []).some((res: { name: string }) => res.name === crd.spec.names.plural)
            );
          },
          this.timeoutMs,
        );
      }
    }
    await this.restartControllerManager();
  }

  private spawnEtcd(): void {
    const noFsync = supportsFlag(this.binaries.etcd, 'unsafe-no-fsync');
    this.etcd = this.spawn('etcd', this.binaries.etcd, etcdArgs(this.layout, noFsync));
  }

  private spawn(name: string, bin: string, args: readonly string[]): ManagedProcess {
    const p = new ManagedProcess(name, bin, args);
    p.hold(this.held);
    return p;
  }

  private async etcdThenApiServer(): Promise<void> {
    await this.etcd!.waitHealthy({ url: `http://127.0.0.1:${this.layout.etcdPort}` }, '/health', this.timeoutMs);
    await this.startApiServer();
  }

  private async startApiServer(): Promise<void> {
    const l = this.layout;
    this.apiServer = this.spawn(
      'kube-apiserver',
      this.binaries.kubeApiServer,
      apiServerArgs(l, this.opts.apiServerFlags),
    );
    await this.waitFor(
      'kube-apiserver to write its serving certificate',
      () => {
        if (!this.apiServer!.running) {
          throw new Error(`envtest: kube-apiserver exited before becoming ready:\n${this.apiServer!.log}`);
        }
        // written without a rename: wait for the whole file (serving certificate, then its CA)
        return (
          existsSync(files.servingCert(l)) &&
          (readFileSync(files.servingCert(l), 'utf8').match(/-----END CERTIFICATE-----/g) ?? []).length >= 2
        );
      },
      this.timeoutMs,
    );
    // apiserver.crt holds the serving certificate followed by the CA that signed it
    this.caPem = readFileSync(files.servingCert(l), 'utf8');
    await this.apiServer.waitHealthy(this.target(this.admin), '/readyz', this.timeoutMs);
  }

  private async waitFor(
    what: string,
    ready: () => boolean | Promise<boolean>,
    timeoutMs: number,
    required = true,
  ): Promise<void> {
    if (!required) return;
    const deadline = Date.now() + timeoutMs;
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`envtest: timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Server, CA and token of an identity (the admin's by default). */
  access(identity: Identity = this.admin): ClusterAccess {
    return { server: this.url, ca: this.ca, token: identity.token, user: identity.user, namespace: identity.namespace };
  }

  /** A client-node KubeConfig for an identity (the admin's by default). */
  kubeConfig(identity: Identity = this.admin): KubeConfig {
    return kubeConfigFor(this.access(identity));
  }

  /** Writes a kubeconfig file (for kubectl or a controller process) for an identity (the admin's by default). */
  writeKubeconfig(path: string, identity: Identity = this.admin): void {
    writeKubeconfig(path, this.access(identity));
  }

  /** A raw JSON request as an identity (the admin's by default). */
  request(
    method: string,
    path: string,
    body?: unknown,
    opts: RequestOptions & { identity?: Identity } = {},
  ): Promise<HttpReply> {
    return request(this.target(opts.identity ?? this.admin), method, path, body, opts);
  }

  private target(identity: Identity): HttpTarget {
    return { url: this.url, ca: this.caPem, token: identity.token };
  }

  /**
   * Installs CRD manifests and waits until each is Established (and, when it runs, until the garbage collector
   * has discovered them: see {@link restartControllerManager}).
   */
  async installCrds(crds: readonly object[]): Promise<void> {
    await installCrds(this.target(this.admin), crds, this.timeoutMs);
    await this.rediscover(crds);
  }

  /**
   * Installs webhook configurations (and conversion CRDs) pointing at a server the test runs on
   * 127.0.0.1, with a CA made for it (controller-runtime's `WebhookInstallOptions`): returns the bind
   * address and the certificate that server must use. See `webhooks.ts`.
   */
  installWebhooks(options: WebhookInstallOptions): Promise<InstalledWebhooks> {
    return installWebhooks(this.target(this.admin), options, this.timeoutMs);
  }

  /**
   * Applies a chart's objects (`Testing.synth(chart)`, or `readManifests(['dist'])`) as admin, in the order a
   * fresh cluster needs (dist/APPLY.md's): Namespaces, CRDs until Established, cluster-scoped, namespaced,
   * custom resources. Server-side apply: applying again changes nothing. Every kind the apiserver serves can be
   * applied (those of neither the built-in table nor the objects' CRDs are looked up in its discovery). When CRDs are
   * among the objects, the garbage collector rediscovers the API before the custom resources are applied.
   */
  async applyObjects(objects: readonly object[]): Promise<void> {
    await applyObjects(this.target(this.admin), objects as Manifest[], this.timeoutMs, (crds) => this.rediscover(crds));
  }

  /**
   * The identity of the ServiceAccount the chart's operator Deployment runs as (after {@link applyObjects}):
   * give `kubeConfig(identity)` to the manager and it runs with exactly the chart's RBAC.
   */
  async operatorIdentity(objects: readonly object[]): Promise<Identity> {
    const { namespace, name } = operatorServiceAccount(objects as Manifest[]);
    return this.serviceAccount(namespace, name);
  }

  /**
   * Creates a namespace (a unique one from `prefix` when `name` ends with '-') and its `default`
   * ServiceAccount, which the ServiceAccount admission plugin requires of every pod (without
   * kube-controller-manager nothing else creates it).
   */
  async createNamespace(name: string, labels: Record<string, string> = {}): Promise<string> {
    const ns = name.endsWith('-')
      ? `${name}${process.pid.toString(36)}${(++this.namespaceCounter).toString(36)}`
      : name;
    const created = await this.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, labels },
    });
    if (created.code !== 201) {
      throw new Error(`envtest: creating namespace ${ns} failed (${created.code}): ${created.body?.message}`);
    }
    const sa = await this.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default' },
    });
    if (sa.code !== 201 && sa.code !== 409) {
      throw new Error(`envtest: creating serviceaccount ${ns}/default failed (${sa.code}): ${sa.body?.message}`);
    }
    return ns;
  }

  /**
   * The identity of a ServiceAccount (created when missing), with a token from the TokenRequest API signed by
   * this control plane's key: a controller given its kubeconfig runs under exactly the RBAC bound to it.
   */
  async serviceAccount(namespace: string, name: string, expirationSeconds = 24 * 3600): Promise<Identity> {
    const base = `/api/v1/namespaces/${namespace}/serviceaccounts`;
    const sa = await this.request('POST', base, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
    if (sa.code !== 201 && sa.code !== 409) {
      throw new Error(`envtest: creating serviceaccount ${namespace}/${name} failed (${sa.code}): ${sa.body?.message}`);
    }
    const tr = await this.request('POST', `${base}/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds },
    });
    if (tr.code !== 201) {
      throw new Error(
        `envtest: token for serviceaccount ${namespace}/${name} failed (${tr.code}): ${tr.body?.message}`,
      );
    }
    return { user: `system:serviceaccount:${namespace}:${name}`, token: tr.body.status.token, namespace };
  }

  /**
   * Stops and starts kube-apiserver (etcd keeps the data): watches break, the watch cache starts empty.
   * The old process gets `graceMs` to shut down before it is killed, like a crash-looping apiserver.
   */
  async restartApiServer(opts: { downMs?: number; graceMs?: number } = {}): Promise<void> {
    const { downMs = 0, graceMs = 1000 } = opts;
    await this.apiServer?.stop(graceMs);
    if (downMs) await new Promise((r) => setTimeout(r, downMs));
    await this.startApiServer();
  }

  /**
   * Compacts etcd's history up to its current revision: lists and watches from an older resourceVersion that
   * reach etcd (continue tokens, watches after an apiserver restart) then get 410 Gone. Returns the revision.
   */
  async compactEtcd(): Promise<number> {
    const etcd = { url: `http://127.0.0.1:${this.layout.etcdPort}` };
    const range = await request(etcd, 'POST', '/v3/kv/range', { key: Buffer.from('/').toString('base64') });
    const revision = Number(range.body?.header?.revision);
    if (!revision) {
      throw new Error(`envtest: could not read etcd's revision (${range.code}): ${JSON.stringify(range.body)}`);
    }
    const compacted = await request(etcd, 'POST', '/v3/kv/compaction', { revision, physical: true });
    if (compacted.code !== 200) {
      throw new Error(`envtest: etcd compaction failed (${compacted.code}): ${JSON.stringify(compacted.body)}`);
    }
    return revision;
  }

  /** Output of a component (for diagnosing a failed test). */
  logs(component: 'etcd' | 'kube-apiserver' | 'kube-controller-manager'): string {
    const p = { etcd: this.etcd, 'kube-apiserver': this.apiServer, 'kube-controller-manager': this.controllerManager }[
      component
    ];
    return p?.log ?? '';
  }

  /**
   * Lets this Node.js process exit while the control plane runs, as `unref()` does for a timer or a socket: a plane
   * kept for later test files must not hold a test runner's worker that has finished (jest waits 500 ms for it, then
   * kills it). When this process exits, the plane's processes are killed with it; its folder stays. Processes the plane
   * starts later (a restart) are unreferenced too, until {@link ref}.
   */
  unref(): void {
    this.hold(false);
  }

  /** Undoes {@link unref}: the plane's processes keep this Node.js process alive again (the default). */
  ref(): void {
    this.hold(true);
  }

  private hold(held: boolean): void {
    this.held = held;
    for (const p of [this.etcd, this.apiServer, this.controllerManager]) p?.hold(held);
  }

  /**
   * Stops the plane's processes where they are (SIGSTOP) until {@link resume}, and returns once every thread of them
   * has stopped (the kernel stops them one by one, as each next runs). A paused plane takes no CPU, where an
   * idle one keeps about 2.5 % of a core busy (kube-apiserver's and etcd's timers), and resuming costs milliseconds
   * where a new plane costs seconds of CPU. For a pool of planes kept between test files. Nothing may use the plane
   * while it is paused: requests wait until it resumes. {@link stop} stops a paused plane too.
   */
  async pause(): Promise<void> {
    // the clients first, so that none of them meets a stopped server
    for (const p of [this.controllerManager, this.apiServer, this.etcd]) await p?.freeze();
  }

  /** Continues a paused plane's processes and waits until kube-apiserver is ready again. */
  async resume(): Promise<void> {
    for (const p of [this.etcd, this.apiServer, this.controllerManager]) p?.thaw();
    await this.apiServer?.waitHealthy(this.target(this.admin), '/readyz', this.timeoutMs);
  }

  /** Stops every process and removes the control plane's folder. */
  async stop(): Promise<void> {
    await this.controllerManager?.stop();
    await this.apiServer?.stop();
    await this.etcd?.stop();
    rmSync(this.layout.dir, { recursive: true, force: true });
  }
}

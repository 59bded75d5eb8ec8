/**
 * `cdk8s-operator cluster [--kubeconfig <file>] [--controllers cluster|all|none|<a,b>] [--apply <dir>]...`: a local
 * control plane without Docker or kind, from the envtest binaries (KUBEBUILDER_ASSETS, as `setup-envtest use -p path`
 * prints): etcd, kube-apiserver with RBAC and the default admission chain, and kube-controller-manager with role
 * aggregation, the garbage collector and namespace lifecycle. Writes a kubeconfig of its admin, prints how to use it,
 * optionally applies synth output (dist/, in dist/APPLY.md's order), and runs until interrupted (Ctrl-C stops every
 * process and removes the data). There is no node: pods are accepted but never run. For a controller's tests, the same
 * control plane is `ControlPlane` of `cdk8s-operator/envtest`.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ControlPlane, ControlPlaneOptions, readManifests } from '../runtime/envtest';

/** Options of {@link clusterCommand}. */
export interface ClusterCommandOptions {
  /** Where the admin kubeconfig is written. @default '.cdk8s-operator/kubeconfig' */
  readonly kubeconfig?: string;
  /** `cluster` (CLUSTER_CONTROLLERS), `all` (DEFAULT_CONTROLLERS), `none`, or controller names. @default 'cluster' */
  readonly controllers?: string;
  /** Folders or YAML files whose objects are applied once the control plane is up (e.g. `dist`). @default [] */
  readonly apply?: readonly string[];
  /** Folder of kube-apiserver, kube-controller-manager (and etcd). @default process.env.KUBEBUILDER_ASSETS */
  readonly assetsDir?: string;
  /** Stops the control plane when aborted. @default - SIGINT or SIGTERM */
  readonly signal?: AbortSignal;
}

/** The `controllerManager` option of a `--controllers` value. */
export function controllersOption(value: string | undefined): ControlPlaneOptions['controllerManager'] {
  switch (value ?? 'cluster') {
    case 'cluster':
      return undefined;
    case 'all':
      return true;
    case 'none':
      return false;
    default: {
      const names = value!
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      const bad = names.filter((n) => !/^[a-z][a-z-]*$/.test(n));
      if (names.length === 0 || bad.length) {
        throw new Error(`--controllers: must be cluster, all, none or controller names (a,b), got '${value}'`);
      }
      return names;
    }
  }
}

/** Runs the command; resolves with the exit code once the control plane has stopped. */
export async function clusterCommand(options: ClusterCommandOptions, log: (line: string) => void): Promise<number> {
  const controllerManager = controllersOption(options.controllers);
  const kubeconfig = resolve(options.kubeconfig ?? '.cdk8s-operator/kubeconfig');
  // read first: a bad path fails before anything starts
  const objects = readManifests(options.apply ?? []);
  const started = Date.now();
  const plane = await ControlPlane.start({ assetsDir: options.assetsDir, controllerManager });
  try {
    mkdirSync(dirname(kubeconfig), { recursive: true });
    plane.writeKubeconfig(kubeconfig);
    if (objects.length) await plane.applyObjects(objects);
    const controllers = plane.controllers.length ? plane.controllers.join(', ') : 'none (no kube-controller-manager)';
    log(
      [
        `control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${plane.url}`,
        `  kube-controller-manager controllers: ${controllers}`,
        ...(objects.length ? [`  applied ${objects.length} objects from ${options.apply!.join(', ')}`] : []),
        '  no node: pods are accepted but never run',
        `kubeconfig (admin, system:masters): ${kubeconfig}`,
        `  export KUBECONFIG=${kubeconfig}`,
        "  kubectl apply -f dist/   # then: npx cdk8s-operator run (the controller as its chart's ServiceAccount)",
        'Ctrl-C stops it and removes its data.',
      ].join('\n'),
    );
    await stopped(options.signal);
  } finally {
    await plane.stop();
  }
  log('control plane stopped');
  return 0;
}

function stopped(signal?: AbortSignal): Promise<void> {
  if (signal) {
    return signal.aborted
      ? Promise.resolve()
      : new Promise((r) => signal.addEventListener('abort', () => r(), { once: true }));
  }
  return new Promise((r) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      r();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

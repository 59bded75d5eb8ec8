#!/usr/bin/env node
/**
 * `npx cdk8s-operator <command>` — ships with the package. Every command answers `--help`.
 * Errors go to stderr with exit code 1 (usage errors 2).
 */
import { bundleCommand } from './bundle-command';
import { clusterCommand } from './cluster-command';
import { helmTemplateCommand } from './helm-template-command';
import { imageCommand } from './image-command';
import { runCommand } from './run-command';
import { scaffoldCommand } from './scaffold-command';
import { typesCommand } from './types-command';

/** Each command's usage: what `<command> --help` prints. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  types: `types <crd.yaml|crds.ts>... [--output imports] [--library cdk8s-operator] [--check]
      TypeScript types and construct classes for your CRDs, one file per API group.
      Inputs: CRD YAML/JSON files, or a .ts/.js module exporting defineCrds(scope).
      --check: only report whether the output is stale (exit code 1).`,
  bundle: `bundle <main.ts> [--output bundle/controller.js] [--no-minify]
      The controller in one file for Node 20 (esbuild), with a source map. Keep it out of dist/,
      which synth owns (and clears).`,
  image: `image [--bundle bundle/controller.js] [--base <base.tar|image>] [--tag <image>] [--push] [--chart dist]
        [--out images/<name>.tar] [--base-name <ref>] [--source <url>] [--revision <sha>] [--node-option <flag>]
        [--dockerfile <path>] [--insecure-registry <host:port>]
      The controller's container image without Docker or any daemon: the bundle as one layer on a distroless
      Node base, one tarball that is both a docker-archive and an OCI image layout, and with --push in the
      registry its tag names. Reproducible (the same inputs give the same digest; layer times are
      SOURCE_DATE_EPOCH, else 0).
      --base (or BASE_IMAGE_TAR): the base as a tarball (docker-archive or OCI layout), or an image reference
        pulled from its registry; default --base-name (${'gcr.io/distroless/nodejs20-debian12:nonroot'}) pulled.
      --base-name: the base's reference, pulled when no --base is given, recorded in the annotations.
      --tag: default the image the chart's operator Deployment runs (in --chart, default dist/): one place.
      --push: push to the tag's registry (registry v2 API, as ko and Jib do); credentials from the docker config
        ($DOCKER_CONFIG/config.json or ~/.docker/config.json: auths, credHelpers, credsStore). Loopback registries
        are plain HTTP; --insecure-registry <host:port> (repeatable) makes another one plain HTTP.
      --out: the tarball (default images/<repository name>.tar).
      --source, --revision: the org.opencontainers.image.source/revision labels; default package.json's repository
        and the HEAD of the project's own git repository (none when the project is not a repository's top level).
      --node-option: a Node flag before the bundle in the entrypoint (repeatable).
      --dockerfile: build that Dockerfile's recipe (FROM/COPY/USER/ENV/ENTRYPOINT, no RUN) instead of the bundle's.
      The user, ports and entrypoint follow the chart (non-root, \`node /app/<bundle>\`, the chart's args appended).
      Load: ctr -n k8s.io images import <tar> | docker load -i <tar>.`,
  run: `run [--chart dist] [--bundle bundle/controller.js] [--service-account <ns>/<name>] [--duration 3600]
        [--kubeconfig-out <file>] [-- <controller flags>...]
      Runs the controller on this machine as its chart's ServiceAccount: mints a short-lived token (TokenRequest)
      with your kubeconfig, runs the bundle with a kubeconfig of that token, POD_NAMESPACE (the Lease's namespace),
      WATCH_NAMESPACE and the args of the chart's Deployment; prints the identity (SelfSubjectReview) first.`,
  cluster: `cluster [--kubeconfig .cdk8s-operator/kubeconfig] [--controllers cluster|all|none|<a,b>] [--apply dist]... [--assets <dir>]
      A local control plane without Docker: etcd, kube-apiserver (RBAC, the default admission chain) and
      kube-controller-manager from the envtest binaries (--assets, else KUBEBUILDER_ASSETS). Writes an admin
      kubeconfig, applies --apply's objects in dist/APPLY.md's order, runs until Ctrl-C (then removes its data).
      --controllers: cluster (default: role aggregation, garbage collector, namespace lifecycle, quota), all (also
      Deployments, Jobs, ServiceAccounts …), none, or controller names. No node: pods never run.`,
  'helm-template': `helm-template <chart dir> [--namespace default] [--release-name release] [--values <file>]... [--set a.b=v]...
        [--include-crds] [--lint]
      helm template / helm lint for the chart synth writes with layout: OutputLayout.HELM, without a helm binary:
      values.yaml, then each --values file, then each --set (list={a,b}), checked against values.schema.json as Helm
      checks them; every template rendered and parsed. Prints the objects, or with --lint only the verdict; exit 1
      with every problem listed.
      --namespace: .Release.Namespace (the operator's namespace); --release-name: .Release.Name.
      --include-crds: print crds/ first (helm template --include-crds).`,
  scaffold: `scaffold [dir] --kind <Kind> --group <group> [--scope Namespaced|Cluster] [--versions v1]
        [--namespaces a,b] [--package-spec <npm spec>]
      A new operator project: CRD, example, contract, controller, chart, tests, README, npm scripts
      (types, build, test, synth, bundle, image, local, start). Never overwrites a file.
      dir: the project folder (default .); its package.json gets the scripts and dependencies.
      --kind: the custom resource's kind, PascalCase (Website).
      --group: its API group, a DNS name with a dot (example.com).
      --scope: Namespaced (default), or Cluster for a kind with no namespace (a Tenant, a Team): its ConfigMaps
        then go to the operator's own namespace.
      --versions: the kind's versions, oldest first, the last stored (default v1: one version to start with;
        v1alpha1,v1 serves both with one schema).
      --namespaces: watch only these namespaces (one Role and informer each; the chart's WATCH_NAMESPACE);
        default cluster-wide. Not with --scope Cluster.
      --package-spec: what package.json depends on for cdk8s-operator when it is not a dependency yet
        (default ^<this version>), e.g. file:../cdk8s-operator-1.0.0.tgz or a git URL, to try an unreleased build.`,
};

const USAGE = `Usage: cdk8s-operator <command> [--help]

${Object.values(COMMAND_USAGE)
  .map((u) => `  ${u}`)
  .join('\n')}
`;

/** Parsed `--name value` / `--name=value` / `--flag` options and positional arguments. */
export interface ParsedArgs {
  readonly positional: string[];
  readonly options: Map<string, string | true>;
  /** Arguments after `--`. */
  readonly rest: string[];
}

/** Parses arguments; `flags` are the options without a value. Throws on an unknown option. */
export function parseArgs(
  argv: readonly string[],
  known: readonly string[],
  flags: readonly string[] = [],
): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return { positional, options, rest: argv.slice(i + 1) };
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) {
      positional.push(argv[i]);
      continue;
    }
    if (![...known, ...flags].includes(m[1])) throw new UsageError(`unknown option '--${m[1]}'`);
    if (flags.includes(m[1])) {
      options.set(m[1], true);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`option --${m[1]} needs a value`);
    const previous = options.get(m[1]);
    // a repeated option (--node-option) collects its values, separated by NUL
    options.set(m[1], typeof previous === 'string' && REPEATABLE.includes(m[1]) ? `${previous}\0${value}` : value);
  }
  return { positional, options, rest: [] };
}

const REPEATABLE = ['node-option', 'apply', 'insecure-registry', 'values', 'set'];

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(
  argv: readonly string[],
  log: (line: string) => void = (l) => process.stdout.write(l + '\n'),
): Promise<number> {
  const [command, ...rest] = argv;
  const dashDash = rest.indexOf('--');
  const own = dashDash < 0 ? rest : rest.slice(0, dashDash);
  if (command && COMMAND_USAGE[command] && (own.includes('--help') || own.includes('-h'))) {
    log(`Usage: cdk8s-operator ${COMMAND_USAGE[command]}\n`);
    return 0;
  }
  switch (command) {
    case 'types': {
      const args = parseArgs(rest, ['output', 'library'], ['check']);
      return typesCommand(
        {
          inputs: args.positional,
          output: str(args, 'output'),
          library: str(args, 'library'),
          check: args.options.has('check'),
        },
        log,
      );
    }
    case 'bundle': {
      const args = parseArgs(rest, ['output'], ['no-minify']);
      if (args.positional.length !== 1) throw new UsageError('bundle takes exactly one entry file');
      return bundleCommand(
        { entry: args.positional[0], output: str(args, 'output'), minify: !args.options.has('no-minify') },
        log,
      );
    }
    case 'image': {
      const args = parseArgs(
        rest,
        [
          'bundle',
          'base',
          'base-name',
          'tag',
          'chart',
          'out',
          'source',
          'revision',
          'node-option',
          'dockerfile',
          'insecure-registry',
        ],
        ['push'],
      );
      if (args.positional.length) {
        throw new UsageError(`image takes no positional arguments, got '${args.positional.join(' ')}'`);
      }
      return imageCommand(
        {
          bundle: str(args, 'bundle'),
          base: str(args, 'base'),
          baseName: str(args, 'base-name'),
          tag: str(args, 'tag'),
          chart: str(args, 'chart'),
          out: str(args, 'out'),
          source: str(args, 'source'),
          revision: str(args, 'revision'),
          nodeOptions: str(args, 'node-option')?.split('\0'),
          dockerfile: str(args, 'dockerfile'),
          push: args.options.has('push'),
          insecureRegistries: str(args, 'insecure-registry')?.split('\0'),
        },
        log,
      );
    }
    case 'run': {
      const args = parseArgs(rest, ['chart', 'bundle', 'service-account', 'duration', 'kubeconfig-out']);
      if (args.positional.length) {
        throw new UsageError(`run takes controller flags after '--', got '${args.positional.join(' ')}'`);
      }
      const duration = str(args, 'duration');
      return runCommand(
        {
          chart: str(args, 'chart'),
          bundle: str(args, 'bundle'),
          serviceAccount: str(args, 'service-account'),
          durationSeconds: duration === undefined ? undefined : Number(duration),
          kubeconfigOut: str(args, 'kubeconfig-out'),
          extraArgs: args.rest,
        },
        log,
      );
    }
    case 'cluster': {
      const args = parseArgs(rest, ['kubeconfig', 'controllers', 'apply', 'assets']);
      if (args.positional.length) {
        throw new UsageError(`cluster takes no positional arguments, got '${args.positional.join(' ')}'`);
      }
      return clusterCommand(
        {
          kubeconfig: str(args, 'kubeconfig'),
          controllers: str(args, 'controllers'),
          apply: str(args, 'apply')?.split('\0'),
          assetsDir: str(args, 'assets'),
        },
        log,
      );
    }
    case 'helm-template': {
      const args = parseArgs(rest, ['namespace', 'release-name', 'values', 'set'], ['lint', 'include-crds']);
      if (args.positional.length !== 1) throw new UsageError('helm-template takes exactly one chart folder');
      return helmTemplateCommand(
        {
          chart: args.positional[0],
          namespace: str(args, 'namespace'),
          releaseName: str(args, 'release-name'),
          valuesFiles: str(args, 'values')?.split('\0'),
          set: str(args, 'set')?.split('\0'),
          lint: args.options.has('lint'),
          includeCrds: args.options.has('include-crds'),
        },
        log,
      );
    }
    case 'scaffold': {
      const args = parseArgs(rest, ['kind', 'group', 'namespaces', 'package-spec', 'scope', 'versions']);
      if (args.positional.length > 1) throw new UsageError('scaffold takes at most one directory');
      const kind = str(args, 'kind');
      const group = str(args, 'group');
      if (!kind || !group) throw new UsageError('scaffold needs --kind and --group');
      return scaffoldCommand(
        {
          dir: args.positional[0] ?? '.',
          kind,
          group,
          namespaces: str(args, 'namespaces')?.split(',').filter(Boolean),
          packageSpec: str(args, 'package-spec'),
          scope: str(args, 'scope'),
          versions: str(args, 'versions')?.split(',').filter(Boolean),
        },
        log,
      );
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      process.stderr.write(`cdk8s-operator: ${err.message}\n${err instanceof UsageError ? `\n${USAGE}` : ''}`);
      process.exitCode = err instanceof UsageError ? 2 : 1;
    },
  );
}

/**
 * `cdk8s-operator scaffold [dir] --kind Website --group example.com [--scope Cluster] [--versions v1] [--namespaces team-a,team-b]`:
 * a new operator project that generates its types, builds, tests, synthesizes and runs as it is.
 * Adds npm scripts and dependencies to the folder's package.json (`npm init -y` first, or one is
 * created); never overwrites an existing file.
 */
import * as fs from 'fs';
import * as path from 'path';
import { SCAFFOLD_SCRIPTS, scaffoldFiles, TESTED_TOOLCHAIN } from './scaffold/templates';
import { pluralOf } from '../lib/crd/plural';

/** Options of {@link scaffoldCommand}. */
export interface ScaffoldCommandOptions {
  readonly dir: string;
  /** PascalCase kind, e.g. `Website`. */
  readonly kind: string;
  /** API group, e.g. `example.com`. */
  readonly group: string;
  /** @default - cluster-wide */
  readonly namespaces?: readonly string[];
  /** `Namespaced` or `Cluster`. @default 'Namespaced' */
  readonly scope?: string;
  /** Versions of the kind, oldest first; the last is stored. @default ['v1'] */
  readonly versions?: readonly string[];
  /**
   * npm spec of cdk8s-operator for package.json when it is not a dependency yet.
   * @default `^<this package's version>`
   */
  readonly packageSpec?: string;
}

/** The npm init default test script, which the scaffold may replace. */
const NPM_INIT_TEST = 'echo "Error: no test specified" && exit 1';

/** Runs the command; returns the process exit code. */
export async function scaffoldCommand(options: ScaffoldCommandOptions, log: (line: string) => void): Promise<number> {
  const problems: string[] = [];
  if (!/^[A-Z][A-Za-z0-9]*$/.test(options.kind)) {
    problems.push(`--kind: must be PascalCase (e.g. Website), got '${options.kind}'`);
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(options.group)) {
    problems.push(`--group: must be a DNS subdomain with a dot (e.g. example.com), got '${options.group}'`);
  }
  (options.namespaces ?? []).forEach((ns, i) => {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) {
      problems.push(`--namespaces[${i}]: must be a DNS label, got '${ns}'`);
    }
  });
  const scope = options.scope ?? 'Namespaced';
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    problems.push(`--scope: must be Namespaced or Cluster, got '${scope}'`);
  }
  const cluster = scope === 'Cluster';
  if (cluster && options.namespaces?.length) {
    problems.push(
      `--namespaces: a cluster-scoped kind is in no namespace, so the operator cannot watch it in ${options.namespaces.join(', ')}; drop --namespaces (its ConfigMaps go to the operator's namespace) or use --scope Namespaced`,
    );
  }
  const versions = options.versions ?? ['v1'];
  if (!versions.length) problems.push('--versions: give at least one version, e.g. v1');
  versions.forEach((v, i) => {
    if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(v)) {
      problems.push(`--versions[${i}]: must be a Kubernetes version name (v1, v1beta1, v2alpha1), got '${v}'`);
    }
  });
  if (new Set(versions).size !== versions.length) {
    problems.push(`--versions: lists a version twice (${versions.join(',')})`);
  }
  const lower = options.kind.toLowerCase();
  const files = scaffoldFiles({
    kind: options.kind,
    group: options.group,
    plural: pluralOf(options.kind),
    lower,
    operator: `${lower}-operator`,
    namespaces: options.namespaces?.length ? options.namespaces : undefined,
    cluster,
    versions,
  });
  const existing = Object.keys(files).filter((f) => fs.existsSync(path.join(options.dir, f)));
  if (existing.length) problems.push(`would overwrite ${existing.join(', ')}`);

  const pkgFile = path.join(options.dir, 'package.json');
  const pkg = fs.existsSync(pkgFile)
    ? JSON.parse(fs.readFileSync(pkgFile, 'utf8'))
    : { name: path.basename(path.resolve(options.dir)), version: '0.1.0', private: true };
  const scripts: Record<string, string> = { ...(pkg.scripts ?? {}) };
  for (const [name, command] of Object.entries(SCAFFOLD_SCRIPTS)) {
    if (
      scripts[name] !== undefined &&
      scripts[name] !== command &&
      !(name === 'test' && scripts[name] === NPM_INIT_TEST)
    ) {
      problems.push(
        `package.json: script '${name}' exists ('${scripts[name]}'); remove it or run scaffold in an empty project`,
      );
    }
    scripts[name] = command;
  }
  if (problems.length) throw new Error(`scaffold:\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  const own = ownPackageJson();
  const deps = { ...(pkg.dependencies ?? {}) };
  deps[own.name] ??= options.packageSpec ?? `^${own.version}`;
  deps.cdk8s ??= own.dependencies.cdk8s;
  deps.constructs ??= own.dependencies.constructs;
  const devDeps = { ...(pkg.devDependencies ?? {}) };
  // exactly the versions the scaffold is tested with (a newer TypeScript or @types/node is a combination nothing tests)
  devDeps.typescript ??= TESTED_TOOLCHAIN.typescript;
  devDeps['@types/node'] ??= TESTED_TOOLCHAIN['@types/node'];
  fs.mkdirSync(options.dir, { recursive: true });
  fs.writeFileSync(
    pkgFile,
    JSON.stringify({ ...pkg, scripts, dependencies: deps, devDependencies: devDeps }, null, 2) + '\n',
  );
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(options.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(options.dir, file), content);
    log(`created ${file}`);
  }
  log(
    'updated package.json (scripts, dependencies); next: npm install && npm run types && npm run build && npm test && npm run bundle && npm run synth',
  );
  return 0;
}

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly dependencies: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** This package's package.json (cli/ in the repository, build/cli/ when installed). */
function ownPackageJson(): PackageJson {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
      if (pkg.name === 'cdk8s-operator') return pkg;
    }
  }
  throw new Error(`cannot find cdk8s-operator's package.json above ${__dirname}`);
}

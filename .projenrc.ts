import { javascript, typescript } from 'projen';
import { UpdateSnapshot } from 'projen/lib/javascript';

// projen owns the project files; edit this file and run `npx projen` (works offline after `npm ci`).
const project = new typescript.TypeScriptProject({
  name: 'cdk8s-operator',
  description:
    'Kubernetes operators as cdk8s constructs: CRDs, least-privilege RBAC, a hardened Deployment, checked example resources.',
  license: 'Apache-2.0',
  copyrightOwner: 'cdk8s-operator authors',
  authorName: 'cdk8s-operator authors',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  minNodeVersion: '20.0.0',
  projenrcTs: true,
  srcdir: 'lib',
  testdir: 'test',
  libdir: 'build',
  sampleCode: false,
  // lib/ and runtime/ (and the CLI in cli/) compile side by side into build/: see `exports` below.
  entrypoint: 'build/lib/index.js',
  entrypointTypes: 'build/lib/index.d.ts',
  // `files` (below) is the allow-list of the tarball; no .npmignore to drift from it.
  npmignoreEnabled: false,
  artifactsDirectory: 'pkg',
  tsconfigDevFile: 'tsconfig.dev.json',
  github: false,
  release: false,
  buildWorkflow: false,
  depsUpgrade: false,
  pullRequestTemplate: false,
  // Lint and format are part of the build (the test task runs them after jest, as projen's TypeScript projects do):
  // typescript-eslint with projen's rules plus import order, and Prettier as the one formatter.
  eslint: true,
  eslintOptions: {
    dirs: ['lib', 'runtime', 'cli'],
    devdirs: ['test', 'apps', 'controllers', 'bench', 'tools', 'projenrc'],
    fileExtensions: ['.ts'],
    // one type-aware program per tsconfig that includes the file (tsconfig.dev.json covers every linted folder)
    tsconfigPath: './tsconfig.dev.json',
    prettier: true,
    // `npm test` checks; `npx projen format` fixes
    commandOptions: { fix: false },
  },
  prettier: true,
  prettierOptions: {
    settings: { printWidth: 120, singleQuote: true, trailingComma: javascript.TrailingComma.ALL },
  },
  vscode: false,
  typescriptVersion: '~5.9.3',
  deps: [
    // The controller runtime (cdk8s-operator/runtime). Nothing under lib/ imports these (a test checks).
    '@kubernetes/client-node@~1.4.0',
    'prom-client@^15.1.3',
    // The CLI: \`bundle\` builds controllers with it, \`types\` compiles a defineCrds module with it.
    'esbuild@^0.25.0',
    'cdk8s-plus-28@^2.5.6',
    '@bufbuild/cel@^0.6.1',
    'json-schema-to-typescript@^15.0.4',
    'pluralize@^8.0.0',
    'yaml@^2.8.0',
    // fromFile reads CRDs with it: about six times faster than yaml on large CRDs
    'js-yaml@^4.1.0',
    // The runtime's webhook server: the JSON patch of a defaulting webhook (RFC 6902 diff), and the
    // webhook CA and serving certificates (node-forge signs, keys come from node:crypto; no cert-manager needed).
    'rfc6902@^5.4.0',
    'node-forge@^1.4.3',
    // schema \`pattern\`s and CEL \`matches\`/\`find\` run with Go's regexp semantics (a port of RE2/J, itself Go's regexp)
    're2js@^2.10.0',
    // The Helm layout checks the chart's default values against its values.schema.json at synth (OperatorApp).
    'ajv@^8.17.1',
    // `cdk8s-operator image` reads base images and writes image tarballs (docker-archive + OCI layout) without a daemon.
    'tar-stream@^3.1.7',
  ],
  devDeps: [
    '@types/pluralize',
    '@types/node-forge',
    '@types/js-yaml',
    'cdk8s-cli@^2.200.0',
    'tsx@^4.20.0',
    'fast-json-patch@^3.1.1',
    // the pattern differential test draws strings that match each real-world pattern, then mutates them
    'randexp@^0.6.1',
    // The SampleDB controller talks to PostgreSQL (role, WAL positions, promotion) with node-postgres.
    'pg@^8.16.0',
    '@types/pg',
    '@types/tar-stream',
    'cdk8s@^2.70.0',
    'constructs@^10.4.2',
    // test/sequencer.js: the slowest test files first (jest's documented base class for a custom sequencer)
    '@jest/test-sequencer@^29',
    // test/timeout-scale-environment.js: jest's node environment, its timeouts scaled on a loaded CI host
    'jest-environment-node@^29',
    // test/node/rest-get.ts: the node suites' synchronous GETs on a worker thread instead of a curl process each
    'synckit@^0.12.3',
    // jest's TypeScript transform (below)
    '@swc/core@^1.16.0',
    '@swc/jest@^0.2.39',
  ],
  // The app's cdk8s and constructs are ours: one copy, so constructs from both sides share a tree.
  peerDeps: ['cdk8s@^2.70.0', 'constructs@^10.4.2'],
  peerDependencyOptions: { pinnedDevDependency: false },
  jestOptions: {
    jestVersion: '^29',
    updateSnapshot: UpdateSnapshot.NEVER,
    passWithNoTests: false,
    junitReporting: false,
    jestConfig: {
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testTimeout: 60_000,
      // Three workers on CI's two cores (jest's default there is one): the real-apiserver suites spend much of their
      // time waiting on their control planes: a whole run costs about 2,000 CPU-seconds (measured with four workers),
      // and two workers took 1,344 s, about 1.5 of the two cores. Each worker shares its own planes across its files.
      maxWorkers: 3,
      collectCoverage: false,
      reporters: [new javascript.JestReporter('<rootDir>/test/summary-reporter.js')],
      // control planes shared by suites that opt in (test/envtest/shared-planes.ts): stopped at the end of the run
      globalSetup: '<rootDir>/test/envtest/global-setup.ts',
      globalTeardown: '<rootDir>/test/envtest/global-teardown.ts',
      // the slowest files first, from test/durations.json when jest has no cache (a fresh clone, CI)
      testSequencer: '<rootDir>/test/sequencer.js',
      // every test and hook timeout times TEST_TIMEOUT_SCALE (.ci/run sets it): see the file
      testEnvironment: '<rootDir>/test/timeout-scale-environment.js',
      // prettier in a worker thread, so that jest runs without --experimental-vm-modules: see the file
      moduleNameMapper: { '^prettier$': '<rootDir>/test/support/prettier-in-worker.cjs' },
    },
  },
  tsconfig: {
    include: ['runtime/**/*.ts', 'cli/**/*.ts'],
    exclude: ['runtime/**/*.test.ts'],
    compilerOptions: {
      rootDir: '.',
      target: 'ES2022',
      lib: ['ES2022'],
      skipLibCheck: true,
      esModuleInterop: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
    },
  },
  tsconfigDev: {
    include: [
      'lib/**/*.ts',
      'test/**/*.ts',
      'apps/**/*.ts',
      'imports/**/*.ts',
      'runtime/**/*.ts',
      'controllers/**/*.ts',
      'bench/**/*.ts',
      'tools/**/*.ts',
      '.projenrc.ts',
    ],
    exclude: ['node_modules', 'build', 'pkg', 'dist', 'controllers/*/dist'],
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      skipLibCheck: true,
      esModuleInterop: true,
      // tsc type-checks everything beside jest (test task), so jest only transpiles (swc, below), each file on its
      // own; tsc holds every file to what that allows
      isolatedModules: true,
    },
  },
});

// jest transpiles with swc instead of ts-jest: tsc type-checks everything beside jest (the test task), so jest only
// strips types, each file on its own (isolatedModules), and swc does that in native code. A fresh clone (CI) has no
// transform cache: loading every test file cost 117 CPU-s with ts-jest and 80 with swc (`npx jest --ci --no-cache -t
// <no test's name>`, 2026-12-07); the options are tsconfig.dev.json's (ES2022, CommonJS, esModuleInterop).
project.jest!.config.transform = {
  '^.+\\.[t]sx?$': new javascript.Transform('@swc/jest', {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  }),
};
project.deps.removeDependency('ts-jest');

project.gitignore.exclude('dist/', '.dist.*', 'build/', 'bench/results/', '*.tgz', '.envtest/', '/images/');
// A worktree may link node_modules to another checkout's: a symlink is not a directory, so 'node_modules/' misses it.
project.gitignore.exclude('/node_modules');
project.package.addVersion('0.1.0');

// One package, three entry points: the constructs, the controller runtime and the test control plane (envtest).
// `exports` is what Node resolves; `typesVersions` is the same map for TypeScript's classic `node` resolution.
const entryPoints: Record<string, string> = {
  '.': 'build/lib/index',
  './runtime': 'build/runtime/index',
  './envtest': 'build/runtime/envtest/index',
};
project.package.addField('exports', {
  ...Object.fromEntries(
    Object.entries(entryPoints).map(([subpath, file]) => [
      subpath,
      { types: `./${file}.d.ts`, default: `./${file}.js` },
    ]),
  ),
  './package.json': './package.json',
});
project.package.addField('typesVersions', {
  '*': Object.fromEntries(
    Object.entries(entryPoints)
      .filter(([subpath]) => subpath !== '.')
      .map(([subpath, file]) => [subpath.slice(2), [`${file}.d.ts`]]),
  ),
});
// The tarball is an allow-list: compiled lib/, runtime/ and cli/, and the documentation its README links to
// (README, LICENSE and package.json are always added by npm). A test resolves every link of a shipped doc inside it.
project.package.addField('files', [
  'build/lib/',
  'build/runtime/',
  'build/cli/',
  '!build/**/*.tsbuildinfo',
  'docs/*.md',
  'runtime/README.md',
  'runtime/envtest/README.md',
  'CHANGELOG.md',
]);
// `npx cdk8s-operator types|bundle|scaffold`
project.package.addBin({ 'cdk8s-operator': 'build/cli/main.js' });
// `npm pack` / `npm publish` always build from a clean build/, so no stale or stray file can ship.
const COPY_VENDORED_OPENAPI =
  'cp lib/apiserver/admission-policy/builtin-openapi.json build/lib/apiserver/admission-policy/';
project
  .addTask('prepack', {
    description: 'Clean build of the package contents (run by npm pack/publish)',
    exec: 'rm -rf build && tsc -p tsconfig.json',
  })
  .exec(COPY_VENDORED_OPENAPI);
// the policy type checker reads the vendored built-in OpenAPI at run time: it ships beside the compiled module
project.compileTask.exec(COPY_VENDORED_OPENAPI);

// No --experimental-vm-modules: under it jest keeps every test file's module registry (see
// test/support/prettier-in-worker.cjs, which lets json-schema-to-typescript's prettier run without it).
// The tests' CPU goes to real control planes (Go: kube-apiserver, etcd, kube-controller-manager, kubectl) and to
// jest's workers parsing their JSON; both collect garbage less often here (a young generation of 64 MiB, GOGC 400),
// trading memory the test heaps can spare for CPU (bench/latest/ci-time/gc-tuning.txt: the twelve heaviest
// real-apiserver files took 8-22 % less CPU).
project.testTask.env('NODE_OPTIONS', '--max-semi-space-size=64');
project.testTask.env('GOGC', '400');
// Tests synthesize many apps: keep the synth report out of the test log.
project.testTask.env('CDK8S_OPERATOR_QUIET', '1');

// Prettier formats, ESLint lints: Prettier runs on its own (prettier --check in the test task) rather than as an ESLint
// rule, which made linting about ten times slower (eslint-plugin-prettier formats every file again on each pass).
project.eslint!.addRules({ 'prettier/prettier': 'off' });
// One type-aware program for every linted folder: the project service would look for a tsconfig.json beside each file,
// and the root one covers lib/ only.
const eslintrc = project.tryFindObjectFile('.eslintrc.json')!;
eslintrc.addDeletionOverride('parserOptions.projectService');
eslintrc.addOverride('parserOptions.project', './tsconfig.dev.json');
// Bit operations are what much of this code is about (CEL's 64-bit integers, IP address masks, hashes, tar headers, RE2
// flags); the confusion the rule guards against (`|` for `||`) is a type error in TypeScript's boolean contexts.
project.eslint!.addRules({ 'no-bitwise': 'off' });
// Member order applies to classes; interfaces and type literals keep their members in the order of their meaning (a
// property beside the methods it describes), as their doc comments read.
project.eslint!.addRules({
  '@typescript-eslint/member-ordering': [
    'error',
    {
      default: [
        'public-static-field',
        'public-static-method',
        'protected-static-field',
        'protected-static-method',
        'private-static-field',
        'private-static-method',
        'field',
        'constructor',
        'method',
      ],
      interfaces: 'never',
      typeLiterals: 'never',
    },
  ],
});
// The reference operators' package.json files (controllers/*) only name their bundle; their imports are the root
// package's dependencies.
project.eslint!.addOverride({
  files: ['controllers/**/*.ts'],
  rules: { 'import/no-extraneous-dependencies': ['error', { devDependencies: true, packageDir: '.' }] },
});
// Generated sources: their generators' output is what the freshness tests compare against, so neither tool rewrites them.
const GENERATED_SOURCES = [
  'lib/apiserver/admission-policy/builtin-fields-by-version.ts',
  'lib/apiserver/admission-policy/gated-fields-by-version.ts',
  'lib/apiserver/cel/tz-history.ts',
  'runtime/builtins.ts',
];
for (const file of GENERATED_SOURCES) {
  project.prettier!.addIgnorePattern(file);
  project.eslint!.addIgnorePattern(file);
}
const PRETTIER_GLOBS = ['lib', 'runtime', 'cli', 'test', 'apps', 'controllers', 'bench', 'tools', '.projenrc.ts'].map(
  (d) => (d.endsWith('.ts') ? d : `'${d}/**/*.ts'`),
);
// The static checks, side by side: the type check of everything (lib, apps, runtime, controllers,
// tests: jest only transpiles), ESLint and Prettier each keep about one core busy (32, 46 and 26 s of CPU): one after
// another they left the second core of a 2-core CI machine idle.
const checkTask = project.addTask('check', {
  description: 'Type check, lint and format check, side by side (the test task runs it beside jest)',
  exec: [
    'bash tools/checks/side-by-side.sh',
    '"tsc --noEmit -p tsconfig.dev.json"',
    '"projen eslint"',
    `"prettier --check --log-level warn ${PRETTIER_GLOBS.join(' ')}"`,
  ].join(' '),
});
// The test task is the checks beside jest (projen's Jest and Eslint components each added a step: replaced here).
project.testTask.reset();
project.testTask.exec(`bash tools/checks/beside.sh "projen ${checkTask.name}" jest --ci`, { receiveArgs: true });
// test/durations.json, which test/sequencer.js orders a fresh clone's run by: regenerate after adding a slow test file
project.addTask('test:durations', {
  description: "Record every test file's duration in test/durations.json (a whole jest run)",
  env: project.testTask.envVars,
  steps: [
    { exec: 'jest --ci --json --outputFile=test-reports/durations-run.json' },
    { exec: 'node tools/test-durations/main.cjs test-reports/durations-run.json' },
  ],
});
// `npx projen format`: what a contributor runs before committing (the test task only checks)
project.addTask('format', {
  description: 'Formats and fixes every TypeScript source (Prettier, then ESLint --fix)',
  steps: [
    { exec: `prettier --write --log-level warn ${PRETTIER_GLOBS.join(' ')}` },
    { spawn: 'eslint', args: ['--fix'] },
  ],
});

// The app entry (also what `npx cdk8s synth` runs, see cdk8s.yaml). Run directly, not through the cdk8s CLI:
// the CLI empties dist/ before the app runs, while OperatorApp keeps the last good dist/ when synth fails.
project.addTask('synth:apps', {
  description: 'Synthesize every app in apps/ into dist/ (a failed synth keeps the last good dist/)',
  exec: 'tsx apps/main.ts',
});
// Third-party CRDs the library types against (prometheus-operator's monitoring kinds), vendored in vendor/crds/.
const vendoredImports = {
  servicemonitor: 'vendor/crds/monitoring.coreos.com_servicemonitors.yaml',
  prometheusrule: 'vendor/crds/monitoring.coreos.com_prometheusrules.yaml',
};
const importTask = project.addTask('import', {
  description:
    "Regenerate imports/: types for the apps' CRDs (json-schema-to-typescript) and the vendored CRDs (cdk8s import)",
  exec: 'tsx apps/generate-imports.ts',
});
for (const [prefix, file] of Object.entries(vendoredImports)) {
  importTask.exec(`cdk8s import --no-check-upgrade --no-save ${prefix}:=${file} -o imports`);
}
project.addTask('crd-baselines', {
  description:
    "Rewrite crd-baselines/ (the released CRDs OperatorApp's evolution check compares against) from the apps' CRDs",
  exec: 'tsx apps/write-crd-baselines.ts',
});
project.addTask('images', {
  description:
    'Build every controller image (bundle + Dockerfile recipe, with `cdk8s-operator image --dockerfile`) into images/<name>-controller.tar without Docker; --base <docker-archive.tar> (or BASE_IMAGE_TAR) is the FROM image',
  exec: 'tsx tools/image/main.ts',
  receiveArgs: true,
});
project.addTask('vendor-openapi', {
  description:
    "Rewrite lib/apiserver/admission-policy/builtin-openapi.json (built-in kinds' OpenAPI v3 schemas and resources) from the kube-apiserver in KUBEBUILDER_ASSETS",
  exec: 'tsx tools/vendor-openapi/main.ts',
});
project.addTask('builtin-types', {
  description:
    'Rewrite runtime/builtins.ts (a typed reference and object type for every built-in kind) from lib/apiserver/admission-policy/builtin-openapi.json; test/runtime/builtins-generated.test.ts fails when it is stale',
  exec: 'tsx tools/builtin-types/main.ts',
});
project.addTask('vendor-openapi-versions', {
  description:
    "Rewrite lib/apiserver/admission-policy/builtin-fields-by-version.ts (the built-in fields each version lacks against the vendored 1.32 schemas): 1.28 and 1.36 from the real apiservers of ../shared/k8s/install.sh --version 1.28|1.36, the versions between from upstream's OpenAPI at their release tag (UPSTREAM_OPENAPI_DIR for local copies), 1.37 (--only 1.37) from k8s.io/api's Go types at v0.37.0-beta.0 (git mirrors under UPSTREAM_MIRRORS)",
  exec: 'tsx tools/vendor-openapi/version-fields.ts',
  receiveArgs: true,
});
project.addTask('vendor-openapi-added', {
  description:
    'Rewrite lib/apiserver/builtin-validation/decoding-fields-added.ts (the built-in fields and schemas 1.36 has and the vendored 1.32 schemas lack, for strict decoding) from the kube-apiserver in KUBEBUILDER_ASSETS_1_36',
  exec: 'tsx tools/vendor-openapi/added-fields.ts',
});
project.addTask('vendor-upstream-cel', {
  description:
    "Rewrite lib/apiserver/cel/upstream-base-env.ts: the CEL environment of each release from k8s.io/apiserver's pkg/cel/environment/base.go at a tag (default v0.37.0-beta.0) and the cost changes since 1.36, read from git mirrors under UPSTREAM_MIRRORS (default /work/.mirror)",
  exec: 'tsx tools/upstream-cel/main.ts',
  receiveArgs: true,
});
project.addTask('vendor-gated-fields', {
  description:
    'Rewrite lib/apiserver/admission-policy/gated-fields-by-version.ts: what the real 1.28, 1.32 and 1.36 apiservers do with fields behind feature gates (kept, dropped, refused, unknown)',
  exec: 'tsx tools/vendor-openapi/gated-fields.ts',
});
project.addTask('chaos', {
  description:
    'SampleDB under faults on the real node (issue 23, long form): every fault kind --per-kind times (20) with synchronous: true, then an asynchronous run for the RPO; JSON reports in bench/latest/chaos-*.json',
  exec: 'tsx test/node/chaos/main.ts',
  receiveArgs: true,
});
project.addTask('e2e:rotation-long', {
  description:
    'The admission suite on the real node with the long form of its certificate rotation (CA 60 s, certificate 30 s, 100 s of admission traffic; CI runs 40 s / 20 s / 45 s); summary in bench/latest/admission-rotation-long.json',
  exec: 'tsx test/node/run.ts admission',
  env: { NODE_E2E_LONG: '1' },
});
project.addTask('autopilot:anomalies', {
  description:
    'SampleDB anomalies the CI short form does not cause (XID age, connection saturation, a failed backup, a volume nearly full), each caused on the real node and followed to the alert Alertmanager delivers (issue 34, long form); JSON in bench/latest/sampledb-anomalies.json',
  exec: 'tsx test/node/long/sampledb-anomalies.ts',
});
project.addTask('corpus:fetch', {
  description:
    'The whole real-world CRD corpus (201 CRDs, 21 MB) into .cache/realworld-corpus, at the commits test/fixtures/realworld-corpus/SOURCES.tsv pins, each file checked against its SHA-256 ([--base-url MIRROR | --from DIR] [--out DIR])',
  exec: 'tsx tools/realworld-corpus/main.ts',
  receiveArgs: true,
});
project.addTask('differential', {
  description:
    'Generated differential corpus of custom resources over the real-world CRDs on kube-apiserver 1.28, 1.32 and 1.36 (--seed N --per-crd K [--versions 1.28,1.32,1.36]); JSON in bench/latest/cr-differential.json',
  exec: 'tsx bench/cr-differential.ts',
  receiveArgs: true,
});
project.addTask('bench:sharded', {
  description:
    'The Foo controller sharded across 0 (unsharded), 1, 2 and 4 member processes on a real kube-apiserver (issue 33): converge time, per-member peak RSS and CPU, audited requests per Foo; JSON in bench/latest/sharded-results.json',
  exec: 'tsx bench/sharded-bench.ts',
  receiveArgs: true,
});
project.addTask('chaos:sharded', {
  description:
    'The sharded Foo controller under load through kill -9, add, remove, partition and roll (issue 33, long form); JSON in bench/latest/sharded-chaos.json',
  exec: 'tsx bench/sharded-chaos.ts',
  receiveArgs: true,
});
project.addTask('probe:shard-selector', {
  description:
    "The apiserver's shard selector (KEP-5866) on v1.32.13 and v1.36.3 with its gate off and on; output in bench/latest/shard-selector-probe-*.txt (docs/sharding.md cites it)",
  exec: 'tsx tools/probe/shard-selector.ts',
  receiveArgs: true,
});
project.addTask('probe:storage-migration', {
  description:
    'Which storagemigration.k8s.io versions v1.32.13 and v1.36.3 serve, by gate and --runtime-config (bench/latest/storage-migration-apis.json), and how long the in-tree migration waits on a kind nobody writes to (bench/latest/in-tree-migration-wait.json)',
  exec: 'tsx tools/probe/storage-migration-apis.ts && tsx tools/probe/in-tree-migration-wait.ts',
});
project.addTask('bench', {
  description: 'Run the benchmarks (JSON + chart in bench/results/); --quick for small sizes',
  exec: 'tsx bench/run.ts',
  receiveArgs: true,
});

project.synth();

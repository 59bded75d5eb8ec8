/**
 * Every code block of the README, of docs/ (every file, every depth: blocks added later are checked too) and of the
 * runtime's READMEs is compiled, parsed or checked as its info string says (test/docs/code-blocks.ts has the
 * conventions, and the `fragment` marker for a block that cannot stand alone), and every relative link of those
 * files resolves, anchors included. The README's example also runs (test/readme.test.ts); the tutorial's commands
 * run against a real kube-apiserver (test/consumer/tutorial.test.ts).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import * as yaml from 'yaml';
import {
  anchors,
  checkCommand,
  CodeBlock,
  codeBlocks,
  CommandContext,
  LANGUAGES,
  links,
  shellCommands,
  shippedMarkdown,
} from './code-blocks';
import { COMMAND_USAGE } from '../../cli/main';
import { SCAFFOLD_SCRIPTS } from '../../cli/scaffold/templates';
import { packedPackageDir } from '../support/npm-pack';

const ROOT = path.join(__dirname, '..', '..');
const FILES = shippedMarkdown(ROOT);
const BLOCKS = FILES.flatMap((f) => codeBlocks(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
const where = (b: CodeBlock) => `${b.file}:${b.line}`;
const of = (language: string, fragment: boolean) =>
  BLOCKS.filter((b) => b.language === language && b.fragment === fragment);

/** The commands of docs/tutorial.md run in the project it scaffolds, not in this repository. */
function commandContext(file: string): CommandContext {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const tasks = JSON.parse(fs.readFileSync(path.join(ROOT, '.projen', 'tasks.json'), 'utf8')).tasks;
  const suites = [
    ...fs.readFileSync(path.join(ROOT, 'test', 'node', 'run.ts'), 'utf8').matchAll(/\{ name: '([\w-]+)', load:/g),
  ].map((m) => m[1]);
  const user = file === 'docs/tutorial.md';
  return {
    root: ROOT,
    npmScripts: new Set(Object.keys(user ? SCAFFOLD_SCRIPTS : pkg.scripts)),
    projenTasks: new Set(Object.keys(tasks)),
    cliUsage: COMMAND_USAGE,
    nodeSuites: new Set(suites),
    inRepository: !user,
  };
}

describe('the code blocks of the README and docs/', () => {
  test("the files and blocks are found (the README, the index and the guides, the runtime's READMEs)", () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/README.md',
        'docs/tutorial.md',
        'docs/API.md',
        'runtime/README.md',
        'runtime/envtest/README.md',
      ]),
    );
    expect(of('ts', false).length).toBeGreaterThanOrEqual(10);
    expect(of('sh', false).length).toBeGreaterThanOrEqual(15);
    expect(of('ts', true).length).toBeGreaterThanOrEqual(5);
  });

  test(
    'every block names its language, one of ' +
      LANGUAGES.join(', ') +
      ' (with `fragment` only where it means something)',
    () => {
      const bad = BLOCKS.filter(
        (b) =>
          !(LANGUAGES as readonly string[]).includes(b.language) ||
          (b.fragment && !['ts', 'sh', 'yaml', 'json'].includes(b.language)) ||
          b.info
            .split(/\s+/)
            .slice(1)
            .some((a) => a !== 'fragment'),
      );
      expect(bad.map((b) => `${where(b)}: \`\`\`${b.info}`)).toStrictEqual([]);
    },
  );

  test("every `ts` block compiles as a module against the package's entry points (strict)", () => {
    // The blocks as in-memory modules inside the repository (so 'cdk8s' and 'constructs' resolve from its
    // node_modules), the package's entry points mapped to the declarations of the package as packed
    // (test/support/npm-pack.ts, shared with the package test): what a project depending on it compiles against.
    // A wrong block rides along, so the check is seen failing in the same program.
    const wrong: CodeBlock = {
      file: 'wrong',
      line: 1,
      info: 'ts',
      language: 'ts',
      fragment: false,
      code: "import { Operator } from 'cdk8s-operator';\nOperator.noSuchMember();\n",
    };
    const blocks = [...of('ts', false), wrong];
    const names = blocks.map((b, i) =>
      path.join(ROOT, '.docs-blocks', `${b.file.replace(/[/.]/g, '_')}_${b.line}_${i}.ts`),
    );
    const sources = new Map(names.map((n, i) => [n, `${blocks[i].code}\nexport {};\n`]));
    const packed = packedPackageDir();
    const options: ts.CompilerOptions = {
      // ES modules, so that a block may `await` at its top level
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ES2022,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      baseUrl: ROOT,
      paths: {
        'cdk8s-operator': [path.join(packed, 'build', 'lib', 'index.d.ts')],
        'cdk8s-operator/runtime': [path.join(packed, 'build', 'runtime', 'index.d.ts')],
        'cdk8s-operator/envtest': [path.join(packed, 'build', 'runtime', 'envtest', 'index.d.ts')],
      },
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (f, v, ...rest) =>
      sources.has(f) ? ts.createSourceFile(f, sources.get(f)!, v) : getSourceFile.call(host, f, v, ...rest);
    host.fileExists = (f) => sources.has(f) || fileExists.call(host, f);
    host.readFile = (f) => sources.get(f) ?? readFile.call(host, f);
    const program = ts.createProgram(names, options, host);
    const errors = names.flatMap((n, i) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(n)).map((d) => {
        const { line } = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: -1 };
        return `${blocks[i].file}:${blocks[i].line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
    expect(errors).toStrictEqual([
      expect.stringMatching(/^wrong:3: Property 'noSuchMember' does not exist on type 'typeof Operator'/),
    ]);
  }, 300_000);

  test('every `ts fragment` parses, as statements or as the members of an object literal', () => {
    const syntaxErrors = (code: string) => {
      const file = ts.createSourceFile('fragment.ts', code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
      return (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      );
    };
    const bad = of('ts', true)
      .map((b) => {
        const asStatements = syntaxErrors(b.code);
        return asStatements.length && syntaxErrors(`({\n${b.code}\n});`).length
          ? `${where(b)}: ${asStatements.join('; ')}`
          : undefined;
      })
      .filter(Boolean);
    expect(bad).toStrictEqual([]);
    // and the check can fail
    expect(syntaxErrors('const x = ;')).not.toStrictEqual([]);
  });

  test('every `sh` block parses (bash -n), and every command in it exists', () => {
    const problems: string[] = [];
    for (const b of BLOCKS.filter((x) => x.language === 'sh')) {
      const parsed = spawnSync('bash', ['-n'], { input: b.code, encoding: 'utf8' });
      if (parsed.status !== 0) problems.push(`${where(b)}: bash -n: ${parsed.stderr.trim()}`);
      const ctx = commandContext(b.file);
      for (const words of shellCommands(b.code)) {
        const problem = checkCommand(words, ctx);
        if (problem) problems.push(`${where(b)}: ${problem}`);
      }
    }
    expect(problems).toStrictEqual([]);
  });

  test('every `yaml` and `json` block parses', () => {
    const bad = BLOCKS.filter((b) => b.language === 'yaml' || b.language === 'json').flatMap((b) => {
      try {
        if (b.language === 'json') JSON.parse(b.code);
        else for (const d of yaml.parseAllDocuments(b.code)) if (d.errors.length) throw d.errors[0];
        return [];
      } catch (e) {
        return [`${where(b)}: ${(e as Error).message}`];
      }
    });
    expect(bad).toStrictEqual([]);
  });
});

describe('the command checks can fail', () => {
  const ctx = commandContext('README.md');
  test.each([
    ['npm run no-such-script', /no such script/],
    ['npx projen no-such-task', /no such task/],
    ['npx cdk8s-operator no-such-command', /no such command/],
    ['npx cdk8s-operator image --no-such-flag x', /unknown option\(s\) --no-such-flag/],
    ['npx tsx test/node/run.ts no-such-suite', /unknown suite/],
    ['npx tsx no/such/file.ts', /no such file/],
    ['kubectl frobnicate x', /not a kubectl command/],
    ['frobnicate --now', /not a known tool/],
  ])('%s', (line, problem) => {
    expect(shellCommands(line).map((w) => checkCommand(w, ctx))).toEqual([expect.stringMatching(problem)]);
  });

  test('commands are split on operators, inside $(…) too; quotes, comments, heredocs and assignments are handled', () => {
    expect(
      shellCommands(
        [
          'export A=$(setup-envtest use -p path 1.32.x)   # a comment; npm run nothing',
          "B=1 npm ci && npx cdk8s synth || kubectl get 'pods; x' -o jsonpath='{.a}' &",
          "kubectl apply -f - <<'YAML'",
          'kind: Not a command',
          'YAML',
        ].join('\n'),
      ),
    ).toStrictEqual([
      ['setup-envtest', 'use', '-p', 'path', '1.32.x'],
      ['export', 'A=$(…)'],
      ['B=1', 'npm', 'ci'],
      ['npx', 'cdk8s', 'synth'],
      ['kubectl', 'get', 'pods; x', '-o', 'jsonpath={.a}'],
      ['kubectl', 'apply', '-f', '-'],
    ]);
  });
});

describe('the links of the README and docs/', () => {
  const all = FILES.flatMap((f) => links(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));

  test('every relative link names an existing file, and every anchor a heading of it', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    const bad = all.filter((l) => {
      if (!fs.existsSync(path.join(ROOT, l.path))) return true;
      return (
        l.anchor !== undefined &&
        l.path.endsWith('.md') &&
        !anchors(fs.readFileSync(path.join(ROOT, l.path), 'utf8')).has(l.anchor)
      );
    });
    expect(bad.map((l) => `${l.file}: ${l.target}`)).toStrictEqual([]);
  });

  test('the docs index links every page of docs/, and the README links the index and every guide', () => {
    const linked = (file: string) => new Set(all.filter((l) => l.file === file).map((l) => l.path));
    const index = linked('docs/README.md');
    expect(FILES.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md' && !index.has(f))).toStrictEqual([]);
    const readme = linked('README.md');
    const guides = [
      'tutorial',
      'crds',
      'operators',
      'admission',
      'api-evolution',
      'runtime-guide',
      'testing',
      'reference-operators',
      'benchmarks',
      'chaos',
    ];
    expect(['docs/README.md', ...guides.map((g) => `docs/${g}.md`)].filter((f) => !readme.has(f))).toStrictEqual([]);
  });

  test('the README fits on a page', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(150);
  });
});

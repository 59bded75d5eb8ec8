import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

// The typed store flow checked by the compiler: generated CRD types → resourceRef<Foo> → Store<Foo> → reconciler code.
const FIXTURE = path.join(__dirname, 'typed-store.fixture.ts');
const ROOT = path.join(__dirname, '..', '..');

/** Compiles the fixture (optionally rewritten) with the repository's compiler options; returns its diagnostics. */
function diagnostics(rewrite: (source: string) => string = (s) => s): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.dev.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.dev.json did not parse');
  const host = ts.createCompilerHost(config.options);
  const original = host.getSourceFile;
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === FIXTURE
      ? ts.createSourceFile(file, rewrite(fs.readFileSync(FIXTURE, 'utf8')), language)
      : original.call(host, file, language, ...rest);
  const program = ts.createProgram([FIXTURE], { ...config.options, noEmit: true, noUnusedLocals: false }, host);
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(FIXTURE))
    .map(
      (d) =>
        `${ts.getLineAndCharacterOfPosition(d.file!, d.start!).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

jest.setTimeout(120_000);
describe('typed stores and status writes, checked by tsc', () => {
  test('the fixture compiles: every @ts-expect-error line is an error, every other line type-checks', () => {
    expect(diagnostics()).toEqual([]);
  });

  test('without the markers, each marked line fails for the reason it states', () => {
    const errors = diagnostics((s) => s.replace(/^\s*\/\/ @ts-expect-error.*$/gm, ''));
    expect(errors).toEqual([
      expect.stringMatching(/Property 'replica' does not exist on type 'FooSpec'/),
      expect.stringMatching(/Type 'string \| undefined' is not assignable to type 'number \| undefined'/),
      expect.stringMatching(/'availableReplica' does not exist in type 'FooStatus'/),
      expect.stringMatching(/Type 'string' is not assignable to type 'number'/),
    ]);
  });
});

import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as ts from 'typescript';
import { packedPackageDir } from '../support/npm-pack';

const ROOT = join(__dirname, '../..');

/** Every name `lib/index.ts` exports; the index is a list of `export { … } from` statements (checked below). */
function indexExports(): string[] {
  const file = join(ROOT, 'lib/index.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((e) => e.name.text));
    } else if (!ts.isImportDeclaration(statement)) {
      throw new Error(`lib/index.ts may only re-export names, found: ${statement.getText(source).slice(0, 80)}`);
    }
  }
  return names.sort();
}

/** The names in the first column of the `## Exports` table of docs/API.md. */
function documentedExports(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/API.md'), 'utf8');
  const section = doc.split(/^## Exports$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1])).sort();
}

describe('public API', () => {
  test('lib/index.ts exports exactly the names docs/API.md lists under "Exports"', () => {
    const exported = indexExports();
    const documented = documentedExports();
    expect(exported.length).toBeGreaterThan(20);
    expect({
      exportedButNotDocumented: exported.filter((n) => !documented.includes(n)),
      documentedButNotExported: documented.filter((n) => !exported.includes(n)),
    }).toEqual({ exportedButNotDocumented: [], documentedButNotExported: [] });
  });

  test('lib/index.ts lists its exports by name (no `export *` that would publish whatever a module adds)', () => {
    const src = readFileSync(join(ROOT, 'lib/index.ts'), 'utf8');
    expect(src).not.toMatch(/export \*/);
  });
});

describe('declarations', () => {
  test('the .d.ts of the public index, as the packed package ships them, compile on their own (nothing public refers to an @internal name)', () => {
    // the package as published (test/support/npm-pack.ts: one clean build per content of the sources, shared with the
    // package and tutorial tests): its declarations are tsconfig.json's emit, with stripInternal
    const pkg = realpathSync(packedPackageDir()); // the compiler names files by their real paths
    const index = join(pkg, 'build', 'lib', 'index.d.ts');
    expect(existsSync(index)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'dts-check-'));
    try {
      const consumer = join(dir, 'consumer.ts');
      writeFileSync(
        consumer,
        `import * as api from '${index.replace(/\.d\.ts$/, '')}';\nexport const everything = api;\n`,
      );
      const program = ts.createProgram([consumer], {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      });
      const checked = program.getSourceFiles().filter((f) => f.fileName.startsWith(pkg));
      expect(checked.length).toBeGreaterThan(20);
      const errors = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName.startsWith(pkg) || d.file?.fileName === consumer)
        .map(
          (d) => `${d.file!.fileName.slice(pkg.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

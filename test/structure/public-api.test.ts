import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';

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
  test('the emitted .d.ts of the public index compile on their own (nothing public refers to an @internal name)', () => {
    const outDir = mkdtempSync(join(ROOT, '.dts-check-'));
    try {
      execFileSync(
        process.execPath,
        [
          require.resolve('typescript/bin/tsc'),
          '-p',
          join(ROOT, 'tsconfig.json'),
          '--outDir',
          outDir,
          '--emitDeclarationOnly',
        ],
        { stdio: 'pipe' },
      );
      const consumer = join(outDir, 'consumer.ts');
      // the build's rootDir decides where lib/index.d.ts lands
      const index = existsSync(join(outDir, 'lib', 'index.d.ts')) ? './lib/index' : './index';
      writeFileSync(consumer, `import * as api from '${index}';\nexport const everything = api;\n`);
      const program = ts.createProgram([consumer], {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      });
      const errors = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file?.fileName.startsWith(outDir))
        .map(
          (d) => `${d.file!.fileName.slice(outDir.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      expect(errors).toEqual([]);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});

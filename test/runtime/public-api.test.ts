import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const RUNTIME = path.join(__dirname, '..', '..', 'runtime');

/** Every name runtime/index.ts exports (values and types), as the compiler sees them. */
function exportedNames(): string[] {
  const index = path.join(RUNTIME, 'index.ts');
  // Only the runtime's own modules matter for the export list: no default lib, no @types.
  const program = ts.createProgram([index], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    noLib: true,
    types: [],
    noResolve: false,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(index)!)!;
  return checker
    .getExportsOfModule(module)
    .map((s) => s.name)
    .sort();
}

/** The backticked names of the README's "Public API" table. */
function documentedNames(): string[] {
  const readme = fs.readFileSync(path.join(RUNTIME, 'README.md'), 'utf8');
  const section = /^## Public API\n([\s\S]*?)^### /m.exec(readme);
  if (!section) throw new Error('runtime/README.md has no "## Public API" section');
  const rows = section[1].split('\n').filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| area'));
  return rows.flatMap((row) => [...row.split('|')[2].matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1])).sort();
}

describe('cdk8s-operator/runtime public API', () => {
  let exported: string[];
  beforeAll(() => {
    exported = exportedNames();
  });

  test('exports exactly what runtime/README.md documents (add a name to both, or neither)', () => {
    const documented = documentedNames();
    expect(exported.length).toBeGreaterThan(50);
    expect({
      undocumented: exported.filter((n) => !documented.includes(n)),
      notExported: documented.filter((n) => !exported.includes(n)),
    }).toStrictEqual({ undocumented: [], notExported: [] });
    expect(new Set(documented).size).toBe(documented.length);
  });

  test('every export carries a doc comment (what an editor shows a newcomer)', () => {
    const program = ts.createProgram([path.join(RUNTIME, 'index.ts')], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      noLib: true,
      types: [],
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(path.join(RUNTIME, 'index.ts'))!)!;
    const undocumented = checker
      .getExportsOfModule(module)
      .map((s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s))
      .filter((s) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim() === '')
      .map((s) => s.name);
    expect(undocumented).toStrictEqual([]);
  });

  test('internals stay internal', () => {
    for (const internal of [
      'Watcher',
      'Informer',
      'ObjectCache',
      'WorkQueue',
      'LeaderElector',
      'ProbeServer',
      'KubeConfigTransport',
      'NamespacedInformers',
      'assertContractGrants',
      'requireEsm',
    ]) {
      expect(exported).not.toContain(internal);
    }
  });
});

import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const FOO = path.join(ROOT, 'controllers', 'foo');

/** Non-null assertions (`x!`) and type assertions (`x as T`, `<T>x`) in a file, with their line. */
function uncheckedTypes(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const what = ts.isNonNullExpression(node)
      ? 'non-null assertion'
      : ts.isAsExpression(node) &&
          !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const')
        ? 'cast'
        : ts.isTypeAssertionExpression(node)
          ? 'cast'
          : undefined;
    if (what) {
      found.push(
        `${path.relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what} \`${node.getText(source)}\``,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Runtime imports other than the public index. */
function runtimeInternals(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/from\s+'([^']*runtime[^']*)'/g)]
    .map((m) => m[1])
    .filter((spec) => spec !== '../../runtime')
    .map((spec) => `${path.relative(ROOT, file)}: ${spec}`);
}

describe('the reference controllers are written against the typed, published runtime API', () => {
  const files = fs
    .readdirSync(FOO)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(FOO, f));

  test('Foo: no non-null assertions and no casts: generated types flow through the typed stores', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(files.flatMap(uncheckedTypes)).toStrictEqual([]);
  });

  const all = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? all(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
      );

  test('the runtime only through its public index (what cdk8s-operator/runtime exports), in every controller', () => {
    expect(all(path.join(ROOT, 'controllers')).flatMap(runtimeInternals)).toStrictEqual([]);
  });

  test('every controller: typed (no non-null assertions, no casts), and no copy of the read-your-writes wait', () => {
    const controllerFiles = all(path.join(ROOT, 'controllers'));
    expect(controllerFiles.flatMap(uncheckedTypes)).toStrictEqual([]);
    // writes go through manager.readYourWritesClient; a controller never waits for its cache itself
    const ownWaits = controllerFiles
      .filter((f) => /waitForResourceVersion/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(ownWaits).toStrictEqual([]);
  });

  test('the check sees what it forbids', () => {
    const probe = path.join(ROOT, 'node_modules', '.cache', `typed-source-probe-${process.pid}.ts`);
    fs.mkdirSync(path.dirname(probe), { recursive: true });
    fs.writeFileSync(
      probe,
      "import { x } from '../../runtime/store';\nconst a = foo!.spec;\nconst b = bar as Foo;\nconst c = [1] as const;\n",
    );
    try {
      expect(uncheckedTypes(probe).map((l) => l.replace(/^.*?:(\d+): /, '$1: '))).toStrictEqual([
        '2: non-null assertion `foo!`',
        '3: cast `bar as Foo`',
      ]);
      expect(runtimeInternals(probe)).toHaveLength(1);
    } finally {
      fs.rmSync(probe, { force: true });
    }
  });
});

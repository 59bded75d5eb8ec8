/** Which packages a source file loads (for the dependency checks of the package). */
import * as fs from 'fs';
import { builtinModules } from 'module';
import * as ts from 'typescript';

/** The package a module specifier names (`@scope/name/sub` → `@scope/name`), or undefined for relative paths and builtins. */
export function packageOf(specifier: string): string | undefined {
  if (
    specifier.startsWith('.') ||
    specifier.startsWith('/') ||
    specifier.startsWith('node:') ||
    builtinModules.includes(specifier.split('/')[0])
  ) {
    return undefined;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export interface ModuleUse {
  readonly specifier: string;
  readonly file: string;
  /** `import type` / `export type`: erased from the JavaScript, still read by consumers' type-checks of the .d.ts. */
  readonly typeOnly: boolean;
}

/** Every module a TypeScript source loads: import/export declarations, `require('x')`, `import('x')`, `import('x').T` types. */
export function moduleUses(file: string, source = fs.readFileSync(file, 'utf8')): ModuleUse[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const out: ModuleUse[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;
      out.push({ specifier: node.moduleSpecifier.text, file, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]) &&
      ((ts.isIdentifier(node.expression) && node.expression.text === 'require') ||
        node.expression.kind === ts.SyntaxKind.ImportKeyword)
    ) {
      out.push({ specifier: node.arguments[0].text, file, typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push({ specifier: node.argument.literal.text, file, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

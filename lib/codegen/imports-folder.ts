import * as fs from 'fs';
import * as path from 'path';
import { GeneratedFile } from './generate-types';

/** Writes generated files into `dir`, leaving files it did not generate alone. */
export function writeImports(dir: string, files: readonly GeneratedFile[]): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of files) fs.writeFileSync(path.join(dir, f.path), f.content);
}

/** The generated files whose content on disk is missing or differs: empty when `dir` is fresh. */
export function staleImports(dir: string, files: readonly GeneratedFile[]): string[] {
  return files
    .filter((f) => {
      const file = path.join(dir, f.path);
      return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== f.content;
    })
    .map((f) => f.path);
}

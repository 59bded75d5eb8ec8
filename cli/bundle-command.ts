/**
 * `cdk8s-operator bundle <main.ts> [--output bundle/controller.js]`: the controller and everything it
 * imports (the runtime, @kubernetes/client-node's config module, prom-client) in one CommonJS file
 * for Node 20 with a source map — what a distroless image copies and runs with `node`.
 */
import * as fs from 'fs';

/** Options of {@link bundleCommand}. */
export interface BundleCommandOptions {
  readonly entry: string;
  /** @default 'bundle/controller.js' (outside dist/, which synth owns) */
  readonly output?: string;
  /** @default true */
  readonly minify?: boolean;
}

/** Runs the command; returns the process exit code. */
export async function bundleCommand(options: BundleCommandOptions, log: (line: string) => void): Promise<number> {
  if (!fs.existsSync(options.entry)) throw new Error(`bundle: ${options.entry}: no such file`);
  const outfile = options.output ?? 'bundle/controller.js';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for this command: synth never pays for it
  const esbuild = require('esbuild') as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [options.entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: options.minify ?? true,
    // Error classes and metrics keep their names in logs and stack traces.
    keepNames: true,
    sourcemap: true,
    logLevel: 'silent',
    metafile: true,
  });
  for (const w of result.warnings) log(`warning: ${w.text}`);
  const bytes = fs.statSync(outfile).size;
  log(`${outfile} (${(bytes / 1024 / 1024).toFixed(1)} MiB, ${Object.keys(result.metafile.inputs).length} modules)`);
  return 0;
}

#!/usr/bin/env node
/**
 * `npx cdk8s-operator <command>` — ships with the package:
 *
 *   types <crd.yaml|crds.ts>... [--output imports] [--library cdk8s-operator] [--check]
 *   bundle <main.ts> [--output dist/controller.js] [--no-minify]
 *   scaffold [dir] --kind Website --group example.com [--namespaces team-a,team-b] [--package-spec ^0.1.0]
 *
 * Errors go to stderr with exit code 1 (usage errors 2).
 */
import { bundleCommand } from './bundle-command';
import { scaffoldCommand } from './scaffold-command';
import { typesCommand } from './types-command';

const USAGE = `Usage: cdk8s-operator <command>

  types <crd.yaml|crds.ts>... [--output imports] [--library cdk8s-operator] [--check]
      TypeScript types and construct classes for your CRDs, one file per API group.
      Inputs: CRD YAML/JSON files, or a .ts/.js module exporting defineCrds(scope).
  bundle <main.ts> [--output dist/controller.js] [--no-minify]
      The controller in one file for Node 20 (esbuild), with a source map.
  scaffold [dir] --kind <Kind> --group <group> [--namespaces a,b] [--package-spec <npm spec>]
      A new operator project: CRD, example, contract, controller, chart, test, README.
`;

/** Parsed `--name value` / `--name=value` / `--flag` options and positional arguments. */
export interface ParsedArgs {
  readonly positional: string[];
  readonly options: Map<string, string | true>;
}

/** Parses arguments; `flags` are the options without a value. Throws on an unknown option. */
export function parseArgs(argv: readonly string[], known: readonly string[], flags: readonly string[] = []): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) { positional.push(argv[i]); continue; }
    if (![...known, ...flags].includes(m[1])) throw new UsageError(`unknown option '--${m[1]}'`);
    if (flags.includes(m[1])) { options.set(m[1], true); continue; }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`option --${m[1]} needs a value`);
    options.set(m[1], value);
  }
  return { positional, options };
}

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[], log: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'types': {
      const args = parseArgs(rest, ['output', 'library'], ['check']);
      return typesCommand({ inputs: args.positional, output: str(args, 'output'), library: str(args, 'library'), check: args.options.has('check') }, log);
    }
    case 'bundle': {
      const args = parseArgs(rest, ['output'], ['no-minify']);
      if (args.positional.length !== 1) throw new UsageError('bundle takes exactly one entry file');
      return bundleCommand({ entry: args.positional[0], output: str(args, 'output'), minify: !args.options.has('no-minify') }, log);
    }
    case 'scaffold': {
      const args = parseArgs(rest, ['kind', 'group', 'namespaces', 'package-spec']);
      if (args.positional.length > 1) throw new UsageError('scaffold takes at most one directory');
      const kind = str(args, 'kind');
      const group = str(args, 'group');
      if (!kind || !group) throw new UsageError('scaffold needs --kind and --group');
      return scaffoldCommand({
        dir: args.positional[0] ?? '.', kind, group,
        namespaces: str(args, 'namespaces')?.split(',').filter(Boolean),
        packageSpec: str(args, 'package-spec'),
      }, log);
    }
    case undefined:
    case 'help':
    case '--help':
      log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: Error) => {
    process.stderr.write(`cdk8s-operator: ${err.message}\n${err instanceof UsageError ? `\n${USAGE}` : ''}`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  });
}

/**
 * The code blocks and links of the shipped markdown (the README, docs/, the runtime's READMEs), as
 * code-blocks.test.ts checks them. A block's info string says what it is:
 *
 *   ts             a module (ES, so top-level `await` is fine): compiled against the package's entry points
 *                  ('cdk8s-operator', 'cdk8s-operator/runtime', 'cdk8s-operator/envtest')
 *   sh             parsed by `bash -n`; the project's own commands in it must exist (npm scripts, projen tasks, CLI
 *                  commands and flags, files run with `npx tsx` or `bash`, node suites), other tools be known ones
 *   yaml, json     parsed
 *   text, console  output: not checked
 *
 * `fragment` after the language (```ts fragment, ```sh fragment) marks a block that is not compiled or run as a
 * whole: an excerpt whose names are defined elsewhere, or commands the tutorial's test does not run. It is still
 * parsed (a `ts` fragment by TypeScript's parser, as statements or as the members of an object literal), and a `sh`
 * fragment's commands are still checked.
 */
import * as fs from 'fs';
import * as path from 'path';

export const LANGUAGES = ['ts', 'sh', 'yaml', 'json', 'text', 'console'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface CodeBlock {
  /** The markdown file, relative to the repository (`docs/tutorial.md`). */
  readonly file: string;
  /** The line of the opening fence (1-based). */
  readonly line: number;
  /** The whole info string (`ts fragment`). */
  readonly info: string;
  readonly language: string;
  readonly fragment: boolean;
  readonly code: string;
}

/** Fenced code blocks (``` or ~~~, indented as list content or not), the indentation of the fence removed. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, rawInfo] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^( *)(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[2][0] === fence[0] && close[2].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    const info = rawInfo.trim();
    const [language = '', ...attributes] = info.split(/\s+/).filter(Boolean);
    blocks.push({
      file,
      line: i + 1,
      info,
      language,
      fragment: attributes.includes('fragment'),
      code: body.join('\n') + '\n',
    });
    i = j;
  }
  return blocks;
}

/** The markdown files that ship in the package and that the README links into: README.md, docs/ (every depth) and
 *  the runtime's READMEs. */
export function shippedMarkdown(root: string): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      return e.isDirectory() ? walk(rel) : e.name.endsWith('.md') ? [rel] : [];
    });
  return ['README.md', ...walk('docs').sort(), 'runtime/README.md', 'runtime/envtest/README.md'];
}

/** GitHub's anchor of a heading: lower case, formatting and punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (repeated headings get `-1`, `-2`, … as on GitHub). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = markdown.replace(/^ *(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ *\1\s*$/gm, '');
  for (const m of withoutCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

export interface Link {
  readonly file: string;
  readonly target: string;
  /** The file it points to, relative to the repository (the linking file itself for `#anchor`). */
  readonly path: string;
  readonly anchor?: string;
}

/** Relative links (`[text](target)` outside code; URLs left out), resolved against the linking file. */
export function links(file: string, markdown: string): Link[] {
  const prose = markdown.replace(/^ *(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ *\1\s*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t))
    .map((target) => {
      const [p, anchor] = target.split('#');
      return {
        file,
        target,
        path: p ? path.posix.normalize(path.posix.join(path.posix.dirname(file), p)) : file,
        anchor,
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Shell blocks: the simple commands in them.

/** The simple commands of a shell block: heredoc bodies, comments and line continuations removed, split on
 *  `&&`, `||`, `;`, `|` and `&`, each as its words (quotes removed); `$(…)` contents are commands too. */
export function shellCommands(code: string): string[][] {
  const lines: string[] = [];
  let heredoc: string | undefined;
  for (const line of code.replace(/\\\n/g, ' ').split('\n')) {
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      continue;
    }
    const h = /<<-?\s*(['"]?)(\w+)\1/.exec(line);
    if (h) heredoc = h[2];
    lines.push(line.replace(/<<-?\s*(['"]?)\w+\1/, ''));
  }
  const commands: string[][] = [];
  const split = (text: string) => {
    let words: string[] = [];
    let word = '';
    let inWord = false;
    const endWord = () => {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    };
    const endCommand = () => {
      endWord();
      if (words.length) commands.push(words);
      words = [];
    };
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "'" || c === '"') {
        const end = text.indexOf(c, i + 1);
        const quoted = text.slice(i + 1, end < 0 ? undefined : end);
        if (c === '"') for (const m of quoted.matchAll(/\$\(([^()]*)\)/g)) split(m[1]);
        word += quoted;
        inWord = true;
        i = end < 0 ? text.length : end;
      } else if (c === '$' && text[i + 1] === '(') {
        const end = text.indexOf(')', i);
        split(text.slice(i + 2, end));
        word += '$(…)';
        inWord = true;
        i = end;
      } else if (c === '#' && !inWord) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl - 1;
      } else if (c === '\n' || c === ';' || c === '|' || c === '&') {
        if (c === '&' && text[i - 1] === '>') {
          word += c;
          continue;
        } // 2>&1
        if (c === '&' && text[i + 1] === '>') {
          word += c;
          continue;
        }
        endCommand();
      } else if (/\s/.test(c)) {
        endWord();
      } else {
        word += c;
        inWord = true;
      }
    }
    endCommand();
  };
  split(lines.join('\n'));
  // redirections (`> file`, `2>&1`) are not words of the command
  return commands
    .map((w) => w.filter((x, i) => !/^\d*[<>]/.test(x) && !/^\d*[<>]+$/.test(w[i - 1] ?? '')))
    .filter((w) => w.length);
}

/** What a shell block's commands may name, in the context of one markdown file. */
export interface CommandContext {
  readonly root: string;
  /** `npm run <script>` / `npm test`: the scripts of the project the commands run in. */
  readonly npmScripts: ReadonlySet<string>;
  /** `npx projen <task>`. */
  readonly projenTasks: ReadonlySet<string>;
  /** `npx cdk8s-operator <command>` and each command's usage (its flags). */
  readonly cliUsage: Readonly<Record<string, string>>;
  /** `npx tsx test/node/run.ts <suite>…`. */
  readonly nodeSuites: ReadonlySet<string>;
  /** Whether the commands run in this repository (files they name must exist) or in a user's project. */
  readonly inRepository: boolean;
}

/** Tools outside the project the docs may use, and (where listed) the subcommands of theirs they use. */
export const KNOWN_TOOLS: Readonly<Record<string, readonly string[] | undefined>> = {
  kubectl: [
    'apply',
    'wait',
    'get',
    'describe',
    'edit',
    'scale',
    'delete',
    'patch',
    'rollout',
    'auth',
    'create',
    'logs',
    'events',
    'explain',
    'label',
    'annotate',
  ],
  skopeo: ['copy', 'inspect'],
  ctr: undefined,
  docker: ['load', 'save', 'push'],
  crane: ['pull', 'push'],
  kind: ['load', 'create', 'delete'],
  helm: ['install', 'upgrade', 'template'],
  'setup-envtest': ['use'],
  git: undefined,
  node: undefined,
  mkdir: undefined,
  cd: undefined,
  export: undefined,
  kill: undefined,
  flock: undefined,
  echo: undefined,
  true: undefined,
  cat: undefined,
  grep: undefined,
};

const SHELL_KEYWORDS = ['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}'];
const NPM_BUILTINS = ['ci', 'install', 'i', 'init', 'pack', 'publish', 'test', 'run', 'exec', 'ls'];
const CDK8S_COMMANDS = ['synth', 'import', 'init', '--version'];

/** What is wrong with one simple command, or undefined. */
export function checkCommand(words: readonly string[], ctx: CommandContext): string | undefined {
  let w = [...words];
  // shell keywords around the command (`if …; then …; fi`), and VAR=value before it
  while (w.length && (SHELL_KEYWORDS.includes(w[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]))) w = w.slice(1);
  if (!w.length) return undefined;
  const [cmd, ...args] = w;
  const fileInRepo = (f: string) =>
    f.startsWith('../') ||
    f.startsWith('/') ||
    f.startsWith('~') ||
    f.startsWith('$') || // a folder the reader names in a variable ($K8S_NODE_HARNESS/cluster.sh)
    !ctx.inRepository ||
    fs.existsSync(path.join(ctx.root, f));
  if (cmd === 'npm') {
    const [sub, name] = args;
    if (!NPM_BUILTINS.includes(sub)) return `npm ${sub}: not an npm command the docs use (${NPM_BUILTINS.join(', ')})`;
    if (sub === 'test' && !ctx.npmScripts.has('test')) return 'npm test: the project has no test script';
    if (sub === 'run' && !ctx.npmScripts.has(name)) {
      return `npm run ${name}: no such script (have: ${[...ctx.npmScripts].join(', ')})`;
    }
    return undefined;
  }
  if (cmd === 'npx') {
    const [tool, sub, ...rest] = args;
    if (tool === 'projen') {
      return sub === undefined || ctx.projenTasks.has(sub) ? undefined : `npx projen ${sub}: no such task`;
    }
    if (tool === 'cdk8s') {
      return CDK8S_COMMANDS.includes(sub) ? undefined : `npx cdk8s ${sub}: not a cdk8s command the docs use`;
    }
    if (tool === 'tsx') {
      if (!fileInRepo(sub)) return `npx tsx ${sub}: no such file`;
      if (sub === 'test/node/run.ts') {
        const unknown = rest.filter((s) => !s.startsWith('-') && !ctx.nodeSuites.has(s));
        if (unknown.length) return `npx tsx test/node/run.ts: unknown suite(s) ${unknown.join(', ')}`;
      }
      return undefined;
    }
    if (tool === 'cdk8s-operator') {
      const usage = ctx.cliUsage[sub];
      if (!usage) return `npx cdk8s-operator ${sub}: no such command (have: ${Object.keys(ctx.cliUsage).join(', ')})`;
      const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
      const flags = own.filter((a) => a.startsWith('--')).map((a) => a.replace(/=.*$/, ''));
      const unknown = flags.filter((f) => f !== '--help' && !new RegExp(`${f}(?![\\w-])`).test(usage));
      return unknown.length ? `npx cdk8s-operator ${sub}: unknown option(s) ${unknown.join(', ')}` : undefined;
    }
    return `npx ${tool}: not a tool the project provides (projen, cdk8s, tsx, cdk8s-operator)`;
  }
  if (cmd === 'bash' || cmd === 'sh') {
    return args[0] === undefined || fileInRepo(args[0]) ? undefined : `${cmd} ${args[0]}: no such file`;
  }
  if (cmd.includes('/')) return fileInRepo(cmd) ? undefined : `${cmd}: no such file`;
  if (!(cmd in KNOWN_TOOLS)) {
    return `${cmd}: not a known tool (add it to KNOWN_TOOLS in test/docs/code-blocks.ts if the docs should use it)`;
  }
  const subcommands = KNOWN_TOOLS[cmd];
  if (subcommands && args.length && !subcommands.includes(args[0])) {
    return `${cmd} ${args[0]}: not a ${cmd} command the docs use (${subcommands.join(', ')})`;
  }
  return undefined;
}
